"""`python -m gradshell.kernel`: run as the sandboxed kernel (started by the front end)."""

import os
import sys

from gradshell.kernel.tasks import limit_blas_threads

# Before NumPy loads: its BLAS sizes its thread pool once, and the pool must fit under
# the kernel's task limit.
limit_blas_threads(os.environ)

from gradshell.kernel.server import main  # noqa: E402 - after the BLAS setting

sys.exit(main())
