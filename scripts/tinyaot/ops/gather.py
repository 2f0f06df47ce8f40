"""GATHER along any axis (batch_dims 0): int8 and float32 data, int32 indices, constant or
not (tinyaot_gather); folds when both are constant."""

from __future__ import annotations

import math

import numpy as np

from ..ir import DType, Graph, Op
from ..lowering import KernelCall, OpDef, TensorArg, op_error
from .movement_common import axis_of, check_shape, gather_call


def _axis(graph: Graph, op: Op) -> int:
    inp, idx = graph.tensor(op.inputs[0]), graph.tensor(op.inputs[1])
    out = graph.tensor(op.outputs[0])
    if idx.dtype != DType.INT32:
        raise op_error(graph, op, f"{idx.dtype.short} indices are not supported (int32)", idx.index)
    if op.options.get("BatchDims", 0):
        raise op_error(graph, op, f"batch_dims {op.options['BatchDims']} is not supported (0)")
    axis = axis_of(graph, op, int(op.options.get("Axis", 0) or 0), len(inp.shape))
    check_shape(graph, op, out, [*inp.shape[:axis], *idx.shape, *inp.shape[axis + 1 :]])
    if idx.data is not None:
        bad = idx.data[(idx.data < 0) | (idx.data >= inp.shape[axis])]
        if bad.size:
            raise op_error(
                graph,
                op,
                f"index {int(bad[0])} is outside axis {axis} of size {inp.shape[axis]}",
                idx.index,
            )
    return axis


def fold(graph: Graph, op: Op) -> list[np.ndarray] | None:
    inp, idx = graph.tensor(op.inputs[0]), graph.tensor(op.inputs[1])
    if inp.data is None or idx.data is None:
        return None
    return [np.take(inp.data, idx.data, axis=_axis(graph, op))]


def lower(graph: Graph, op: Op) -> KernelCall:
    axis = _axis(graph, op)
    inp, idx = graph.tensor(op.inputs[0]), graph.tensor(op.inputs[1])
    rows = (
        math.prod(inp.shape[:axis]),
        inp.shape[axis],
        math.prod(inp.shape[axis + 1 :]),
    )
    out = graph.tensor(op.outputs[0])
    return gather_call(graph, op, inp, out, rows, TensorArg(idx.index), idx.num_elements)


OP = OpDef(
    "GATHER",
    ("int8", "float32"),
    lower,
    "any axis, batch_dims 0, int32 indices; a runtime index out of range gives zeros "
    "(TFLM does not check it)",
    inputs=(2, 2),
    fold=fold,
)
