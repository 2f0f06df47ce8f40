"""LESS_EQUAL with NumPy-style broadcasting: int8, float32 and int32 in, bool out."""

from __future__ import annotations

import numpy as np

from .binary_common import EQUAL, LESS, comparison

OP = comparison("LESS_EQUAL", LESS | EQUAL, np.less_equal)
