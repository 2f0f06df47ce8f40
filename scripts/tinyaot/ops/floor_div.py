"""FLOOR_DIV with NumPy-style broadcasting: float32, as TFLite Micro (floor of the double
quotient). Constant int32 operands fold at compile time; TFLite Micro runs no int32."""

from __future__ import annotations

import numpy as np

from ..ir import Graph, Op
from ..lowering import KernelCall, OpDef
from .binary_common import fold_binary, plain


def lower(graph: Graph, op: Op) -> KernelCall:
    return plain(graph, op, "floor_div")


def floor_divide(a: np.ndarray, b: np.ndarray) -> np.ndarray | None:
    if a.dtype.kind == "f":
        return np.floor(a.astype(np.float64) / b.astype(np.float64)).astype(np.float32)
    if not np.all(b):
        return None
    return np.floor_divide(a, b)


OP = OpDef(
    "FLOOR_DIV",
    ("float32",),
    lower,
    "broadcasting up to 4-D; int32 folds only",
    inputs=(2, 2),
    fold=fold_binary(floor_divide),
)
