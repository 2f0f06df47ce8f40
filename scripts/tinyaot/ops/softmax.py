"""SOFTMAX over the last dimension: int8 (output scale 1/256, zero point -128), int8 to int16
(output scale 1/65536, zero point -32768), int16 (zero points 0, output scale 1/32768) and
float32."""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from .. import inplace, quant
from ..fixedpoint import srdhm, wrap32
from ..ir import DType, Graph, Op
from ..lowering import (
    ConstArray,
    KernelCall,
    OpDef,
    TensorArg,
    op_error,
    require_quant,
)
from .unary_common import exp_on_negative_values

SCALED_DIFF_INTEGER_BITS = 5
LUT16_STEPS = 512
# TFLite Micro's int16 exp table covers [-10, 0]: the input differences are scaled to it.
EXP_RANGE = 10.0


def lut16(
    input_scale: np.float32,
    input_zero_point: int,
    output_scale: np.float32,
    fn: Callable[[np.float32], np.float32],
) -> np.ndarray:
    """TFLite's LUTPopulate<int16_t> (output zero point 0): 513 entries for LUTLookup's
    interpolation, each sample biased by half the interpolation's error at the midpoint.

    Every step is a float32 operation in the interpreter's order, so the table is the one its
    Prepare fills, bit for bit.
    """
    f = np.float32
    lo, hi = -32768, 32767
    input_min = input_scale * f(lo - input_zero_point)
    input_max = input_scale * f(hi - input_zero_point)
    output_min = output_scale * f(lo)
    output_max = output_scale * f(hi)
    step = (input_max - input_min) / f(LUT16_STEPS)
    half_step = step / f(2)
    inv = f(65536) / (output_max - output_min)

    def rnd(x: np.float32) -> np.float32:
        return f(quant.round_half_away(float(x)))

    def clamp(x: np.float32) -> int:
        return int(min(max(x, f(lo)), f(hi)))

    table = []
    for i in range(LUT16_STEPS):
        val = fn(input_min + f(i) * step)
        val_mid = fn(input_min + f(i) * step + half_step)
        val_next = fn(input_min + f(i + 1) * step)
        sample = rnd(val * inv)
        mid_interp = rnd((val_next * inv + rnd(val * inv)) / f(2))
        bias = rnd((mid_interp - rnd(val_mid * inv)) / f(2))
        table.append(clamp(sample - bias))
    table.append(clamp(rnd(fn(input_max) * inv)))
    return np.array(table, np.int16)


def expf(x: np.float32) -> np.float32:
    """std::exp on a float: the exact value rounded once to float32."""
    return np.float32(math.exp(float(x)))


def softmax_luts() -> tuple[np.ndarray, np.ndarray]:
    """The exp table on [-10, 0] and the 1/(1+x) table on [0, 1] of TFLite Micro's Prepare."""
    f = np.float32
    width = f(65535)
    exp_lut = lut16(f(EXP_RANGE) / width, 32767, f(2) / width, expf)
    recip_lut = lut16(f(1) / width, -32768, f(2) / width, lambda v: f(1) / (f(1) + v))
    return exp_lut, recip_lut


def exp_table(mult: int, left_shift: int, diff_min: int, exps: int) -> ConstArray | None:
    """The Q0.31 exp of every difference to the row maximum that counts, 0 down to diff_min
    or -255, as the int8 kernel computes it; None where the op computes fewer exps (two per
    element) than the table has entries, so that a table is only flash spent where it saves
    more than one exp (about 130 Cortex-M3 instructions each) per entry."""
    count = min(-diff_min, 255) + 1
    if exps < count:
        return None
    table = [
        exp_on_negative_values(srdhm(wrap32(-k << left_shift), mult), SCALED_DIFF_INTEGER_BITS)
        for k in range(count)
    ]
    return ConstArray("int32_t", np.array(table, np.int32))


def lower_int16(graph: Graph, op: Op, beta: float, params: dict, args: list) -> KernelCall:
    inp, out = graph.tensor(op.inputs[0]), graph.tensor(op.outputs[0])
    if inp.zero_point != 0:
        raise op_error(graph, op, "int16 input must have zero point 0", inp.index)
    if out.zero_point != 0 or abs(quant.f32(out.scale) - 1.0 / 32768) > 0.001 / 32768:
        raise op_error(
            graph, op, "int16 output must have scale 1/32768 and zero point 0", out.index
        )
    # The input difference scaled so that [-65535, 0] spans the table's [-10, 0].
    mult, shift = quant.quantize_multiplier(
        float(quant.f32(inp.scale)) * float(quant.f32(beta)) / (EXP_RANGE / 65535.0)
    )
    exp_lut, recip_lut = softmax_luts()
    params = {
        **params,
        "input_multiplier": mult,
        "input_left_shift": shift,
        "exp_lut": ConstArray("int16_t", exp_lut),
        "recip_lut": ConstArray("int16_t", recip_lut),
    }
    return KernelCall(
        "tinyaot_softmax_s16",
        "tinyaot/softmax.h",
        "struct tinyaot_softmax_s16_params",
        params,
        args,
        inplace=inplace.unary(inp, out),
    )


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
    if dtype == DType.INT16:
        return lower_int16(graph, op, beta, {"rows": rows, "depth": depth}, args)
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
    diff_min = -math.floor(radius)
    params = {
        "rows": rows,
        "depth": depth,
        "input_multiplier": mult,
        "input_left_shift": left_shift,
        "diff_min": diff_min,
        "exp_table": exp_table(mult, left_shift, diff_min, 2 * rows * depth),
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
    ("int8", "int16", "float32"),
    lower,
    "last axis; int8 output scale 1/256, zero point -128; int16 output from int8 (scale 1/65536, "
    "zero point -32768); int16 zero points 0, output scale 1/32768",
    converts=(("int8", "int8"), ("int8", "int16"), ("int16", "int16"), ("float32", "float32")),
)
