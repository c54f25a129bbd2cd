"""`python -m gradshell.kernel`: run as the sandboxed kernel (started by the front end)."""

import sys

from gradshell.kernel.server import main

sys.exit(main())
