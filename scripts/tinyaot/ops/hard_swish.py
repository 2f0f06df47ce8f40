"""HARD_SWISH: int8 as a table of TFLite's int16 fixed-point steps, and float32."""

from __future__ import annotations

import numpy as np

from ..ir import DType, Graph, Op
from ..lowering import KernelCall, OpDef, elementwise_io, op_error, require_quant
from .lut_common import lut8
from .unary_common import (
    f32_call,
    int16_multiplier,
    rdbpot16,
    sat_left_shift16,
    sdhm16,
    srdhm16,
    wrap16,
)


def lower(graph: Graph, op: Op) -> KernelCall:
    dtype, inp, out, _ = elementwise_io(graph, op)
    if dtype == DType.FLOAT32:
        return f32_call(inp, out, "hard_swish")
    require_quant(graph, op, [inp.index, out.index])
    # HardSwishPrepare: the scales in float, each multiplier cut down to a Q15.
    hires_input_scale = np.float32(1.0 / 128.0) * np.float32(inp.scale)
    reluish_scale = np.float32(3.0) / np.float32(32768.0)
    out_mult, out_exp = int16_multiplier(float(hires_input_scale / np.float32(out.scale)))
    if out_exp > 0:
        raise op_error(
            graph,
            op,
            "input scale / output scale must be below 128 (TFLite Micro's limit)",
            out.index,
        )
    relu_mult, relu_exp = int16_multiplier(float(hires_input_scale / reluish_scale))

    def table(v: int) -> int:
        hires = wrap16(wrap16(v - inp.zero_point) * 128)
        preshift_output = srdhm16(hires, out_mult)
        reluish = hires
        # Shift left by all but one bit first, so that only the last shift saturates.
        if relu_exp > 0:
            reluish = sat_left_shift16(reluish, relu_exp - 1)
        reluish = srdhm16(reluish, relu_mult)
        if relu_exp > 0:
            reluish = sat_left_shift16(reluish, 1)
        if relu_exp < 0:
            reluish = rdbpot16(reluish, -relu_exp)
        reluish = wrap16((reluish + (1 << 15)) >> 1)
        value = rdbpot16(sdhm16(reluish, preshift_output), -out_exp)
        return wrap16(value + out.zero_point)

    return lut8(graph, op, table)


OP = OpDef(
    "HARD_SWISH",
    ("int8", "float32"),
    lower,
    "int8 input scale below 128 times the output scale",
)
