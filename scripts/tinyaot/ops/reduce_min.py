"""REDUCE_MIN over constant axes: int8 (in the input's quantisation) and float32."""

from __future__ import annotations

from .reduce_common import minmax_op

OP = minmax_op("min")
