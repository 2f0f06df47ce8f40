"""Prepare-time arithmetic of TFLite's reference kernels, done once at compile time.

Each function mirrors the TFLite/TFLM helper of the same purpose, including
where it computes in float32 and where in double, because that is what makes
the generated integers bit-exact with the interpreter.
"""

from __future__ import annotations

import math

import numpy as np

from .errors import CompileError
from .ir import Tensor

INT8_MIN, INT8_MAX = -128, 127
INT16_MIN, INT16_MAX = -32768, 32767

# tflite::ActivationFunctionType
ACT_NONE, ACT_RELU, ACT_RELU_N1_TO_1, ACT_RELU6 = 0, 1, 2, 3
SUPPORTED_ACTIVATIONS = "NONE, RELU, RELU6, RELU_N1_TO_1"
ACT_NAMES = {0: "NONE", 1: "RELU", 2: "RELU_N1_TO_1", 3: "RELU6", 4: "TANH", 5: "SIGN_BIT"}


def round_half_away(x: float) -> int:
    """std::round / TfLiteRound: halves go away from zero (Python's round() does not)."""
    return int(math.floor(x + 0.5)) if x >= 0 else -int(math.floor(-x + 0.5))


def quantize_multiplier(real: float) -> tuple[int, int]:
    """tflite::QuantizeMultiplier: real = m * 2^(shift - 31) with m a Q31 in [2^30, 2^31)."""
    if real == 0.0:
        return 0, 0
    q, shift = math.frexp(real)
    q_fixed = round_half_away(q * (1 << 31))
    if q_fixed == (1 << 31):
        q_fixed //= 2
        shift += 1
    if shift < -31:
        return 0, 0
    if shift > 31:
        # Only inconsistent scales get here; the kernels' left shift of an int32
        # by 32 or more would be undefined.
        raise CompileError(f"a rescaling factor of {real:g} between its tensors is too large")
    # TFLM caps shifts above 30 only in single-rounding builds; the reference
    # interpreter uses double rounding, so no cap here.
    return q_fixed, shift


def f32(x: float) -> float:
    """The value as the C++ code holds it in a `float`."""
    return float(np.float32(x))


def conv_multipliers(
    inp: Tensor, weights: Tensor, out: Tensor, channels: int
) -> tuple[list[int], list[int]]:
    """PopulateConvolutionQuantizationParams: one multiplier/shift per output channel.

    Per-tensor weights repeat the one scale, as TFLM does.
    """
    assert inp.quant and weights.quant and out.quant
    scales = weights.quant.scales
    if len(scales) not in (1, channels):
        raise CompileError(
            f"tensor {weights.index} '{weights.name}' has {len(scales)} scales "
            f"for {channels} channels"
        )
    mults, shifts = [], []
    for c in range(channels):
        s = scales[c if len(scales) > 1 else 0]
        real = float(inp.scale) * float(s) / float(out.scale)
        m, sh = quantize_multiplier(real)
        mults.append(m)
        shifts.append(sh)
    return mults, shifts


def quantize_value(value: float, scale: float, zero_point: int) -> int:
    """tflite::Quantize as used by the activation ranges: float32 division, then round."""
    with np.errstate(over="ignore"):
        q = float(np.float32(value) / np.float32(scale))
    # A denormal scale overflows float32; the result is clamped to the int8 range anyway.
    return zero_point + round_half_away(max(min(q, 2.0**31), -(2.0**31)))


def activation_range_int8(act: int, out: Tensor, what: str) -> tuple[int, int]:
    """CalculateActivationRangeQuantized for an int8 output."""
    return _activation_range(act, out, what, INT8_MIN, INT8_MAX)


def activation_range_int16(act: int, out: Tensor, what: str) -> tuple[int, int]:
    """CalculateActivationRangeQuantized for an int16 output."""
    return _activation_range(act, out, what, INT16_MIN, INT16_MAX)


def _activation_range(act: int, out: Tensor, what: str, qmin: int, qmax: int) -> tuple[int, int]:
    scale, zp = out.scale, out.zero_point
    if act == ACT_NONE:
        return qmin, qmax
    if act == ACT_RELU:
        return max(qmin, quantize_value(0.0, scale, zp)), qmax
    if act == ACT_RELU6:
        lo = max(qmin, quantize_value(0.0, scale, zp))
        return lo, min(qmax, quantize_value(6.0, scale, zp))
    if act == ACT_RELU_N1_TO_1:
        lo = max(qmin, quantize_value(-1.0, scale, zp))
        return lo, min(qmax, quantize_value(1.0, scale, zp))
    raise CompileError(
        f"{what}, tensor {out.index} '{out.name}': fused activation "
        f"{ACT_NAMES.get(act, act)} is not supported; supported: {SUPPORTED_ACTIVATIONS}"
    )


def activation_range_float(act: int, what: str) -> tuple[float, float]:
    """CalculateActivationRange for float outputs."""
    big = float(np.finfo(np.float32).max)
    ranges = {
        ACT_NONE: (-big, big),
        ACT_RELU: (0.0, big),
        ACT_RELU6: (0.0, 6.0),
        ACT_RELU_N1_TO_1: (-1.0, 1.0),
    }
    if act not in ranges:
        raise CompileError(
            f"{what}: fused activation {ACT_NAMES.get(act, act)} is not supported; "
            f"supported: {SUPPORTED_ACTIVATIONS}"
        )
    return ranges[act]
