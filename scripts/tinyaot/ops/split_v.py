"""SPLIT_V: parts of given sizes along a constant axis (tinyaot_split_*)."""

from __future__ import annotations

from ..ir import Graph, Op
from ..lowering import op_error
from .movement_common import int_vector, split_op
from .split import split_axis


def axis_sizes(graph: Graph, op: Op) -> tuple[int, list[int]]:
    axis, sizes = split_axis(graph, op, graph.tensor(op.inputs[0]), op.inputs[2])
    # TFLM takes the sizes from the outputs; the operand only has to agree with them.
    given = int_vector(graph, op, op.inputs[1], "size_splits", len(sizes))
    if any(g not in (-1, s) for g, s in zip(given, sizes, strict=True)) or given.count(-1) > 1:
        raise op_error(graph, op, f"size_splits {given} does not match the outputs {sizes}")
    return axis, sizes


OP = split_op(
    "SPLIT_V",
    ("int8", "int16", "int32", "float32"),
    axis_sizes,
    "constant sizes and axis; int8 outputs in the input's quantisation",
    inputs=(3, 3),
)
