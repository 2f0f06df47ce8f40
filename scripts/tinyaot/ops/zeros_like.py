"""ZEROS_LIKE: always folds, the output being zeros whatever the input holds (raw zeros for
int8, as TFLM writes them, not the zero point)."""

from __future__ import annotations

import numpy as np

from ..ir import Graph, Op
from ..lowering import KernelCall, OpDef, op_error


def fold(graph: Graph, op: Op) -> list[np.ndarray] | None:
    return [np.zeros(graph.tensor(op.outputs[0]).shape)]


def lower(graph: Graph, op: Op) -> KernelCall:
    # fold never declines, so the compiler never gets here.
    raise op_error(graph, op, "ZEROS_LIKE only folds")


OP = OpDef(
    "ZEROS_LIKE", ("int8", "int32", "int64", "float32"), lower, "folded at compile time", fold=fold
)
