"""UNPACK: one output per index along an axis, that axis removed (tinyaot_split_*)."""

from __future__ import annotations

from ..ir import Graph, Op
from .movement_common import axis_of, check_split_outputs, split_op


def axis_sizes(graph: Graph, op: Op) -> tuple[int, list[int]]:
    inp = graph.tensor(op.inputs[0])
    axis = axis_of(graph, op, int(op.options.get("Axis", 0) or 0), len(inp.shape))
    return axis, check_split_outputs(graph, op, inp, axis, keep_axis=False)


OP = split_op(
    "UNPACK",
    ("int8", "int16", "int32", "float32"),
    axis_sizes,
    "any axis; int8 outputs in the input's quantisation",
    keep_axis=False,
)
