"""DIV with NumPy-style broadcasting: float32 and int32 (truncating), fused activations.

Not int8: TFLite Micro's int8 DIV (a reciprocal by Newton-Raphson) is not here yet. An
int32 zero divisor, which faults in TFLite Micro, gives 0."""

from __future__ import annotations

import numpy as np

from ..ir import Graph, Op
from ..lowering import KernelCall, OpDef
from .binary_common import fold_binary, with_activation, wrap_int32


def lower(graph: Graph, op: Op) -> KernelCall:
    return with_activation(graph, op, "div")


def divide(a: np.ndarray, b: np.ndarray) -> np.ndarray | None:
    """C++'s division: float as is; int32 truncating toward zero, wrapping INT32_MIN / -1,
    a zero divisor left to the kernel."""
    if a.dtype.kind == "f":
        return a / b
    if not np.all(b):
        return None
    a64, b64 = a.astype(np.int64), b.astype(np.int64)
    return wrap_int32(np.sign(a64) * np.sign(b64) * (np.abs(a64) // np.abs(b64)))


OP = OpDef(
    "DIV",
    ("float32", "int32"),
    lower,
    "broadcasting up to 4-D, fused activations",
    inputs=(2, 2),
    fold=fold_binary(divide, fused_activation=True),
)
