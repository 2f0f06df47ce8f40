"""FLOOR_MOD with NumPy-style broadcasting: float32, as TFLite Micro (fmod moved to the
divisor's sign). Constant int32 operands fold at compile time; TFLite Micro runs no int32."""

from __future__ import annotations

import numpy as np

from ..ir import Graph, Op
from ..lowering import KernelCall, OpDef
from .binary_common import fold_binary, plain


def lower(graph: Graph, op: Op) -> KernelCall:
    return plain(graph, op, "floor_mod")


def floor_mod(a: np.ndarray, b: np.ndarray) -> np.ndarray | None:
    if a.dtype.kind != "f" and not np.all(b):
        return None
    r = np.fmod(a, b)
    return np.where((r != 0) & ((b < 0) != (r < 0)), r + b, r)


OP = OpDef(
    "FLOOR_MOD",
    ("float32",),
    lower,
    "broadcasting up to 4-D; int32 folds only",
    inputs=(2, 2),
    fold=fold_binary(floor_mod),
)
