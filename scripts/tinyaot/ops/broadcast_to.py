"""BROADCAST_TO up to 5-D: a strided walk with stride 0 on the broadcast dims (tinyaot_copy)."""

from __future__ import annotations

from ..ir import Graph, Op
from ..lowering import ANY_DTYPE, op_error
from .movement_common import Walk, check_shape, int_vector, row_strides, strided_op

MAX_RANK = 5  # TFLM's kMaxDims for BROADCAST_TO


def walk(graph: Graph, op: Op) -> Walk:
    inp, out = graph.tensor(op.inputs[0]), graph.tensor(op.outputs[0])
    shape = int_vector(graph, op, op.inputs[1], "shape")
    rank = len(shape)
    if not len(inp.shape) <= rank <= MAX_RANK:
        raise op_error(
            graph,
            op,
            f"input rank {len(inp.shape)} to rank {rank} is not supported (at most {MAX_RANK})",
        )
    check_shape(graph, op, out, shape)
    lead = rank - len(inp.shape)
    in_shape = [1] * lead + list(inp.shape)
    strides = row_strides(in_shape)
    dims = []
    for d, n in enumerate(shape):
        if in_shape[d] not in (1, n):
            raise op_error(graph, op, f"input {list(inp.shape)} does not broadcast to {shape}")
        dims.append((n, strides[d] if in_shape[d] == n else 0))
    return Walk(0, dims)


OP = strided_op(
    "BROADCAST_TO",
    ANY_DTYPE,
    walk,
    "up to 5-D, constant shape; folds constant data",
    inputs=(2, 2),
)
