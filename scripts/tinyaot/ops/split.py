"""SPLIT: equal parts along a constant axis (tinyaot_split_*). The data is input 1."""

from __future__ import annotations

from ..ir import DType, Graph, Op, Tensor
from ..lowering import op_error
from .movement_common import axis_of, check_split_outputs, int_vector, split_op

DTYPES = ("int8", "int16", "int32", "float32")


def split_axis(graph: Graph, op: Op, inp: Tensor, axis_input: int | None) -> tuple[int, list[int]]:
    """The axis (a constant int32 scalar, as TFLM requires) and each output's size there."""
    if graph.tensor(axis_input).dtype != DType.INT32:
        raise op_error(graph, op, "the axis must be int32 (TFLM reads int32)", axis_input)
    axis = axis_of(graph, op, int_vector(graph, op, axis_input, "axis", 1)[0], len(inp.shape))
    return axis, check_split_outputs(graph, op, inp, axis, keep_axis=True)


def axis_sizes(graph: Graph, op: Op) -> tuple[int, list[int]]:
    axis, sizes = split_axis(graph, op, graph.tensor(op.inputs[1]), op.inputs[0])
    if len(set(sizes)) != 1:
        raise op_error(graph, op, f"output sizes {sizes} along axis {axis} are not equal")
    return axis, sizes


OP = split_op(
    "SPLIT",
    DTYPES,
    axis_sizes,
    "constant axis; int8 outputs in the input's quantisation",
    data=1,
    inputs=(2, 2),
)
