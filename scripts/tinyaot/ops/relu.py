"""RELU: int8 (requantised to the output scale) and float32."""

from __future__ import annotations

import numpy as np

from .. import inplace, quant
from ..ir import DType, Graph, Op
from ..lowering import (
    KernelCall,
    OpDef,
    elementwise_io,
    require_quant,
)


def lower(graph: Graph, op: Op) -> KernelCall:
    dtype, inp, out, args = elementwise_io(graph, op)
    if dtype == DType.FLOAT32:
        return KernelCall(
            "tinyaot_relu_f32",
            "tinyaot/relu.h",
            "struct tinyaot_relu_f32_params",
            {"size": inp.num_elements},
            args,
            inplace=inplace.unary(inp, out),
        )
    require_quant(graph, op, [inp.index, out.index])
    # CalculateReluOpData divides the scales in float before widening to double.
    real = float(np.float32(inp.scale) / np.float32(out.scale))
    mult, shift = quant.quantize_multiplier(real)
    params = {
        "size": inp.num_elements,
        "input_zero_point": inp.zero_point,
        "output_zero_point": out.zero_point,
        "multiplier": mult,
        "shift": shift,
        "act_min": max(quant.INT8_MIN, quant.quantize_value(0.0, out.scale, out.zero_point)),
        "act_max": quant.INT8_MAX,
    }
    return KernelCall(
        "tinyaot_relu_s8",
        "tinyaot/relu.h",
        "struct tinyaot_relu_s8_params",
        params,
        args,
        inplace=inplace.unary(inp, out),
    )


OP = OpDef("RELU", ("int8", "float32"), lower, "int8 requantises to the output scale")
