"""PADV2: PAD with a constant pad value as a third input (TFLM registers both alike)."""

from __future__ import annotations

from ..lowering import OpDef
from .pad import lower

OP = OpDef(
    "PADV2",
    ("int8", "int16", "float32"),
    lower,
    "up to 5-D, constant paddings and pad value (int8: in the output's quantisation)",
    inputs=(2, 3),
)
