"""EQUAL with NumPy-style broadcasting: int8, float32, int32 and bool in, bool out."""

from __future__ import annotations

import numpy as np

from .binary_common import EQUAL, comparison

OP = comparison("EQUAL", EQUAL, np.equal, bools=True)
