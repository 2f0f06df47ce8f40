"""DEPTHWISE_CONV_2D: int8 (per-channel or per-tensor weights), int16x8 and float32, any depth
multiplier."""

from __future__ import annotations

import dataclasses

import numpy as np

from .. import fast, inplace, quant
from ..ir import DType, Graph, Op, Tensor
from ..lowering import (
    ByTarget,
    ConstArray,
    KernelCall,
    OpDef,
    Routine,
    TensorArg,
    dilation,
    int32_array,
    op_error,
    shape4,
    window_dims,
)
from . import conv_2d, hybrid_common
from .weighted_common import (
    Requant,
    fused_activation,
    int8_requant,
    mbqm64_pre,
    s16_bias_values,
    s16_params,
    s16_sums_fit,
    weights,
)
from .weighted_common import bias as weighted_bias


def lower(graph: Graph, op: Op) -> KernelCall:
    dtype = graph.tensor(op.inputs[0]).dtype
    inp, out = graph.tensor(op.inputs[0]), graph.tensor(op.outputs[0])
    filt = weights(graph, op, op.inputs[1], dtype, hybrid=True)
    n, h, w, c = shape4(inp)
    on, oh, ow, oc = shape4(out)
    mult = oc // c if c else 0
    if (
        len(filt.shape) != 4
        or filt.shape[0] != 1
        or filt.shape[3] != oc
        or mult * c != oc
        or on != n
    ):
        raise op_error(
            graph,
            op,
            f"filter shape {list(filt.shape)} does not fit input {list(inp.shape)} "
            f"and output {list(out.shape)}",
            filt.index,
        )
    kh, kw = filt.shape[1], filt.shape[2]
    dims = window_dims(graph, op, inp, out, (kh, kw), dilation(graph, op), in_c=c, out_c=oc)
    bias = weighted_bias(graph, op, op.inputs[2] if len(op.inputs) > 2 else None, oc, dtype)
    act = fused_activation(op)
    macs = n * oh * ow * oc * kh * kw
    args = [TensorArg(inp.index), TensorArg(filt.index), bias, TensorArg(out.index, writable=True)]
    channel_of = np.arange(oc) // mult
    overlap = {
        "inplace": (inplace.windowed(inp.index, dims, c, oc, channel_of, dtype.size, dtype.size),),
        "reverse_param": "d.reverse",
    }
    if dtype == DType.FLOAT32:
        lo, hi = quant.activation_range_float(act, op.describe())
        float_call = KernelCall(
            "tinyaot_dwconv_f32",
            "tinyaot/depthwise_conv.h",
            "struct tinyaot_dwconv_f32_params",
            {"d": dims, "depth_multiplier": mult, "act_min": lo, "act_max": hi},
            args,
            macs=macs,
            **overlap,
        )
        return hybrid_common.lowered(graph, op, "dwconv", 3, float_call)
    rq = int8_requant(graph, op, (inp, filt, out), oc, 3, bias)
    mults, shifts, (lo, hi), bias_t = rq.mults, rq.shifts, rq.act, rq.bias
    if dtype == DType.INT16:
        call = lower_fast_s16(graph, (inp, filt, out), rq, dims, mult, bias)
        if call is not None:
            return dataclasses.replace(call, macs=macs, **overlap)
        return KernelCall(
            "tinyaot_dwconv_s16",
            "tinyaot/depthwise_conv.h",
            "struct tinyaot_dwconv_s16_params",
            {**s16_params(dims, rq), "depth_multiplier": mult},
            args,
            macs=macs,
            **overlap,
        )
    assert filt.data is not None
    if c == 1:
        # One input channel: a convolution whose output channels are the multiplier's.
        filters = filt.data.reshape(kh, kw, oc).transpose(2, 0, 1)[..., None]
        wide = conv_2d.wide_scratch(graph, op)
        act = (lo, hi)
        call = conv_2d.lower_fast(inp, filters, bias_t, out, dims, mults, shifts, act, wide)
        if call is not None:
            return call
    call = lower_fast(inp, filt.data, bias_t, out, dims, mults, shifts, (lo, hi))
    if call is None:
        q, rules = (mults, shifts), overlap["inplace"]
        call = fast.lower_dw_taps(inp, filt.data, bias_t, out, dims, q, (lo, hi), rules)
    if call is not None:
        return call
    params = {
        "d": dims,
        "depth_multiplier": mult,
        "input_offset": -inp.zero_point,
        "output_offset": out.zero_point,
        "act_min": lo,
        "act_max": hi,
        "multiplier": int32_array(mults),
        "shift": int32_array(shifts),
    }
    return KernelCall(
        "tinyaot_dwconv_s8",
        "tinyaot/depthwise_conv.h",
        "struct tinyaot_dwconv_s8_params",
        params,
        args,
        macs=macs,
        **overlap,
    )


# tinyaot/dwconv_fast.h: the widest group per stride (the block routines
# tinyaot_dw3x3_s<stride>_n<width> that exist).
WIDEST = {1: 6, 2: 4}


def dw3x3_records(weights: np.ndarray, ch: fast.Channels) -> ConstArray:
    """Per channel (TINYAOT_DW3X3_RECORD words, LINE_RECORD for a line): bias, the nine
    weights as bytes of three little-endian words, then the requantisation's words."""
    c = weights.shape[0]
    packed = np.zeros((c, 12), dtype=np.uint8)
    packed[:, : weights.shape[1]] = weights.astype(np.int8).view(np.uint8)
    words = packed.view("<u4").astype(np.int64)
    words = np.where(words >= 1 << 31, words - (1 << 32), words)
    table = np.concatenate([ch.bias.astype(np.int64)[:, None], words, ch.words], axis=1)
    return ConstArray("int32_t", table.reshape(-1).astype(np.int32))


# The DSP routines' weight bytes (crt/src/thumb2/dw3x3_dsp_routines.S), as indices into the
# nine (ky, kx) weights; -1 a zero byte. SXTB16 pairs bytes 0 and 2, 1 and 3 of each word:
# (w00, w10), (w01, w11), (w02, w12) for rows 0 and 1, (w20, w21) and (w21, w22) for row 2.
DSP_TAPS = (0, 1, 3, 4, 2, 6, 5, 7, 7, -1, 8, -1)


def dw3x3_dsp_records(weights: np.ndarray, ch: fast.Channels) -> ConstArray | None:
    """dw3x3_records with the weights in the order of DSP_TAPS and, for a line, m + 1 in
    place of m (the routines' SMMLA); None where an m + 1 is not an int32."""
    taps = np.array(DSP_TAPS)
    dsp = np.where(taps >= 0, weights[:, np.maximum(taps, 0)], 0)
    if not ch.line:
        return dw3x3_records(dsp, ch)
    words = ch.words.copy()
    words[:, 0] += 1
    if words[:, 0].max() > fast.INT32_MAX:
        return None
    return dw3x3_records(dsp, dataclasses.replace(ch, words=words))


def dw3x3_vector_records(
    weights: np.ndarray, folded: np.ndarray, quant: tuple[list[int], list[int], int]
) -> ConstArray:
    """The records of Helium's routines (crt/src/mve/dw3x3_mve_routines.S), TINYAOT_DW3X3_RECORD
    words a channel: per four channels, each tap's four weights in a word (channel c in byte c),
    then fast.vector_table's five vectors, then three zero words."""
    c = weights.shape[0]
    blocks = c // 4
    taps = weights.astype(np.int8).reshape(blocks, 4, 9).transpose(0, 2, 1).copy()
    words = taps.view("<i4").reshape(blocks, 9).astype(np.int64)
    mults, shifts, offset = quant
    table = fast.vector_table(folded, mults, shifts, offset, np.arange(c)).values
    vectors = table.astype(np.int64).reshape(blocks, 20)
    records = np.concatenate([words, vectors, np.zeros((blocks, 3), np.int64)], axis=1)
    return ConstArray("int32_t", records.reshape(-1).astype(np.int32))


def lower_fast(
    inp: Tensor,
    filters: np.ndarray,
    bias: Tensor | None,
    out: Tensor,
    dims: dict[str, int],
    mults: list[int],
    shifts: list[int],
    act: tuple[int, int],
) -> KernelCall | None:
    """tinyaot_dwconv_fast_s8 for 3x3 windows without dilation, multiplier 1, strides 1 and 2,
    when exact."""
    c = dims["in_c"]
    s = dims["stride_w"]
    if (
        not fast.ENABLED
        or (dims["k_h"], dims["k_w"]) != (3, 3)
        or (dims["dil_h"], dims["dil_w"]) != (1, 1)
        or dims["out_c"] != c
        or dims["stride_h"] not in (1, 2)
        or s not in (1, 2)
        or c % 4
    ):
        return None
    weights = filters.astype(np.int64).reshape(9, c).T
    bias_data = bias.data if bias is not None else None
    rq = fast.exact_requant(weights, bias_data, (inp.zero_point, out.zero_point), mults, shifts)
    ch = fast.channels(weights, rq, (mults, shifts, out.zero_point), act) if rq else None
    if ch is None:
        return None
    # The widest group is the cheapest per output; a narrow row goes whole. A row that a
    # group one narrower divides takes that instead of a tail: about as cheap per output
    # (6 at stride 2 as 3 + 3, not 4 + 2), and one routine fewer to link.
    ow = dims["out_w"]
    group = min(ow, WIDEST[s])
    if ow % group and ow % (group - 1) == 0:
        group -= 1
    tail = ow % group

    # The Thumb-2 and DSP routines saturate to int8 only; a narrower clamp takes the C one, on
    # the default records. Where the DSP records cannot be made, DSP cores keep the Thumb-2 one.
    asm = act == (-128, 127)
    kind = f"{'line_' if ch.line else ''}s{s}"
    records = dw3x3_records(weights, ch)
    dsp = dw3x3_dsp_records(weights, ch) if asm else None

    # Helium's routine takes any width, on its vector records (any requantisation: line 0);
    # _relu where the clamp hides the rounding of negative values.
    mve = f"tinyaot_dw3x3_mve_{'relu_' if out.zero_point == -128 else ''}s{s}"

    def routine(width: int) -> Routine | ByTarget:
        if not asm:
            return Routine("tinyaot_dw3x3_c")
        thumb2 = Routine(f"tinyaot_dw3x3_{kind}_n{width}")
        dsp_routine = thumb2 if dsp is None else Routine(f"tinyaot_dw3x3_dsp_{kind}_n{width}")
        return ByTarget(thumb2, dsp_routine, Routine(mve))

    params = {
        "d": dims,
        "group": group,
        "zero_point": inp.zero_point,
        "act_min": act[0],
        "act_max": act[1],
        "block": routine(group),
        "tail": routine(tail) if tail else None,
        "records": records,
        "line": int(ch.line),
    }
    if asm:
        quant = (mults, shifts, out.zero_point)
        vector = dw3x3_vector_records(weights, rq.folded, quant)
        params["records"] = ByTarget(records, records if dsp is None else dsp, vector)
        params["line"] = ByTarget(int(ch.line), int(ch.line), 0)
    return KernelCall(
        "tinyaot_dwconv_fast_s8",
        "tinyaot/dwconv_fast.h",
        "struct tinyaot_dwconv_fast_params",
        params,
        [TensorArg(inp.index), TensorArg(out.index, writable=True)],
        macs=dims["batches"] * dims["out_h"] * dims["out_w"] * c * 9,
        inplace=(inplace.dwconv_fast(inp.index, dims, c, group),),
        reverse_param="d.reverse",
    )


def lower_fast_s16(
    graph: Graph,
    tensors: tuple[Tensor, Tensor, Tensor],
    rq: Requant,
    dims: dict[str, int],
    mult: int,
    bias: TensorArg | ConstArray | None,
) -> KernelCall | None:
    """tinyaot_dwconv_fast_s16 when no partial sum of a channel, its bias included, can leave
    int32 and the requantisation fits tinyaot_mbqm64_pre, else None."""
    if not fast.ENABLED:
        return None
    inp, filt, out = tensors
    assert filt.data is not None
    out_c = dims["out_c"]
    # 1HWO: each output channel's taps are a column.
    taps = filt.data.reshape(-1, out_c).T
    values = s16_bias_values(graph, bias, out_c)
    pre = mbqm64_pre(rq.mults, rq.shifts)
    if pre is None or not s16_sums_fit(taps, values):
        return None
    return KernelCall(
        "tinyaot_dwconv_fast_s16",
        "tinyaot/dwconv_fast_s16.h",
        "struct tinyaot_dwconv_fast_s16_params",
        {
            "d": dims,
            "depth_multiplier": mult,
            "act_min": rq.act[0],
            "act_max": rq.act[1],
            "bias": ConstArray("int32_t", values.astype(np.int32)),
            "multiplier": pre[0],
            "shift": pre[1],
        },
        [TensorArg(inp.index), TensorArg(filt.index), TensorArg(out.index, writable=True)],
    )


OP = OpDef(
    "DEPTHWISE_CONV_2D",
    ("int8", "int16", "float32"),
    lower,
    "depth multiplier >= 1, SAME/VALID, strides, dilation; int16: int16x8 (int8 weights, "
    "int64 bias, zero points 0)",
    inputs=(2, 3),
    hybrid=1,
)
