"""MEAN over constant axes: int8, int16 and float32, any axes of a tensor of rank <= 4 once
merged.

TFLM computes every int8 and int16 MEAN with QuantizedMeanOrSum (there is no separate 4-D
path any more): an int32 sum, minus zero point times count, then one
MultiplyByQuantizedMultiplier whose multiplier has 1/count folded in. The float
path sums in input order and divides by the count.
"""

from __future__ import annotations

import math

from .. import quant
from ..ir import DType, Graph, Op
from ..lowering import (
    KernelCall,
    OpDef,
    TensorArg,
    op_error,
    require_const,
    require_quant,
)

MAX_GROUPS = 4  # dims of struct tinyaot_mean_shape


def mean_multiplier(in_scale: float, out_scale: float, count: int) -> tuple[int, int]:
    """PrepareMeanOrSumHelper's multiplier, then QuantizedMeanOrSum's 1/count adjustment."""
    multiplier, shift = quant.quantize_multiplier(float(in_scale) / float(out_scale))
    # 63 - CountLeadingZeros(count) is floor(log2(count)); the clamps keep the shift
    # legal for MultiplyByQuantizedMultiplier. The int64 division truncates, and
    # both operands are non-negative.
    extra = min(count.bit_length() - 1, 32, 31 + shift)
    return (multiplier << extra) // count, shift - extra


def wrap_int32(x: int) -> int:
    x &= 0xFFFFFFFF
    return x - (1 << 32) if x >= 1 << 31 else x


def mean_shape(graph: Graph, op: Op, shape: tuple[int, ...], axes: set[int]) -> dict:
    """struct tinyaot_mean_shape: size-1 dims dropped, neighbours of one kind merged."""
    groups: list[list[int]] = []  # [size, reduced]
    for d, size in enumerate(shape):
        if size == 1:
            continue
        reduced = int(d in axes)
        if groups and groups[-1][1] == reduced:
            groups[-1][0] *= size
        else:
            groups.append([size, reduced])
    if len(groups) > MAX_GROUPS:
        raise op_error(
            graph,
            op,
            f"axes {sorted(axes)} split shape {list(shape)} into {len(groups)} runs of kept and "
            f"reduced dims; at most {MAX_GROUPS} are supported",
        )
    groups = [[1, 0]] * (MAX_GROUPS - len(groups)) + groups
    strides, step = [0] * MAX_GROUPS, 1
    for i in range(MAX_GROUPS - 1, -1, -1):
        strides[i] = step
        step *= groups[i][0]
    return {
        "out": [1 if r else size for size, r in groups],
        "red": [size if r else 1 for size, r in groups],
        "stride": strides,
    }


def lower(graph: Graph, op: Op) -> KernelCall:
    dtype = graph.tensor(op.inputs[0]).dtype
    inp, out = graph.tensor(op.inputs[0]), graph.tensor(op.outputs[0])
    axis = require_const(graph, op, op.inputs[1], "axis")
    if axis.dtype != DType.INT32:
        raise op_error(graph, op, f"axis must be int32, got {axis.dtype.short}", axis.index)
    assert axis.data is not None
    rank = len(inp.shape)
    axes: set[int] = set()
    for a in (int(v) for v in axis.data.reshape(-1)):
        if not -rank <= a < rank:
            raise op_error(graph, op, f"axis {a} is outside rank {rank}", axis.index)
        axes.add(a + rank if a < 0 else a)
    keep_dims = bool(op.options.get("KeepDims", False))
    if keep_dims:
        expected = [1 if d in axes else s for d, s in enumerate(inp.shape)]
    else:
        expected = [s for d, s in enumerate(inp.shape) if d not in axes]
    if list(out.shape) != expected:
        raise op_error(
            graph,
            op,
            f"output shape {list(out.shape)} should be {expected} for input "
            f"{list(inp.shape)}, axes {sorted(axes)}, keep_dims {keep_dims}",
            out.index,
        )
    count = math.prod(inp.shape[d] for d in axes)
    shape = mean_shape(graph, op, inp.shape, axes)
    args = [TensorArg(inp.index), TensorArg(out.index, writable=True)]
    if dtype == DType.FLOAT32:
        return KernelCall(
            "tinyaot_mean_f32",
            "tinyaot/mean.h",
            "struct tinyaot_mean_f32_params",
            {"s": shape, "count": float(count)},
            args,
        )
    require_quant(graph, op, [inp.index, out.index])
    multiplier, shift = mean_multiplier(inp.scale, out.scale, count)
    params = {
        "s": shape,
        "sum_offset": wrap_int32(-inp.zero_point * count),
        "multiplier": multiplier,
        "shift": shift,
        "output_offset": out.zero_point,
    }
    function = "tinyaot_mean_s16" if dtype == DType.INT16 else "tinyaot_mean_s8"
    return KernelCall(function, "tinyaot/mean.h", "struct tinyaot_mean_s8_params", params, args)


OP = OpDef(
    "MEAN",
    ("int8", "int16", "float32"),
    lower,
    "constant axes, keep_dims either way; int8 and int16 rescale to the output's quantisation",
    inputs=(2, 2),
)
