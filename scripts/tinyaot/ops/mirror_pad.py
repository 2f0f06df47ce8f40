"""MIRROR_PAD (REFLECT and SYMMETRIC): a copy through one index table per dim
(tinyaot_copy_table), the tables computed as TFLM's GetInputDimension maps each output
index; folds constant data."""

from __future__ import annotations

import numpy as np

from ..ir import Graph, Op
from ..lowering import KernelCall, OpDef, TensorArg, int32_array, op_error
from .movement_common import (
    HEADER,
    MAX_DIMS,
    check_shape,
    int_vector,
    row_strides,
    same_quant,
)

MODES = {0: "REFLECT", 1: "SYMMETRIC"}  # tflite::MirrorPadMode


def _input_index(o: int, left: int, size: int, offset: int) -> int:
    """TFLM's GetInputDimension, min clamps included."""
    if o < left:
        original = left + offset - 1
        return original - min(o, original - offset)
    o -= left
    if o >= size:
        o -= size
        original = size - (1 + offset)
        return original - min(o, original)
    return o


def _tables(graph: Graph, op: Op) -> list[tuple[int, list[int] | None]]:
    """Per dim: (output size, input element offsets), None for an unpadded dim."""
    inp, out = graph.tensor(op.inputs[0]), graph.tensor(op.outputs[0])
    mode = op.options.get("Mode", 0)
    if mode not in MODES:
        raise op_error(graph, op, f"mode {mode} is not supported (REFLECT or SYMMETRIC)")
    offset = 1 if mode == 0 else 0  # REFLECT leaves the edge out
    rank = len(inp.shape)
    pads = int_vector(graph, op, op.inputs[1], "paddings", 2 * rank)
    if min(pads, default=0) < 0:
        raise op_error(graph, op, f"negative paddings {pads} are not supported")
    check_shape(
        graph, op, out, [n + pads[2 * d] + pads[2 * d + 1] for d, n in enumerate(inp.shape)]
    )
    strides = row_strides(inp.shape)
    tables: list[tuple[int, list[int] | None]] = []
    for d, size in enumerate(inp.shape):
        left, right = pads[2 * d], pads[2 * d + 1]
        if left == right == 0:
            tables.append((size, None))
            continue
        index = [_input_index(o, left, size, offset) for o in range(size + left + right)]
        if not all(0 <= i < size for i in index):
            raise op_error(
                graph,
                op,
                f"paddings {left}, {right} reach past axis {d} of size {size} in "
                f"{MODES[mode]} mode",
            )
        tables.append((len(index), [i * strides[d] for i in index]))
    return tables


def fold(graph: Graph, op: Op) -> list[np.ndarray] | None:
    inp = graph.tensor(op.inputs[0])
    if inp.data is None:
        return None
    strides = row_strides(inp.shape)
    index = np.zeros((), dtype=np.int64)
    for d, (count, table) in enumerate(_tables(graph, op)):
        offsets = np.arange(count) * strides[d] if table is None else np.asarray(table)
        index = index[..., None] + offsets
    return [inp.data.reshape(-1)[index]]


def lower(graph: Graph, op: Op) -> KernelCall:
    inp, out = graph.tensor(op.inputs[0]), graph.tensor(op.outputs[0])
    same_quant(graph, op, inp, [out])
    strides = row_strides(inp.shape)
    dims = [(c, t, s) for (c, t), s in zip(_tables(graph, op), strides, strict=True)]
    # Unpadded dims at the end are one contiguous run; unpadded neighbours are one dim.
    run = 1
    while dims and dims[-1][1] is None:
        run *= dims.pop()[0]
    merged: list[tuple[int, list[int] | None, int]] = []
    for count, table, stride in dims:
        if table is None and merged and merged[-1][1] is None:
            merged[-1] = (merged[-1][0] * count, None, stride)
        else:
            merged.append((count, table, stride))
    if len(merged) > MAX_DIMS:
        raise op_error(
            graph, op, f"{len(merged)} dims remain after merging; at most {MAX_DIMS} are supported"
        )
    merged = [(1, [0], 0)] * (MAX_DIMS - len(merged)) + merged
    size = inp.dtype.size
    offsets = []
    for count, table, stride in merged:
        offsets += [i * size for i in (table or [k * stride for k in range(count)])]
    return KernelCall(
        "tinyaot_copy_table",
        HEADER,
        "struct tinyaot_copy_table_params",
        {
            "run": run * size,
            "count": [c for c, _, _ in merged],
            "offsets": int32_array(offsets),
        },
        [TensorArg(inp.index), TensorArg(out.index, writable=True)],
    )


OP = OpDef(
    "MIRROR_PAD",
    ("int8", "float32"),
    lower,
    "REFLECT and SYMMETRIC, constant paddings; folds constant data",
    inputs=(2, 2),
    fold=fold,
)
