"""EXPAND_DIMS: a view of its input with a dim of 1 inserted, like RESHAPE."""

from __future__ import annotations

from ..ir import DType, Graph, Op
from ..lowering import op_error
from .movement_common import axis_of, int_vector, view_op


def shape(graph: Graph, op: Op) -> list[int]:
    inp = graph.tensor(op.inputs[0])
    if graph.tensor(op.inputs[1]).dtype != DType.INT32:
        raise op_error(graph, op, "the axis must be int32 (TFLM reads int32)", op.inputs[1])
    rank = len(inp.shape)
    axis = axis_of(graph, op, int_vector(graph, op, op.inputs[1], "axis", 1)[0], rank + 1)
    expected = list(inp.shape)
    expected.insert(axis, 1)
    return expected


OP = view_op(
    "EXPAND_DIMS",
    ("int8", "int32", "float32"),
    shape,
    "aliased: no copy",
    inputs=(2, 2),
)
