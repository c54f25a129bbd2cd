"""torch.tensor of NumPy scalars keeps their dtype (np.float64 gives float64, np.float16
float16, np.int32 int32), alone and inside lists, promoted with Python numbers as
PyTorch promotes them. Compared with PyTorch."""

from __future__ import annotations

import pytest
from support.tutorials import printed

from gradshell import torch as gtorch

PROGRAM = """
import numpy as np
for v in [np.float64(0.3), np.float32(0.3), np.float16(1.5), np.int64(3), np.int32(3),
          np.uint8(3), np.bool_(True), [np.float64(0.3)], [np.float64(0.3), 1.0],
          [np.float32(1), 2.0], [np.int32(1), 2], [np.int64(1), 2.5],
          [np.float16(1), np.float32(2)], [[np.float64(1)], [2]]]:
    t = torch.tensor(v)
    print(t, t.dtype)
print(torch.tensor(np.float64(0.5), dtype=torch.float32).dtype)
"""


@pytest.mark.parametrize("program", [PROGRAM])
def test_numpy_scalars_keep_their_dtype(program, real_torch):
    assert printed(program, gtorch) == printed(program, real_torch)
