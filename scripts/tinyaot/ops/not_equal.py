"""NOT_EQUAL with NumPy-style broadcasting: int8, float32, int32 and bool in, bool out."""

from __future__ import annotations

import numpy as np

from .binary_common import GREATER, LESS, UNORDERED, comparison

OP = comparison("NOT_EQUAL", LESS | GREATER | UNORDERED, np.not_equal, bools=True)
