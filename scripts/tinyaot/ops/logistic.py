"""LOGISTIC (sigmoid): int8 through gemmlowp's fixed-point logistic, int16 through TFLite's
interpolated sigmoid table, and float32."""

from __future__ import annotations

from .. import inplace, quant
from ..ir import DType, Graph, Op
from ..lowering import (
    KernelCall,
    OpDef,
    elementwise_io,
    op_error,
    require_quant,
)
from .unary_common import input_q4_rescale, int16_sigmoid_call

INPUT_INTEGER_BITS = 4


def lower(graph: Graph, op: Op) -> KernelCall:
    dtype, inp, out, args = elementwise_io(graph, op)
    if dtype == DType.FLOAT32:
        return KernelCall(
            "tinyaot_logistic_f32",
            "tinyaot/logistic.h",
            "struct tinyaot_logistic_f32_params",
            {"size": inp.num_elements},
            args,
            inplace=inplace.unary(inp, out),
        )
    require_quant(graph, op, [inp.index, out.index])
    if dtype == DType.INT16:
        return int16_sigmoid_call(graph, op, "tinyaot_logistic_s16", (0,))
    # TFLite Micro checks only the output zero point; the kernel's output is in
    # steps of 1/256 whatever scale the tensor claims.
    if out.zero_point != quant.INT8_MIN:
        raise op_error(graph, op, "int8 output must have zero point -128", out.index)
    # CalculateArithmeticOpDataLogistic, as TANH's.
    multiplier, left_shift, radius = input_q4_rescale(
        graph, op, inp, INPUT_INTEGER_BITS, "logistic"
    )
    params = {
        "size": inp.num_elements,
        "input_zero_point": inp.zero_point,
        "input_range_radius": radius,
        "input_multiplier": multiplier,
        "input_left_shift": left_shift,
    }
    return KernelCall(
        "tinyaot_logistic_s8",
        "tinyaot/logistic.h",
        "struct tinyaot_logistic_s8_params",
        params,
        args,
        inplace=inplace.unary(inp, out),
    )


OP = OpDef(
    "LOGISTIC",
    ("int8", "int16", "float32"),
    lower,
    "int8 output zero point -128 (scale 1/256); int16 zero points 0, output scale 1/32768",
)
