"""MINIMUM with NumPy-style broadcasting: int8, float32 and int32.

TFLite Micro compares the stored int8 values as they are, whatever the scales (the
converter requantises the inputs to the output's); so does this."""

from __future__ import annotations

import numpy as np

from .binary_common import pick

OP = pick("MINIMUM", np.less)
