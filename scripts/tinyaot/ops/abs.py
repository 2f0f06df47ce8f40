"""ABS: int8 as a table of the requantised magnitudes, and float32."""

from __future__ import annotations

import numpy as np

from .. import quant
from ..fixedpoint import mbqm
from ..ir import DType, Graph, Op
from ..lowering import KernelCall, OpDef, elementwise_io, require_quant
from .lut_common import lut8
from .unary_common import f32_call


def lower(graph: Graph, op: Op) -> KernelCall:
    dtype, inp, out, _ = elementwise_io(graph, op)
    if dtype == DType.FLOAT32:
        return f32_call(inp, out, "abs")
    require_quant(graph, op, [inp.index, out.index])
    in_scale, out_scale = np.float32(inp.scale), np.float32(out.scale)
    # PrepareAbsRsqrt rescales only when the two float scales differ.
    if in_scale == out_scale:
        return lut8(graph, op, lambda v: abs(v - inp.zero_point) + out.zero_point)
    mult, shift = quant.quantize_multiplier(float(in_scale / out_scale))
    return lut8(graph, op, lambda v: mbqm(abs(v - inp.zero_point), mult, shift) + out.zero_point)


OP = OpDef("ABS", ("int8", "float32"), lower, "int8 as a 256-byte table")
