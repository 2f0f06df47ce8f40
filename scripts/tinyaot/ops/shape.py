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
    # Only reached for the outputs fold leaves alone.
    raise op_error(
        graph,
        op,
        f"a {graph.tensor(op.outputs[0]).dtype.short} output is not supported; SHAPE only "
        "folds, to int32 or int64",
    )


# The output dtypes differ from the input's: lower refuses the ones fold does not take.
OP = OpDef("SHAPE", ANY_DTYPE, lower, "folded at compile time; int32 or int64 output", fold=fold)
