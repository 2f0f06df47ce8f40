"""What every int8 or int16x8 op with weights prepares the same way (CONV_2D,
DEPTHWISE_CONV_2D, TRANSPOSE_CONV, FULLY_CONNECTED), as TFLite Micro's kernels share
PopulateConvolutionQuantizationParams.

int16x8 is int16 activations, int8 weights and an int64 bias. TFLM's int16 kernels add no
input or output offset, so the zero points must be 0 (the converter makes them so)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .. import quant
from ..ir import DType, Graph, Op, Tensor
from ..lowering import (
    ConstArray,
    TensorArg,
    bias_arg,
    int32_array,
    op_error,
    require_const,
    require_quant,
)

# tflite::TensorType INT32, as the QuantizedBiasType option names it.
INT32 = 2


@dataclass(frozen=True)
class Requant:
    """Per output channel: the multiplier and shift of input scale * weight scale / output
    scale; the clamp of the fused activation; the bias tensor, if any."""

    mults: list[int]
    shifts: list[int]
    act: tuple[int, int]
    bias: Tensor | None


def int8_requant(
    graph: Graph,
    op: Op,
    tensors: tuple[Tensor, Tensor, Tensor],
    channels: int,
    axis: int,
    bias: TensorArg | ConstArray | None,
    symmetric: bool = True,
) -> Requant:
    """The checks and prepare-time arithmetic of an int8 (or int16x8) weighted op, for
    (input, weights, output) `tensors`: quantised tensors, weights per tensor or per channel
    along `axis` (the output channel's), symmetric weights where the kernel ignores their
    zero point."""
    inp, filt, out = tensors
    require_quant(graph, op, [inp.index, out.index])
    if inp.dtype == DType.INT16:
        for t in (inp, out):
            if t.zero_point != 0:
                raise op_error(
                    graph,
                    op,
                    f"int16 activations must have zero point 0, not {t.zero_point}",
                    t.index,
                )
    require_quant(graph, op, [filt.index], per_tensor=False)
    assert filt.quant is not None
    if filt.quant.per_channel and filt.quant.axis != axis:
        raise op_error(
            graph, op, f"per-channel weights must be quantised along axis {axis}", filt.index
        )
    if symmetric and any(z != 0 for z in filt.quant.zero_points):
        raise op_error(graph, op, "int8 weights must be symmetric (zero point 0)", filt.index)
    mults, shifts = quant.conv_multipliers(inp, filt, out, channels)
    ranges = {DType.INT16: quant.activation_range_int16, DType.INT8: quant.activation_range_int8}
    act = ranges[inp.dtype](fused_activation(op), out, op.describe())
    tensor = graph.tensors[bias.index] if isinstance(bias, TensorArg) else None
    return Requant(mults, shifts, act, tensor)


def fused_activation(op: Op) -> int:
    return int(op.options.get("FusedActivationFunction", 0))


def weights(
    graph: Graph, op: Op, index: int, dtype: DType, what: str = "filter", hybrid: bool = False
) -> Tensor:
    """The constant weights of an op on `dtype` activations: int8 under int16x8, float32 or
    int8 (hybrid, for an op whose OpDef.hybrid names them) under float32, else alike."""
    if dtype == DType.INT16 or hybrid and graph.tensor(index).dtype == DType.INT8:
        return require_const(graph, op, index, what, DType.INT8)
    return require_const(graph, op, index, what, dtype)


# Under int16x8, the bias dtype TFLM takes besides int64, which the kernels get widened to
# int64 (see int32_sum). (TFLM's TRANSPOSE_CONV takes an int16 bias too, which no converter
# makes and no test here has.)
NARROW_BIAS = {"CONV_2D": DType.INT32, "FULLY_CONNECTED": DType.INT32}


def bias(
    graph: Graph, op: Op, index: int | None, channels: int, dtype: DType
) -> TensorArg | ConstArray | None:
    """The optional bias: lowering.bias_arg's, and under int16x8 an int64 one, or one of
    NARROW_BIAS as int64."""
    if dtype != DType.INT16 or index is None:
        return bias_arg(graph, op, index, channels, dtype)
    t = require_const(graph, op, index, "bias")
    narrow = NARROW_BIAS.get(op.kind)
    if t.dtype not in (DType.INT64, narrow) or t.num_elements != channels:
        allowed = "int64" + (f" or {narrow.short}" if narrow else "")
        raise op_error(
            graph,
            op,
            f"bias must be {channels} values of {allowed} under int16 activations, got "
            f"{t.num_elements} of {t.dtype.short}",
            index,
        )
    if t.dtype == DType.INT64:
        return TensorArg(index)
    assert t.data is not None
    return ConstArray("int64_t", t.data.astype(np.int64).reshape(-1))


def int32_sum(graph: Graph, op: Op) -> int:
    """1 where TFLM's int16x8 CONV_2D or FULLY_CONNECTED sums in int32 and requantises with
    the int32 MultiplyByQuantizedMultiplier (two roundings, not the int64 one's one): an
    int32 bias, or none and the option QuantizedBiasType INT32."""
    if op.kind not in ("CONV_2D", "FULLY_CONNECTED"):
        return 0
    index = op.inputs[2] if len(op.inputs) > 2 else None
    if index is None:
        return int(op.options.get("QuantizedBiasType") == INT32)
    return int(graph.tensor(index).dtype == DType.INT32)


def s16_params(dims: dict[str, int], rq: Requant) -> dict[str, object]:
    """The fields struct tinyaot_conv_s16_params (CONV_2D and TRANSPOSE_CONV under int16x8)
    shares with struct tinyaot_dwconv_s16_params."""
    return {
        "d": dims,
        "act_min": rq.act[0],
        "act_max": rq.act[1],
        "multiplier": int32_array(rq.mults),
        "shift": int32_array(rq.shifts),
    }


# The largest magnitude of an int16 input.
X_MAX_S16 = 32768


def s16_bias_values(graph: Graph, bias: TensorArg | ConstArray | None, channels: int) -> np.ndarray:
    """The int16x8 bias argument's values as int64 (zeros without one)."""
    if isinstance(bias, ConstArray):
        return bias.values.astype(np.int64)
    if bias is None:
        return np.zeros(channels, np.int64)
    data = graph.tensor(bias.index).data
    assert data is not None
    return data.astype(np.int64).reshape(-1)


def s16_sums_fit(weights: np.ndarray, bias: np.ndarray) -> bool:
    """No partial sum of an int16x8 channel, bias first, can leave int32 for any int16 input;
    weights are [channels, taps]."""
    bound = np.abs(bias) + X_MAX_S16 * np.abs(weights.astype(np.int64)).sum(axis=1)
    return bool(np.all(bound <= np.iinfo(np.int32).max))


def mbqm64_pre(mults: list[int], shifts: list[int]) -> tuple[ConstArray, ConstArray] | None:
    """TFLite's int64 MultiplyByQuantizedMultiplier precomputed for tinyaot_mbqm64_pre
    (tinyaot/fixedpoint.h): the multipliers rounded to 16 bits and the total shifts 15 - shift,
    or None when a total shift is outside 1 to 31."""
    m = np.asarray(mults, np.int64)
    total = 15 - np.asarray(shifts, np.int64)
    if np.any((total < 1) | (total > 31)):
        return None
    reduced = np.where(m < 0x7FFF0000, (m + (1 << 15)) >> 16, 0x7FFF)
    return ConstArray("int32_t", reduced.astype(np.int32)), ConstArray(
        "int32_t", total.astype(np.int32)
    )
