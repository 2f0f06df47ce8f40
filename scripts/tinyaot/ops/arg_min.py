"""ARG_MIN along one constant axis: int8 and float32 inputs, int32 indices."""

from __future__ import annotations

from .arg_min_max_common import arg_op

OP = arg_op("min")
