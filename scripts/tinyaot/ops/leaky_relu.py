"""LEAKY_RELU: int8 as a table (one multiplier each side of zero), int16 with the same
multipliers in a kernel, and float32."""

from __future__ import annotations

import numpy as np

from .. import inplace, quant
from ..fixedpoint import mbqm
from ..ir import DType, Graph, Op
from ..lowering import KernelCall, OpDef, elementwise_io, op_error, require_quant
from .lut_common import lut8
from .unary_common import f32_call


def lower(graph: Graph, op: Op) -> KernelCall:
    dtype, inp, out, args = elementwise_io(graph, op)
    alpha = op.options.get("Alpha")
    if not isinstance(alpha, float):
        raise op_error(graph, op, "the Alpha option is missing")
    if dtype == DType.FLOAT32:
        return f32_call(inp, out, "leaky_relu", {"alpha": quant.f32(alpha)})
    require_quant(graph, op, [inp.index, out.index])
    # CalculateOpDataLeakyRelu: the installed TFLite Micro computes both ratios in double
    # from the float scales and alpha (older sources divided in float: seanet's leaky_relu
    # goldens 11, 18 and 19 come from those and differ in one value each).
    in_scale, out_scale = float(np.float32(inp.scale)), float(np.float32(out.scale))
    alpha_mult, alpha_shift = quant.quantize_multiplier(
        in_scale * float(np.float32(alpha)) / out_scale
    )
    identity_mult, identity_shift = quant.quantize_multiplier(in_scale / out_scale)
    if dtype == DType.INT16:
        params = {
            "size": inp.num_elements,
            "input_zero_point": inp.zero_point,
            "output_zero_point": out.zero_point,
            "alpha_multiplier": alpha_mult,
            "alpha_shift": alpha_shift,
            "identity_multiplier": identity_mult,
            "identity_shift": identity_shift,
        }
        return KernelCall(
            "tinyaot_leaky_relu_s16",
            "tinyaot/relu.h",
            "struct tinyaot_leaky_relu_s16_params",
            params,
            args,
            inplace=inplace.unary(inp, out),
        )

    def table(v: int) -> int:
        x = v - inp.zero_point
        if x >= 0:
            return out.zero_point + mbqm(x, identity_mult, identity_shift)
        # TFLite negates a negative alpha's multiplier and the product back: its doubling
        # high multiply rounds halves up, so the signed multiplier can round the other way.
        if alpha_mult < 0:
            return out.zero_point - mbqm(x, -alpha_mult, alpha_shift)
        return out.zero_point + mbqm(x, alpha_mult, alpha_shift)

    return lut8(graph, op, table)


OP = OpDef(
    "LEAKY_RELU",
    ("int8", "int16", "float32"),
    lower,
    "int8 as a 256-byte table; int16 requantised each side of zero",
)
