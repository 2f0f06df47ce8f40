"""ELU: int8 as the table TFLite Micro itself builds in float, and float32."""

from __future__ import annotations

import math

import numpy as np

from .. import quant
from ..ir import DType, Graph, Op
from ..lowering import KernelCall, OpDef, elementwise_io, require_quant
from .lut_common import lut8
from .unary_common import f32_call


def lower(graph: Graph, op: Op) -> KernelCall:
    dtype, inp, out, _ = elementwise_io(graph, op)
    if dtype == DType.FLOAT32:
        return f32_call(inp, out, "elu")
    require_quant(graph, op, [inp.index, out.index])
    in_scale = np.float32(inp.scale)
    inverse_scale = np.float32(1.0) / np.float32(out.scale)

    def table(v: int) -> int:
        # PopulateLookupTable, every step in float. std::exp is taken as the correctly
        # rounded exp (glibc's is within 0.502 ulp of it).
        x = in_scale * np.float32(v - inp.zero_point)
        y = np.float32(math.exp(float(x))) - np.float32(1.0) if x < 0 else x
        rescaled = quant.round_half_away(float(y * inverse_scale))
        return int(np.float32(rescaled) + np.float32(out.zero_point))

    return lut8(graph, op, table)


OP = OpDef("ELU", ("int8", "float32"), lower, "int8 as a 256-byte table")
