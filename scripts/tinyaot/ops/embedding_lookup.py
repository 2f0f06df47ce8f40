"""EMBEDDING_LOOKUP: rows of a table (input 1) by int32 ids (input 0), tinyaot_gather; folds
when both are constant. The hybrid form (an int8 table dequantised to float32) is refused.

TFLM fails the invoke on an id out of range; ours writes a row of zeros, having no error to
return."""

from __future__ import annotations

import math

import numpy as np

from ..ir import Graph, Op
from ..lowering import KernelCall, OpDef, TensorArg, op_error
from .movement_common import check_shape, gather_call


def _check(graph: Graph, op: Op) -> None:
    ids, table = graph.tensor(op.inputs[0]), graph.tensor(op.inputs[1])
    out = graph.tensor(op.outputs[0])
    if table.dtype != out.dtype:
        raise op_error(
            graph,
            op,
            f"a {table.dtype.short} table with a {out.dtype.short} output is not supported; "
            "supported: the table's dtype",
            out.index,
        )
    if len(ids.shape) != 1 or len(table.shape) < 2:
        raise op_error(graph, op, "the ids must be 1-D and the table at least 2-D")
    check_shape(graph, op, out, [ids.shape[0], *table.shape[1:]])


def fold(graph: Graph, op: Op) -> list[np.ndarray] | None:
    ids, table = graph.tensor(op.inputs[0]), graph.tensor(op.inputs[1])
    if ids.data is None or table.data is None:
        return None
    _check(graph, op)
    if ((ids.data < 0) | (ids.data >= table.shape[0])).any():
        raise op_error(graph, op, f"an id is outside the {table.shape[0]} rows of the table")
    return [table.data[ids.data]]


def lower(graph: Graph, op: Op) -> KernelCall:
    _check(graph, op)
    ids, table = graph.tensor(op.inputs[0]), graph.tensor(op.inputs[1])
    rows = (1, table.shape[0], math.prod(table.shape[1:]))
    out = graph.tensor(op.outputs[0])
    return gather_call(graph, op, table, out, rows, TensorArg(ids.index), ids.num_elements)


OP = OpDef(
    "EMBEDDING_LOOKUP",
    ("int8", "float32"),
    lower,
    "int32 ids; an id out of range gives zeros (TFLM fails)",
    inputs=(2, 2),
    fold=fold,
    data_input=1,
)
