"""What the data movement ops share: a strided walk over the input (tinyaot_copy), the parts
kernels (SPLIT, UNPACK, PACK), views, and folding when the data is constant.

A data op is described by a Walk: the output read in order is the input elements at
offset + sum(index_d * stride_d) over dims (count_d, stride_d), in elements. The same
description drives the C kernel and the compile-time fold, so both give the same bytes.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from .. import quant
from ..ir import DType, Graph, Op, Tensor
from ..lowering import (
    Alias,
    ConstArray,
    KernelCall,
    OpDef,
    TensorArg,
    TensorList,
    int32_array,
    op_error,
    require_const,
)

MAX_DIMS = 6  # TINYAOT_COPY_MAX_DIMS
HEADER = "tinyaot/movement.h"
# The parts kernels have no limit of their own; this only bounds the signature check.
MAX_PARTS = 1024

# Name suffix of the parts kernels, by dtype: those TFLM's SPLIT, UNPACK and PACK all take.
SUFFIX = {DType.INT8: "s8", DType.INT16: "i16", DType.INT32: "i32", DType.FLOAT32: "f32"}


@dataclass
class Walk:
    offset: int
    dims: list[tuple[int, int]]  # (count, input stride), elements, outermost first


def row_strides(shape: tuple[int, ...] | list[int]) -> list[int]:
    """Elements between neighbours along each dim of a row-major tensor."""
    strides = [1] * len(shape)
    for d in range(len(shape) - 2, -1, -1):
        strides[d] = strides[d + 1] * shape[d + 1]
    return strides


def simplify(dims: list[tuple[int, int]]) -> tuple[int, list[tuple[int, int]]]:
    """(run, dims): size-1 dims dropped, neighbours that step evenly merged, and the
    contiguous tail taken out as the run of elements copied at once."""
    merged: list[tuple[int, int]] = []
    for count, stride in dims:
        if count == 1:
            continue
        if merged and merged[-1][1] == stride * count:
            merged[-1] = (merged[-1][0] * count, stride)
        else:
            merged.append((count, stride))
    run = 1
    while merged and merged[-1][1] == run:
        run *= merged.pop()[0]
    return run, merged


def same_quant(graph: Graph, op: Op, inp: Tensor, outs: list[Tensor]) -> None:
    """Quantised tensors move as raw bytes: every output must share the input's scale and
    zero point, or the copy would change their values."""
    if inp.quant is None:
        return
    want = (quant.f32(inp.scale), inp.zero_point)
    for out in outs:
        got = (quant.f32(out.scale), out.zero_point) if out.quant else None
        if got != want:
            raise op_error(
                graph,
                op,
                f"the output must have the input's scale {inp.scale} and zero point "
                f"{inp.zero_point} (bytes are copied, not requantised)",
                out.index,
            )


def int_vector(
    graph: Graph, op: Op, index: int | None, what: str, n: int | None = None
) -> list[int]:
    """A constant int32 or int64 operand (begin, perm, multiples, ...) as Python ints."""
    t = require_const(graph, op, index, what)
    if t.dtype not in (DType.INT32, DType.INT64) or (n is not None and t.num_elements != n):
        count = "" if n is None else f"{n} "
        raise op_error(
            graph,
            op,
            f"the {what} must be {count}int32 or int64 values, not {t.dtype.short}{list(t.shape)}",
            t.index,
        )
    assert t.data is not None
    return [int(v) for v in t.data.reshape(-1)]


def axis_of(graph: Graph, op: Op, axis: int, rank: int) -> int:
    """A possibly negative axis, checked against the rank."""
    if not -rank <= axis < rank:
        raise op_error(graph, op, f"axis {axis} is outside rank {rank}")
    return axis + rank if axis < 0 else axis


def check_rank(graph: Graph, op: Op, t: Tensor, max_rank: int) -> int:
    rank = len(t.shape)
    if not 1 <= rank <= max_rank:
        raise op_error(graph, op, f"input rank {rank} is not supported (1 to {max_rank})", t.index)
    return rank


def check_shape(graph: Graph, op: Op, out: Tensor, expected: list[int]) -> None:
    if list(out.shape) != list(expected):
        raise op_error(
            graph,
            op,
            f"output shape {list(out.shape)} differs from the computed {list(expected)}",
            out.index,
        )


def walk_values(data: np.ndarray, walk: Walk) -> np.ndarray:
    """The walk done in NumPy: what the kernel would write, flat."""
    index = np.full((), walk.offset, dtype=np.int64)
    for count, stride in walk.dims:
        index = index[..., None] + np.arange(count, dtype=np.int64) * stride
    return data.reshape(-1)[index.reshape(-1)]


def copy_call(graph: Graph, op: Op, inp: Tensor, out: Tensor, walk: Walk) -> KernelCall:
    run, dims = simplify(walk.dims)
    if len(dims) > MAX_DIMS:
        raise op_error(
            graph,
            op,
            f"the copy needs {len(dims)} strided dims after merging; at most {MAX_DIMS} "
            "are supported",
            out.index,
        )
    dims = [(1, 0)] * (MAX_DIMS - len(dims)) + dims
    size = inp.dtype.size
    return KernelCall(
        "tinyaot_copy",
        HEADER,
        "struct tinyaot_copy_params",
        {
            "offset": walk.offset * size,
            "run": run * size,
            "count": [c for c, _ in dims],
            "stride": [s * size for _, s in dims],
        },
        [TensorArg(inp.index), TensorArg(out.index, writable=True)],
    )


WalkFn = Callable[[Graph, Op], Walk]


def strided_op(
    name: str,
    dtypes: tuple[str, ...],
    walk: WalkFn,
    notes: str,
    data: int = 0,
    inputs: tuple[int, int] = (1, 1),
) -> OpDef:
    """An op that is one walk over input `data` (whose dtype `dtypes` lists): tinyaot_copy,
    or a fold when that input is constant. `walk` checks the operands and the output shape."""

    def lower(graph: Graph, op: Op) -> KernelCall:
        inp, out = graph.tensor(op.inputs[data]), graph.tensor(op.outputs[0])
        w = walk(graph, op)
        same_quant(graph, op, inp, [out])
        return copy_call(graph, op, inp, out, w)

    def fold(graph: Graph, op: Op) -> list[np.ndarray] | None:
        inp = graph.tensor(op.inputs[data])
        if inp.data is None:
            return None
        return [walk_values(inp.data, walk(graph, op))]

    return OpDef(name, dtypes, lower, notes, inputs=inputs, fold=fold, data_input=data)


def view_op(
    name: str,
    dtypes: tuple[str, ...],
    shape: Callable[[Graph, Op], list[int]],
    notes: str,
    inputs: tuple[int, int] = (1, 1),
) -> OpDef:
    """An op whose output is its input's bytes under the shape `shape` computes (SQUEEZE,
    EXPAND_DIMS): an Alias, like RESHAPE."""

    def lower(graph: Graph, op: Op) -> Alias:
        inp, out = graph.tensor(op.inputs[0]), graph.tensor(op.outputs[0])
        check_shape(graph, op, out, shape(graph, op))
        same_quant(graph, op, inp, [out])
        return Alias(inp.index)

    return OpDef(name, dtypes, lower, notes, inputs=inputs)


def parts_params(outer: int, part_bytes: list[int]) -> dict[str, object]:
    """struct tinyaot_parts_params for `outer` blocks made of the parts side by side."""
    return {
        "outer": outer,
        "block": sum(part_bytes),
        "parts_count": len(part_bytes),
        "part_bytes": int32_array(part_bytes),
    }


def split_call(
    graph: Graph, op: Op, inp: Tensor, outs: list[Tensor], axis: int, sizes: list[int]
) -> KernelCall:
    """Input split along `axis` into outputs of `sizes` elements there (SPLIT, UNPACK)."""
    same_quant(graph, op, inp, outs)
    inner = math.prod(inp.shape[axis + 1 :]) * inp.dtype.size
    params = parts_params(math.prod(inp.shape[:axis]), [n * inner for n in sizes])
    return KernelCall(
        f"tinyaot_split_{SUFFIX[inp.dtype]}",
        HEADER,
        "struct tinyaot_parts_params",
        params,
        [TensorArg(inp.index), TensorList(tuple(t.index for t in outs))],
    )


AxisSizes = Callable[[Graph, Op], tuple[int, list[int]]]


def split_op(
    name: str,
    dtypes: tuple[str, ...],
    axis_sizes: AxisSizes,
    notes: str,
    data: int = 0,
    keep_axis: bool = True,
    inputs: tuple[int, int] = (1, 1),
) -> OpDef:
    """An op that cuts input `data` along an axis into its outputs (SPLIT, SPLIT_V, UNPACK):
    `axis_sizes` checks the operands and gives the axis and each output's size along it."""

    def fold(graph: Graph, op: Op) -> list[np.ndarray] | None:
        values = graph.tensor(op.inputs[data]).data
        if values is None:
            return None
        axis, sizes = axis_sizes(graph, op)
        parts = np.split(values, np.cumsum(sizes)[:-1], axis=axis)
        return parts if keep_axis else [np.squeeze(p, axis) for p in parts]

    def lower(graph: Graph, op: Op) -> KernelCall:
        inp = graph.tensor(op.inputs[data])
        outs = [graph.tensor(t) for t in op.outputs]
        axis, sizes = axis_sizes(graph, op)
        return split_call(graph, op, inp, outs, axis, sizes)

    return OpDef(
        name,
        dtypes,
        lower,
        notes,
        inputs=inputs,
        outputs=(1, MAX_PARTS),
        fold=fold,
        data_input=data,
    )


def check_split_outputs(graph: Graph, op: Op, inp: Tensor, axis: int, keep_axis: bool) -> list[int]:
    """Each output's size along `axis`, after checking the outputs fit the input."""
    sizes = []
    for t in op.outputs:
        out = graph.tensors[t]
        shape = list(out.shape)
        if not keep_axis:
            shape.insert(axis, 1)
        expected = list(inp.shape)
        expected[axis] = shape[axis] if len(shape) == len(expected) else -1
        if shape != expected:
            raise op_error(
                graph,
                op,
                f"output shape {list(out.shape)} does not fit input {list(inp.shape)} split "
                f"along axis {axis}",
                t,
            )
        sizes.append(shape[axis])
    if sum(sizes) != inp.shape[axis]:
        raise op_error(
            graph,
            op,
            f"outputs add up to {sum(sizes)} along axis {axis}, the input has {inp.shape[axis]}",
        )
    return sizes


def gather_call(
    graph: Graph,
    op: Op,
    inp: Tensor,
    out: Tensor,
    rows: tuple[int, int, int],
    indices: TensorArg | ConstArray,
    count: int,
) -> KernelCall:
    """tinyaot_gather: `count` indices into each block of rows = (outer, axis size, row
    elements) of the input."""
    same_quant(graph, op, inp, [out])
    outer, axis_size, row = rows
    return KernelCall(
        "tinyaot_gather",
        HEADER,
        "struct tinyaot_gather_params",
        {"outer": outer, "axis_size": axis_size, "row": row * inp.dtype.size, "count": count},
        [TensorArg(inp.index), indices, TensorArg(out.index, writable=True)],
    )
