"""TRANSPOSE up to 5-D: a strided walk (tinyaot_copy), or a fold for constant data."""

from __future__ import annotations

from ..ir import Graph, Op
from ..lowering import op_error
from .movement_common import Walk, check_rank, check_shape, int_vector, row_strides, strided_op

MAX_RANK = 5  # TFLM: "Transpose op only supports 1D-5D input arrays"


def walk(graph: Graph, op: Op) -> Walk:
    inp, out = graph.tensor(op.inputs[0]), graph.tensor(op.outputs[0])
    rank = check_rank(graph, op, inp, MAX_RANK)
    perm = int_vector(graph, op, op.inputs[1], "perm", rank)
    perm = [p + rank if p < 0 else p for p in perm]
    if sorted(perm) != list(range(rank)):
        raise op_error(graph, op, f"perm {perm} is not a permutation of {rank} axes")
    check_shape(graph, op, out, [inp.shape[p] for p in perm])
    strides = row_strides(inp.shape)
    return Walk(0, [(inp.shape[p], strides[p]) for p in perm])


OP = strided_op(
    "TRANSPOSE",
    ("int8", "float32"),
    walk,
    "up to 5-D as TFLM, constant perm; folds constant data",
    inputs=(2, 2),
)
