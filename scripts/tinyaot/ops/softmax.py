"""SOFTMAX over the last dimension: int8 (output scale 1/256, zero point -128), int8 to int16
(output scale 1/65536, zero point -32768) and float32."""

from __future__ import annotations

import math

from .. import inplace, quant
from ..ir import DType, Graph, Op
from ..lowering import (
    KernelCall,
    OpDef,
    TensorArg,
    op_error,
    require_quant,
)

SCALED_DIFF_INTEGER_BITS = 5


def lower(graph: Graph, op: Op) -> KernelCall:
    dtype = graph.tensor(op.inputs[0]).dtype
    inp, out = graph.tensor(op.inputs[0]), graph.tensor(op.outputs[0])
    if inp.shape != out.shape:
        raise op_error(graph, op, "output shape differs from input shape", out.index)
    depth = inp.shape[-1]
    rows = inp.num_elements // depth
    beta = float(op.options.get("Beta", 1.0))
    args = [TensorArg(inp.index), TensorArg(out.index, writable=True)]
    # Each row is read whole before any of it is written, then element by element.
    overlap = inplace.unary(inp, out)
    if dtype == DType.FLOAT32:
        return KernelCall(
            "tinyaot_softmax_f32",
            "tinyaot/softmax.h",
            "struct tinyaot_softmax_f32_params",
            {"rows": rows, "depth": depth, "beta": beta},
            args,
            inplace=overlap,
        )
    require_quant(graph, op, [inp.index, out.index])
    wide = out.dtype == DType.INT16
    if wide:
        # TFLite Micro's Prepare: zero point -32768, scale within 0.1 % of 1/65536.
        if out.zero_point != -32768 or abs(quant.f32(out.scale) - 1.0 / 65536) > 0.001 / 65536:
            raise op_error(
                graph, op, "int16 output must have scale 1/65536 and zero point -32768", out.index
            )
    elif out.zero_point != -128 or quant.f32(out.scale) != 1.0 / 256:
        raise op_error(
            graph, op, "int8 output must have scale 1/256 and zero point -128", out.index
        )
    # PreprocessSoftmaxScaling and CalculateInputRadius, as TFLite prepares them.
    real = min(beta * float(inp.scale) * (1 << (31 - SCALED_DIFF_INTEGER_BITS)), (1 << 31) - 1.0)
    mult, left_shift = quant.quantize_multiplier(real)
    if left_shift < 0:
        raise op_error(
            graph, op, f"input scale {inp.scale} is too small for the int8 softmax", inp.index
        )
    radius = (
        ((1 << SCALED_DIFF_INTEGER_BITS) - 1)
        * (1 << (31 - SCALED_DIFF_INTEGER_BITS))
        / (1 << left_shift)
    )
    params = {
        "rows": rows,
        "depth": depth,
        "input_multiplier": mult,
        "input_left_shift": left_shift,
        "diff_min": -math.floor(radius),
    }
    return KernelCall(
        "tinyaot_softmax_s8_s16" if wide else "tinyaot_softmax_s8",
        "tinyaot/softmax.h",
        "struct tinyaot_softmax_s8_params",
        params,
        args,
        inplace=overlap,
    )


OP = OpDef(
    "SOFTMAX",
    ("int8", "float32"),
    lower,
    "last axis; int8 output scale 1/256, zero point -128; int16 output from int8 (scale 1/65536, "
    "zero point -32768)",
    converts=(("int8", "int8"), ("int8", "int16"), ("float32", "float32")),
)
