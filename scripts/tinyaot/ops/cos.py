"""COS: float32, the one dtype TFLite Micro's kernel takes."""

from .unary_common import float_only

OP = float_only("COS")
