"""FILL: the value repeated (tinyaot_copy with stride 0), or a fold when it is constant."""

from __future__ import annotations

from ..ir import Graph, Op
from ..lowering import op_error
from .movement_common import Walk, check_shape, int_vector, strided_op


def walk(graph: Graph, op: Op) -> Walk:
    value, out = graph.tensor(op.inputs[1]), graph.tensor(op.outputs[0])
    if value.num_elements != 1 or value.shape:
        raise op_error(graph, op, "the value must be a scalar", value.index)
    check_shape(graph, op, out, int_vector(graph, op, op.inputs[0], "dims"))
    return Walk(0, [(out.num_elements, 0)])


OP = strided_op(
    "FILL",
    ("int8", "int32", "float32"),
    walk,
    "constant dims; folds a constant value",
    data=1,
    inputs=(2, 2),
)
