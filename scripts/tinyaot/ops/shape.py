"""SHAPE: always folds, shapes being static (an open batch dim takes the stored size)."""

from __future__ import annotations

import numpy as np

from ..ir import DType, Graph, Op
from ..lowering import ANY_DTYPE, KernelCall, OpDef, op_error

OUT_DTYPES = (DType.INT32, DType.INT64)


def fold(graph: Graph, op: Op) -> list[np.ndarray] | None:
    if graph.tensor(op.outputs[0]).dtype not in OUT_DTYPES:
        return None
    return [np.asarray(graph.tensor(op.inputs[0]).shape, dtype=np.int64)]


def lower(graph: Graph, op: Op) -> KernelCall:
    # Only reached for outputs fold leaves alone, which the signature check refuses first.
    raise op_error(graph, op, "SHAPE only folds; its output must be int32 or int64")


OP = OpDef(
    "SHAPE",
    ANY_DTYPE,
    lower,
    "folded at compile time; int32 or int64 output",
    converts=tuple((d, o.short) for d in ANY_DTYPE for o in OUT_DTYPES),
    fold=fold,
)
