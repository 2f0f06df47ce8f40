"""What the element-wise unary ops share: the call of a kernel that walks the elements in
order (the float ops of crt unary.c, CAST, LOGICAL_NOT), the OpDef of a float-only op, the
fold of a constant input, and for the int8 tables LOGISTIC/TANH's input rescaling,
gemmlowp's fixed-point tanh on Python ints and the int16 steps of HARD_SWISH.

The table arithmetic follows the interpreter's integer types and rounding step by step: a
table entry is only exact if each intermediate is.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from .. import inplace, quant
from ..fixedpoint import INT32_MAX, INT32_MIN, mbqm, rdbpot, srdhm, wrap32
from ..ir import DType, Graph, Op, Tensor
from ..lowering import (
    Fold,
    KernelCall,
    OpDef,
    TensorArg,
    const_inputs,
    elementwise_io,
    op_error,
)
from .lut_common import lut8

F32_HEADER = "tinyaot/unary.h"


def size_call(
    inp: Tensor,
    out: Tensor,
    function: str,
    header: str,
    struct: str,
    extra: dict[str, float] | None = None,
) -> KernelCall:
    """A kernel that runs over the elements in order, with the count (and `extra`) as its
    params."""
    return KernelCall(
        function,
        header,
        struct,
        {"size": inp.num_elements, **(extra or {})},
        [TensorArg(inp.index), TensorArg(out.index, writable=True)],
        inplace=inplace.unary(inp, out),
    )


def f32_call(
    inp: Tensor, out: Tensor, name: str, extra: dict[str, float] | None = None
) -> KernelCall:
    """tinyaot_<name>_f32 from unary.h; ops with a parameter have their own struct."""
    struct = f"struct tinyaot_{name}_f32_params" if extra else "struct tinyaot_unary_f32_params"
    return size_call(inp, out, f"tinyaot_{name}_f32", F32_HEADER, struct, extra)


def float_only(kind: str) -> OpDef:
    """The OpDef of an op TFLite Micro runs on float32 only: tinyaot_<kind>_f32."""

    def lower(graph: Graph, op: Op) -> KernelCall:
        _, inp, out, _ = elementwise_io(graph, op)
        return f32_call(inp, out, kind.lower())

    return OpDef(kind, ("float32",), lower, "float32 only, as in TFLite Micro")


def fold_unary(fn: Callable[[np.ndarray, DType], np.ndarray]) -> Fold:
    """A fold computing fn(input, output dtype) when the input is constant."""

    def fold(graph: Graph, op: Op) -> list[np.ndarray] | None:
        values = const_inputs(graph, op)
        if values is None:
            return None
        return [fn(values[0], graph.tensors[op.outputs[0]].dtype)]

    return fold


def sat_shift_left(x: int, exponent: int) -> int:
    """gemmlowp's SaturatingRoundingMultiplyByPOT for a positive exponent, on int32."""
    threshold = (1 << (31 - exponent)) - 1
    if x > threshold:
        return INT32_MAX
    if x < -threshold:
        return INT32_MIN
    return x << exponent


def rescale(x: int, src_bits: int, dst_bits: int) -> int:
    """gemmlowp's Rescale between integer-bit counts of an int32 fixed-point value."""
    e = src_bits - dst_bits
    if e > 0:
        return sat_shift_left(x, e)
    return rdbpot(x, -e) if e < 0 else x


def rounding_half_sum(a: int, b: int) -> int:
    """gemmlowp's RoundingHalfSum on int32: (a + b +- 1) / 2 in int64, truncated."""
    return trunc_div(a + b + (1 if a + b >= 0 else -1), 2)


def exp_quarter(a: int) -> int:
    """exp(a) for a Q0.31 in [-1/4, 0): gemmlowp's Taylor expansion around -1/8."""
    constant_term, one_third = 1895147668, 715827883
    x = wrap32(a + (1 << 28))
    x2 = srdhm(x, x)
    x3 = srdhm(x2, x)
    x4 = srdhm(x2, x2)
    x4_over_4 = rdbpot(x4, 2)
    poly = rdbpot(wrap32(srdhm(wrap32(x4_over_4 + x3), one_third) + x2), 1)
    return wrap32(constant_term + srdhm(constant_term, wrap32(x + poly)))


# exp(-2^e) as Q0.31 for e = -2 .. 4: gemmlowp's barrel shifter over the input's bits.
EXP_MULTIPLIERS = (1672461947, 1302514674, 790015084, 290630308, 39332535, 720401, 242)


def exp_on_negative_values(a: int, int_bits: int) -> int:
    """exp(a) for a <= 0 in Q(int_bits), int_bits <= 5 (no clamp below -32): Q0.31."""
    frac_bits = 31 - int_bits
    quarter = 1 << (frac_bits - 2)
    a_mod_quarter_minus_quarter = (a & (quarter - 1)) - quarter
    result = exp_quarter(rescale(a_mod_quarter_minus_quarter, int_bits, 0))
    remainder = wrap32(a_mod_quarter_minus_quarter - a)
    for i, mult in enumerate(EXP_MULTIPLIERS):
        exponent = i - 2
        if int_bits > exponent and remainder & (1 << (frac_bits + exponent)):
            result = srdhm(result, mult)
    return INT32_MAX if a == 0 else result


def reciprocal_half(a: int) -> int:
    """1 / ((1 + a) / 2) in Q2.29 for a Q0.31 in (0, 1): gemmlowp's three Newton-Raphson steps
    from 48/17 - 32/17 d, shared by its one_over_one_plus_x and one_minus_x_over_one_plus_x."""
    half_denominator = rounding_half_sum(a, INT32_MAX)
    x = wrap32(1515870810 + srdhm(half_denominator, -1010580540))
    for _ in range(3):
        one_minus = wrap32((1 << 29) - srdhm(half_denominator, x))
        x = wrap32(x + rescale(srdhm(x, one_minus), 4, 2))
    return x


def one_minus_x_over_one_plus_x(a: int) -> int:
    """(1 - a) / (1 + a) for a Q0.31 in (0, 1)."""
    return rescale(wrap32(reciprocal_half(a) - (1 << 29)), 2, 0)


def one_over_one_plus_x(a: int) -> int:
    """1 / (1 + a) for a Q0.31 in (0, 1)."""
    return rescale(reciprocal_half(a), 1, 0)


def fixed_tanh(a: int, int_bits: int) -> int:
    """gemmlowp::tanh of a Q(int_bits) value: Q0.31, through exp(-2|a|)."""
    if a == 0:
        return 0
    t = one_minus_x_over_one_plus_x(exp_on_negative_values(-abs(a), int_bits + 1))
    return wrap32(-t) if a < 0 else t


def fixed_logistic(a: int, int_bits: int) -> int:
    """gemmlowp::logistic of a Q(int_bits) value: Q0.31, through exp(-|a|)."""
    if a == 0:
        return 1 << 30
    if_positive = one_over_one_plus_x(exp_on_negative_values(-abs(a), int_bits))
    return if_positive if a > 0 else INT32_MAX - if_positive


# LOGISTIC's and TANH's int8 input: Q4.27.
Q4_INTEGER_BITS = 4


def q4_table(graph: Graph, op: Op, inp: Tensor, what: str, fn: Callable[[int], int]) -> KernelCall:
    """int8 LOGISTIC or TANH as a table (lut_common.lut8), as TFLite Micro computes each input:
    saturated beyond the input radius, else fn of the input rescaled to Q4.27."""
    mult, left_shift, radius = input_q4_rescale(graph, op, inp, Q4_INTEGER_BITS, what)

    def table(v: int) -> int:
        x = v - inp.zero_point
        if x <= -radius:
            return quant.INT8_MIN
        if x >= radius:
            return quant.INT8_MAX
        return fn(mbqm(x, mult, left_shift))

    return lut8(graph, op, table)


def input_q4_rescale(
    graph: Graph, op: Op, inp: Tensor, int_bits: int, what: str
) -> tuple[int, int, int]:
    """LOGISTIC's and TANH's Prepare for int8: (multiplier, left shift, radius).

    The input scale times 2^(31 - int_bits) as a Q31 and an exponent from frexp (not
    QuantizeMultiplier), and CalculateInputRadius in double.
    """
    real = float(inp.scale) * float(1 << (31 - int_bits))
    q, left_shift = math.frexp(real)
    multiplier = quant.round_half_away(q * (1 << 31))
    if not 0 <= left_shift <= 62 or multiplier >= 1 << 31:
        raise op_error(
            graph, op, f"input scale {inp.scale} is out of range for the int8 {what}", inp.index
        )
    radius = math.floor(
        ((1 << int_bits) - 1) * float(1 << (31 - int_bits)) / float(1 << left_shift)
    )
    return multiplier, left_shift, radius


def checked_log2(x: float) -> tuple[int, bool]:
    """TFLite's CheckedLog2 in float32: (log2 rounded, whether x is that power of two)."""
    f = np.float32
    x_log2 = f(math.log(float(f(x)))) * (f(1) / f(math.log(2.0)))
    rounded = quant.round_half_away(float(x_log2))
    return rounded, abs(float(x_log2 - f(rounded))) < float(f(1e-3))


def int16_sigmoid_call(
    graph: Graph, op: Op, function: str, pot_shifts: tuple[int, ...]
) -> KernelCall:
    """LOGISTIC's and TANH's int16 Prepare and kernel call (tinyaot/logistic.h).

    The input is rescaled to 3 x Q3.12 of the sigmoid table: by 3 when its scale is the power
    of two that needs a left shift in pot_shifts, else by the largest multiplier of at most
    15 bits TFLite's doubling loop reaches, with a rounding right shift. The power-of-two
    case is folded here into the multiplier (3 << shift, no shift) as the kernel does it.
    """
    _, inp, out, args = elementwise_io(graph, op)
    for t in (inp, out):
        if t.zero_point != 0:
            raise op_error(graph, op, "int16 input and output must have zero point 0", t.index)
    log2, pot = checked_log2(inp.scale)
    left_shift = 12 + log2
    if pot and left_shift in pot_shifts:
        multiplier, left_shift = 3 << left_shift, 0
    else:
        real = float(quant.f32(inp.scale)) * 4096.0 * 3.0
        left_shift = 0
        while real <= 32767.0 / 2.0 and left_shift <= 30:
            left_shift += 1
            real *= 2.0
        multiplier = int(real)
        if multiplier > 32767:
            raise op_error(
                graph, op, f"input scale {inp.scale} is too large for the int16 kernel", inp.index
            )
    out_log2, out_pot = checked_log2(out.scale)
    if not out_pot or out_log2 != -15:
        raise op_error(graph, op, "int16 output must have scale 1/32768", out.index)
    return size_call(
        inp,
        out,
        function,
        "tinyaot/logistic.h",
        "struct tinyaot_logistic_s16_params",
        {"input_multiplier": multiplier, "input_left_shift": left_shift},
    )


INT16_MIN, INT16_MAX = -(1 << 15), (1 << 15) - 1


def wrap16(x: int) -> int:
    """x as an int16 holds it after a narrowing conversion (two's complement)."""
    return (x + (1 << 15)) % (1 << 16) - (1 << 15)


def trunc_div(a: int, b: int) -> int:
    """C's integer division (towards zero) for b > 0."""
    return a // b if a >= 0 else -((-a) // b)


def srdhm16(a: int, b: int) -> int:
    """gemmlowp's SaturatingRoundingDoublingHighMul on int16."""
    if a == b == INT16_MIN:
        return INT16_MAX
    ab = a * b
    return wrap16(trunc_div(ab + ((1 << 14) if ab >= 0 else 1 - (1 << 14)), 1 << 15))


def sdhm16(a: int, b: int) -> int:
    """TFLite's SaturatingDoublingHighMul on int16: like srdhm16 but truncating."""
    if a == b == INT16_MIN:
        return INT16_MAX
    return wrap16(trunc_div(a * b, 1 << 15))


def rdbpot16(x: int, exponent: int) -> int:
    """gemmlowp's RoundingDivideByPOT on int16, whose mask is cut to 16 bits: from an exponent
    of 16 on, it rounds every non-negative value to 1 and every negative one to -1."""
    mask = wrap16((1 << exponent) - 1)
    threshold = wrap16((mask >> 1) + (1 if x < 0 else 0))
    return wrap16((x >> exponent) + (1 if wrap16(x & mask) > threshold else 0))


def sat_left_shift16(x: int, amount: int) -> int:
    """TFLite's SaturatingLeftShift of an int16."""
    return min(max(x * (1 << amount), INT16_MIN), INT16_MAX)


def int16_multiplier(real: float) -> tuple[int, int]:
    """QuantizeMultiplier, then DownScaleInt32ToInt16Multiplier: a Q15 and an exponent."""
    mult, shift = quant.quantize_multiplier(real)
    if mult >= INT32_MAX - (1 << 15):
        return INT16_MAX, shift
    return (mult + (1 << 15)) >> 16, shift
