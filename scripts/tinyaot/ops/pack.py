"""PACK: the inputs stacked along a new axis (tinyaot_pack_*), or a fold when all are
constant, as the shape arithmetic of Keras models is."""

from __future__ import annotations

import math

import numpy as np

from ..ir import Graph, Op
from ..lowering import KernelCall, OpDef, TensorArg, TensorList, const_inputs, op_error
from .movement_common import HEADER, MAX_PARTS, SUFFIX, axis_of, parts_params, same_quant


def _axis(graph: Graph, op: Op) -> int:
    first = graph.tensor(op.inputs[0])
    for t in op.inputs:
        other = graph.tensor(t)
        if other.shape != first.shape or other.dtype != first.dtype:
            raise op_error(
                graph,
                op,
                f"input {other.dtype.short}{list(other.shape)} differs from the first input "
                f"{first.dtype.short}{list(first.shape)}",
                other.index,
            )
    axis = axis_of(graph, op, int(op.options.get("Axis", 0) or 0), len(first.shape) + 1)
    expected = list(first.shape)
    expected.insert(axis, len(op.inputs))
    out = graph.tensor(op.outputs[0])
    if list(out.shape) != expected:
        raise op_error(
            graph, op, f"output shape {list(out.shape)} is not the stacked {expected}", out.index
        )
    return axis


def fold(graph: Graph, op: Op) -> list[np.ndarray] | None:
    values = const_inputs(graph, op)
    if values is None:
        return None
    return [np.stack(values, axis=_axis(graph, op))]


def lower(graph: Graph, op: Op) -> KernelCall:
    axis = _axis(graph, op)
    first, out = graph.tensor(op.inputs[0]), graph.tensor(op.outputs[0])
    for t in op.inputs:
        same_quant(graph, op, graph.tensor(t), [out])
    inner = math.prod(first.shape[axis:]) * first.dtype.size
    return KernelCall(
        f"tinyaot_pack_{SUFFIX[first.dtype]}",
        HEADER,
        "struct tinyaot_parts_params",
        parts_params(math.prod(first.shape[:axis]), [inner] * len(op.inputs)),
        [TensorList(tuple(t for t in op.inputs if t is not None)), TensorArg(out.index, True)],
    )


OP = OpDef(
    "PACK",
    ("int8", "int16", "int32", "float32"),
    lower,
    "any axis; int8 inputs in the output's quantisation; folds constant inputs",
    inputs=(1, MAX_PARTS),
    fold=fold,
)
