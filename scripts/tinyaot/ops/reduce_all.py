"""REDUCE_ALL: the logical AND of bool elements over constant axes; folds constant inputs."""

from __future__ import annotations

import dataclasses

import numpy as np

from ..ir import DType, Graph, Op
from ..lowering import KernelCall, OpDef, TensorArg, const_inputs
from .reduce_common import reduced_shape


def _layout(graph: Graph, op: Op) -> dict:
    """MEAN's checks of the axes and output shape, and its reduced layout: none of them depends
    on the dtype, but MEAN takes no bool, so it is asked about a float32 view of the input."""
    twin = dataclasses.replace(graph, tensors=list(graph.tensors))
    twin.tensors[op.inputs[0]] = dataclasses.replace(
        graph.tensor(op.inputs[0]), dtype=DType.FLOAT32
    )
    return reduced_shape(twin, op)


def fold(graph: Graph, op: Op) -> list[np.ndarray] | None:
    values = const_inputs(graph, op)
    if values is None:
        return None
    _layout(graph, op)
    x, axes = values
    out = graph.tensor(op.outputs[0])
    rank = x.ndim
    dims = tuple(sorted({int(a) % rank for a in axes.reshape(-1)}))
    return [np.all(x.astype(bool), axis=dims).reshape(out.shape)]


def lower(graph: Graph, op: Op) -> KernelCall:
    return KernelCall(
        "tinyaot_reduce_all",
        "tinyaot/reduce_all.h",
        "struct tinyaot_reduce_all_params",
        {"s": _layout(graph, op)},
        [TensorArg(op.inputs[0]), TensorArg(op.outputs[0], writable=True)],
    )


OP = OpDef(
    "REDUCE_ALL",
    ("bool",),
    lower,
    "constant axes, keep_dims either way; folds constant inputs",
    inputs=(2, 2),
    fold=fold,
)
