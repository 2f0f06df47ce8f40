"""REVERSE_V2: a strided walk with negative strides on the reversed axes (tinyaot_copy).
TFLM takes only neighbouring axes; so do we."""

from __future__ import annotations

from ..ir import DType, Graph, Op
from ..lowering import ANY_DTYPE, op_error
from .movement_common import Walk, axis_of, check_shape, int_vector, row_strides, strided_op


def walk(graph: Graph, op: Op) -> Walk:
    inp, out = graph.tensor(op.inputs[0]), graph.tensor(op.outputs[0])
    if graph.tensor(op.inputs[1]).dtype != DType.INT32:
        raise op_error(graph, op, "the axes must be int32 (TFLM reads int32)", op.inputs[1])
    rank = len(inp.shape)
    axes = sorted(axis_of(graph, op, a, rank) for a in int_vector(graph, op, op.inputs[1], "axes"))
    if not axes or axes != list(range(axes[0], axes[0] + len(axes))):
        raise op_error(
            graph, op, f"axes {axes} are not supported; supported: neighbouring axes, as TFLM"
        )
    check_shape(graph, op, out, list(inp.shape))
    strides = row_strides(inp.shape)
    offset = sum((inp.shape[a] - 1) * strides[a] for a in axes)
    dims = [(n, -strides[d] if d in axes else strides[d]) for d, n in enumerate(inp.shape)]
    return Walk(offset, dims)


OP = strided_op(
    "REVERSE_V2",
    ANY_DTYPE,
    walk,
    "constant neighbouring axes, as TFLM; folds constant data",
    inputs=(2, 2),
)
