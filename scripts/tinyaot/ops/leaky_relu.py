"""LEAKY_RELU: int8 as a table (one multiplier each side of zero), and float32."""

from __future__ import annotations

import numpy as np

from .. import quant
from ..fixedpoint import mbqm
from ..ir import DType, Graph, Op
from ..lowering import KernelCall, OpDef, elementwise_io, op_error, require_quant
from .lut_common import lut8
from .unary_common import f32_call


def lower(graph: Graph, op: Op) -> KernelCall:
    dtype, inp, out, _ = elementwise_io(graph, op)
    alpha = op.options.get("Alpha")
    if not isinstance(alpha, float):
        raise op_error(graph, op, "the Alpha option is missing")
    if dtype == DType.FLOAT32:
        return f32_call(inp, out, "leaky_relu", {"alpha": quant.f32(alpha)})
    require_quant(graph, op, [inp.index, out.index])
    # CalculateOpDataLeakyRelu: both ratios in float, then widened to double.
    in_scale, out_scale = np.float32(inp.scale), np.float32(out.scale)
    alpha_mult, alpha_shift = quant.quantize_multiplier(
        float(in_scale * np.float32(alpha) / out_scale)
    )
    identity_mult, identity_shift = quant.quantize_multiplier(float(in_scale / out_scale))

    def table(v: int) -> int:
        x = v - inp.zero_point
        if x >= 0:
            return out.zero_point + mbqm(x, identity_mult, identity_shift)
        # TFLite negates a negative alpha's multiplier and the product back; both rounding
        # steps round halves away from zero, so that is the product with the multiplier.
        return out.zero_point + mbqm(x, alpha_mult, alpha_shift)

    return lut8(graph, op, table)


OP = OpDef("LEAKY_RELU", ("int8", "float32"), lower, "int8 as a 256-byte table")
