"""LOGISTIC (sigmoid): int8 as a table of gemmlowp's fixed-point logistic (the interpreter
takes about 300 Cortex-M3 instructions an element to compute it), int16 through TFLite's
interpolated sigmoid table, and float32."""

from __future__ import annotations

from .. import inplace, quant
from ..fixedpoint import rdbpot
from ..ir import DType, Graph, Op
from ..lowering import (
    KernelCall,
    OpDef,
    elementwise_io,
    op_error,
    require_quant,
)
from .unary_common import Q4_INTEGER_BITS, fixed_logistic, int16_sigmoid_call, q4_table

# The output in steps of 1/256 (Q0.8) from -128.
OUTPUT_INTEGER_BITS = 8


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
    return q4_table(
        graph,
        op,
        inp,
        "logistic",
        lambda q: (
            rdbpot(fixed_logistic(q, Q4_INTEGER_BITS), 31 - OUTPUT_INTEGER_BITS) + quant.INT8_MIN
        ),
    )


OP = OpDef(
    "LOGISTIC",
    ("int8", "int16", "float32"),
    lower,
    "int8 output zero point -128 (scale 1/256); int16 zero points 0, output scale 1/32768",
)
