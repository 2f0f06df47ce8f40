"""PAD (and PADV2 through the same lowering): a constant border, int8, int16 and float32.

TFLM pads int8 with the output zero point (PAD) or with the raw constant value
(PADV2), and copies the input bytes unchanged: there is no requantisation. int16 pads
with 0 (PAD) or the raw constant value (PADV2), its quantisation unchecked, as TFLM.
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

MAX_DIMS = 5  # reference_ops::PadKernelMaxDimensionCount()


def pad_shape(dims: list[tuple[int, int, int]]) -> dict[str, list[int]]:
    """struct tinyaot_pad_shape from (input size, before, after) per dim.

    A dim without a border is folded into the dim before it (its elements become
    part of each of that dim's elements), which leaves the output bytes the same
    and makes the copied rows longer.
    """
    merged: list[list[int]] = []
    for size, before, after in dims:
        if merged and before == 0 and after == 0:
            for i in range(3):
                merged[-1][i] *= size
        else:
            merged.append([size, before, after])
    merged = [[1, 0, 0]] * (MAX_DIMS - len(merged)) + merged
    return {
        "in": [m[0] for m in merged],
        "out": [m[0] + m[1] + m[2] for m in merged],
        "before": [m[1] for m in merged],
    }


def lower(graph: Graph, op: Op) -> KernelCall:
    dtype = graph.tensor(op.inputs[0]).dtype
    inp, out = graph.tensor(op.inputs[0]), graph.tensor(op.outputs[0])
    rank = len(inp.shape)
    if rank > MAX_DIMS or len(out.shape) != rank:
        raise op_error(
            graph,
            op,
            f"input rank {rank} and output rank {len(out.shape)} must be equal and at most "
            f"{MAX_DIMS}",
            inp.index,
        )
    paddings = require_const(graph, op, op.inputs[1], "paddings")
    if paddings.dtype != DType.INT32 or paddings.num_elements != 2 * rank:
        raise op_error(
            graph,
            op,
            f"paddings must be {rank}x2 int32 values, got {paddings.dtype.short}"
            f"{list(paddings.shape)}",
            paddings.index,
        )
    assert paddings.data is not None
    pads = [int(v) for v in paddings.data.reshape(-1)]
    if min(pads) < 0:
        raise op_error(graph, op, f"negative paddings {pads} are not supported", paddings.index)
    dims = [(inp.shape[d], pads[2 * d], pads[2 * d + 1]) for d in range(rank)]
    expected = [size + before + after for size, before, after in dims]
    if list(out.shape) != expected:
        raise op_error(
            graph,
            op,
            f"output shape {list(out.shape)} is not input {list(inp.shape)} plus paddings "
            f"{expected}",
            out.index,
        )
    value = None
    if len(op.inputs) == 3 and op.inputs[2] is not None:
        value = require_const(graph, op, op.inputs[2], "pad value")
        if value.dtype != dtype or value.num_elements != 1:
            raise op_error(graph, op, f"the pad value must be one {dtype.short} value", value.index)
        assert value.data is not None
        given = value.data.reshape(-1)[0]
    args = [TensorArg(inp.index), TensorArg(out.index, writable=True)]
    shape = pad_shape(dims)
    if dtype == DType.FLOAT32:
        pad_value = 0.0 if value is None else float(given)
        if not math.isfinite(pad_value):
            raise op_error(graph, op, f"pad value {pad_value} is not supported (not finite)")
        return KernelCall(
            "tinyaot_pad_f32",
            "tinyaot/pad.h",
            "struct tinyaot_pad_f32_params",
            {"s": shape, "pad_value": pad_value},
            args,
        )
    if dtype == DType.INT16:
        return KernelCall(
            "tinyaot_pad_s16",
            "tinyaot/pad.h",
            "struct tinyaot_pad_s16_params",
            {"s": shape, "pad_value": 0 if value is None else int(given)},
            args,
        )
    require_quant(graph, op, [inp.index, out.index])
    if value is None:
        if not quant.INT8_MIN <= out.zero_point <= quant.INT8_MAX:
            raise op_error(
                graph, op, f"output zero point {out.zero_point} is outside int8", out.index
            )
        pad_value = out.zero_point
    else:
        if value.quant is None or (quant.f32(value.scale), value.zero_point) != (
            quant.f32(out.scale),
            out.zero_point,
        ):
            raise op_error(
                graph,
                op,
                "the int8 pad value must have the output's scale and zero point",
                value.index,
            )
        pad_value = int(given)
    return KernelCall(
        "tinyaot_pad_s8",
        "tinyaot/pad.h",
        "struct tinyaot_pad_s8_params",
        {"s": shape, "pad_value": pad_value},
        args,
    )


OP = OpDef(
    "PAD",
    ("int8", "int16", "float32"),
    lower,
    "up to 5-D, constant paddings; int8 pads with the output zero point, int16 with 0",
    inputs=(2, 3),
)
