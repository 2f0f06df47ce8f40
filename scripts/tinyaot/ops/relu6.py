"""RELU6: int8 and float32."""

from __future__ import annotations

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
            "tinyaot_relu6_f32",
            "tinyaot/relu6.h",
            "struct tinyaot_relu6_f32_params",
            {"size": inp.num_elements},
            args,
            inplace=inplace.unary(inp, out),
        )
    require_quant(graph, op, [inp.index])
    # Relu6Prepare: 0 and 6 in the input's quantisation (FloatToQuantizedType). TFLite
    # Micro clamps with them and never looks at the output's scale or zero point, so
    # neither do we: that is what bit-exact with it means.
    six = quant.quantize_value(6.0, inp.scale, inp.zero_point)
    params = {
        "size": inp.num_elements,
        "zero": inp.zero_point,
        "six": min(max(six, quant.INT8_MIN), quant.INT8_MAX),
    }
    return KernelCall(
        "tinyaot_relu6_s8",
        "tinyaot/relu6.h",
        "struct tinyaot_relu6_s8_params",
        params,
        args,
        inplace=inplace.unary(inp, out),
    )


OP = OpDef(
    "RELU6",
    ("int8", "float32"),
    lower,
    "int8 clamps in the input's quantisation, as TFLite Micro (output scale unused)",
)
