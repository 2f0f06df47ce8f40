"""GREATER_EQUAL with NumPy-style broadcasting: int8, float32 and int32 in, bool out."""

from __future__ import annotations

import numpy as np

from .binary_common import EQUAL, GREATER, comparison

OP = comparison("GREATER_EQUAL", GREATER | EQUAL, np.greater_equal)
