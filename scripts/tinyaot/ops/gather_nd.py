"""GATHER_ND with constant int32 indices: each index row names a contiguous slice, so the
compiler turns the rows into flat slice numbers for tinyaot_gather."""

from __future__ import annotations

import math

import numpy as np

from ..ir import DType, Graph, Op
from ..lowering import KernelCall, OpDef, int32_array, op_error, require_const
from .movement_common import check_shape, gather_call, row_strides

MAX_INDEX_DIMS = 5  # TFLM's MAX_INDICES_ND


def _slices(graph: Graph, op: Op) -> tuple[np.ndarray, int, int]:
    """(flat slice numbers, slices in the input, elements per slice)."""
    inp, out = graph.tensor(op.inputs[0]), graph.tensor(op.outputs[0])
    idx = require_const(graph, op, op.inputs[1], "indices")
    if idx.dtype != DType.INT32 or not idx.shape:
        raise op_error(graph, op, "the indices must be an int32 tensor of rank >= 1", idx.index)
    depth = idx.shape[-1]
    if not 1 <= depth <= min(len(inp.shape), MAX_INDEX_DIMS):
        raise op_error(
            graph,
            op,
            f"index rows of {depth} coordinates are not supported (1 to "
            f"{min(len(inp.shape), MAX_INDEX_DIMS)})",
            idx.index,
        )
    check_shape(graph, op, out, [*idx.shape[:-1], *inp.shape[depth:]])
    assert idx.data is not None
    coords = idx.data.reshape(-1, depth).astype(np.int64)
    bounds = np.asarray(inp.shape[:depth])
    if ((coords < 0) | (coords >= bounds)).any():
        raise op_error(graph, op, f"an index is outside the input shape {list(inp.shape)}")
    flat = coords @ np.asarray(row_strides(inp.shape[:depth]), dtype=np.int64)
    return flat, math.prod(inp.shape[:depth]), math.prod(inp.shape[depth:])


def fold(graph: Graph, op: Op) -> list[np.ndarray] | None:
    inp = graph.tensor(op.inputs[0])
    if inp.data is None or graph.tensor(op.inputs[1]).data is None:
        return None
    flat, count, row = _slices(graph, op)
    return [inp.data.reshape(count, row)[flat]]


def lower(graph: Graph, op: Op) -> KernelCall:
    flat, count, row = _slices(graph, op)
    inp, out = graph.tensor(op.inputs[0]), graph.tensor(op.outputs[0])
    return gather_call(graph, op, inp, out, (1, count, row), int32_array(list(flat)), len(flat))


OP = OpDef(
    "GATHER_ND",
    ("int8", "float32"),
    lower,
    "constant int32 indices; folds constant data",
    inputs=(2, 2),
    fold=fold,
)
