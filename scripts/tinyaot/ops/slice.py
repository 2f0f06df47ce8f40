"""SLICE up to 5-D: a strided walk (tinyaot_copy), or a fold for constant data."""

from __future__ import annotations

from ..ir import Graph, Op
from ..lowering import op_error
from .movement_common import Walk, check_rank, check_shape, int_vector, row_strides, strided_op

MAX_RANK = 5  # TFLM's kMaxDim for SLICE


def walk(graph: Graph, op: Op) -> Walk:
    inp, out = graph.tensor(op.inputs[0]), graph.tensor(op.outputs[0])
    rank = check_rank(graph, op, inp, MAX_RANK)
    begin = int_vector(graph, op, op.inputs[1], "begin", rank)
    size = int_vector(graph, op, op.inputs[2], "size", rank)
    # reference_ops::Slice: a size of -1 runs to the end of the axis.
    stop = [n if s == -1 else b + s for b, s, n in zip(begin, size, inp.shape, strict=True)]
    for axis, n in enumerate(inp.shape):
        if not 0 <= begin[axis] < stop[axis] <= n:
            raise op_error(
                graph,
                op,
                f"begin {begin[axis]} and size {size[axis]} on axis {axis} are outside 0..{n}",
            )
    check_shape(graph, op, out, [e - b for b, e in zip(begin, stop, strict=True)])
    strides = row_strides(inp.shape)
    offset = sum(b * s for b, s in zip(begin, strides, strict=True))
    return Walk(offset, [(e - b, s) for b, e, s in zip(begin, stop, strides, strict=True)])


OP = strided_op(
    "SLICE",
    ("int8", "int16", "int32", "float32", "bool"),
    walk,
    "up to 5-D, constant begin and size; folds constant data",
    inputs=(3, 3),
)
