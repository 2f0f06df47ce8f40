"""RSQRT: int8 as a table of TFLite's fixed-point inverse square root, and float32."""

from __future__ import annotations

import numpy as np

from .. import quant
from ..fixedpoint import INT32_MAX, mbqm, rdbpot, srdhm, wrap32
from ..ir import DType, Graph, Op
from ..lowering import KernelCall, OpDef, elementwise_io, require_quant
from .lut_common import lut8
from .unary_common import f32_call, rescale

# RsqrtEvalQuantized keeps the intermediate 1/sqrt(x) this many bits up.
SHIFT = 20


def inv_sqrt_multiplier(x: int) -> tuple[int, int]:
    """GetInvSqrtQuantizedMultiplierExp with a reverse shift of -1: 1/sqrt(x) for x >= 2
    as a Q31 and a left shift, by five Newton-Raphson steps in Q3.28."""
    shift = 11
    while x >= 1 << 29:
        x //= 4
        shift += 1
    pairs = (32 - x.bit_length() - 1) // 2 - 1
    shift -= pairs
    x <<= 2 * pairs
    half_input = rdbpot(x >> 1, 1)
    half_three = (1 << 28) + (1 << 27)
    y = 1 << 28
    for _ in range(5):
        y3 = rescale(srdhm(srdhm(y, y), y), 9, 3)
        y = rescale(wrap32(srdhm(half_three, y) - srdhm(half_input, y3)), 6, 3)
    y = srdhm(y, 1518500250)
    if shift < 0:
        y, shift = wrap32(y << -shift), 0
    return y, -shift


def lower(graph: Graph, op: Op) -> KernelCall:
    dtype, inp, out, _ = elementwise_io(graph, op)
    if dtype == DType.FLOAT32:
        return f32_call(inp, out, "rsqrt")
    require_quant(graph, op, [inp.index, out.index])
    # SetRsqrtOutputMultiplier: sqrt and product in float, the reciprocal in double.
    product = np.sqrt(np.float32(inp.scale)) * np.float32(out.scale)
    mult, shift = quant.quantize_multiplier(1.0 / float(product))

    def table(v: int) -> int:
        x = v - inp.zero_point
        # Zero is the largest output; TFLite Micro fails the invoke below the zero point,
        # where this table gives the largest output as well.
        if x <= 0:
            return quant.INT8_MAX
        inv, inv_shift = (INT32_MAX, 0) if x == 1 else inv_sqrt_multiplier(x)
        return mbqm(mbqm(1, inv, inv_shift + SHIFT), mult, shift - SHIFT) + out.zero_point

    return lut8(graph, op, table)


OP = OpDef(
    "RSQRT",
    ("int8", "float32"),
    lower,
    "int8 inputs below the zero point (TFLite Micro fails the invoke) give 127",
)
