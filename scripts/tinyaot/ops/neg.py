"""NEG: float32, the one dtype TFLite Micro's kernel takes (a sign flip)."""

from .unary_common import float_only

OP = float_only("NEG")
