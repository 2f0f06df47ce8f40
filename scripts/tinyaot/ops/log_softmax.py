"""LOG_SOFTMAX over the last dimension: int8 (output scale 16/256, zero point 127) and
float32.

The int8 kernel follows TFLM's LogSoftmaxQuantized: exps of the scaled differences summed
in Q12, gemmlowp's fixed-point log of the sum, and the difference minus that log rounded
to the output; the multipliers are PreprocessLogSoftmaxScalingExp's.
"""

from __future__ import annotations

import math

from .. import inplace, quant
from ..ir import DType, Graph, Op
from ..lowering import KernelCall, OpDef, elementwise_io, op_error, require_quant

SCALED_DIFF_INTEGER_BITS = 5
OUTPUT_SCALE, OUTPUT_ZERO_POINT = 16.0 / 256, 127


def scaling(graph: Graph, op: Op, input_scale: float) -> dict[str, int]:
    """PreprocessLogSoftmaxScalingExp with beta 1, and CalculateInputRadius."""
    real = min(float(input_scale) * (1 << (31 - SCALED_DIFF_INTEGER_BITS)), (1 << 31) - 1.0)
    mult, left_shift = quant.quantize_multiplier(real)
    if left_shift < 1:
        # TFLM's reverse divisor, 2^(31 - left_shift) in an int, would overflow.
        raise op_error(
            graph, op, f"input scale {input_scale} is too small for the int8 LOG_SOFTMAX"
        )
    divisor, divisor_shift = quant.quantize_multiplier((1 << (31 - left_shift)) / float(mult))
    radius = (
        ((1 << SCALED_DIFF_INTEGER_BITS) - 1)
        * (1 << (31 - SCALED_DIFF_INTEGER_BITS))
        / (1 << left_shift)
    )
    return {
        "input_multiplier": mult,
        "input_left_shift": left_shift,
        "reverse_divisor": divisor,
        "reverse_shift": divisor_shift,
        "diff_min": -math.floor(radius),
    }


def lower(graph: Graph, op: Op) -> KernelCall:
    dtype, inp, out, args = elementwise_io(graph, op)
    if inp.shape != out.shape or not inp.shape:
        raise op_error(graph, op, "output shape differs from input shape", out.index)
    depth = inp.shape[-1]
    params: dict[str, int] = {"rows": inp.num_elements // depth, "depth": depth}
    kind = "f32"
    if dtype == DType.INT8:
        require_quant(graph, op, [inp.index, out.index])
        if (quant.f32(out.scale), out.zero_point) != (OUTPUT_SCALE, OUTPUT_ZERO_POINT):
            raise op_error(
                graph, op, "int8 output must have scale 16/256 and zero point 127", out.index
            )
        params.update(scaling(graph, op, inp.scale))
        kind = "s8"
    return KernelCall(
        f"tinyaot_log_softmax_{kind}",
        "tinyaot/log_softmax.h",
        f"struct tinyaot_log_softmax_{kind}_params",
        params,
        args,
        # Each row is read whole before any of it is written.
        inplace=inplace.unary(inp, out),
    )


OP = OpDef(
    "LOG_SOFTMAX",
    ("int8", "float32"),
    lower,
    "last axis; int8 output scale 16/256, zero point 127",
)
