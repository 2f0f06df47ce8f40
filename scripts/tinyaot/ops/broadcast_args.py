"""BROADCAST_ARGS: the broadcast of two shapes, shape arithmetic that folds (the shapes are
static, so their inputs are constants once SHAPE has folded)."""

from __future__ import annotations

import numpy as np

from ..ir import Graph, Op
from ..lowering import KernelCall, OpDef, const_inputs, op_error


def fold(graph: Graph, op: Op) -> list[np.ndarray] | None:
    values = const_inputs(graph, op)
    if values is None:
        return None
    a, b = (tuple(int(v) for v in x.reshape(-1)) for x in values)
    try:
        return [np.asarray(np.broadcast_shapes(a, b), dtype=np.int64)]
    except ValueError:
        raise op_error(graph, op, f"shapes {list(a)} and {list(b)} do not broadcast") from None


def lower(graph: Graph, op: Op) -> KernelCall:
    raise op_error(graph, op, "the shapes must be constant; BROADCAST_ARGS only folds")


OP = OpDef(
    "BROADCAST_ARGS",
    ("int32", "int64"),
    lower,
    "folded at compile time",
    inputs=(2, 2),
    fold=fold,
)
