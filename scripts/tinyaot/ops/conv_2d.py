"""CONV_2D: int8 (per-channel or per-tensor weights), int16x8 and float32."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

import numpy as np

from .. import fast, inplace, quant
from ..ir import DType, Graph, Op, Tensor
from ..lowering import (
    ByTarget,
    ConstArray,
    FlashVariant,
    KernelCall,
    OpDef,
    Routine,
    TensorArg,
    dilation,
    int32_array,
    op_error,
    scratch_tensor,
    shape4,
    window_dims,
    window_extent,
)
from . import hybrid_common
from .weighted_common import (
    Requant,
    fused_activation,
    int8_requant,
    int32_sum,
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
    if len(filt.shape) != 4 or filt.shape[0] != oc or filt.shape[3] != c or on != n:
        raise op_error(
            graph,
            op,
            f"filter shape {list(filt.shape)} does not fit input {list(inp.shape)} "
            f"and output {list(out.shape)} (grouped convolutions are not supported)",
            filt.index,
        )
    kh, kw = filt.shape[1], filt.shape[2]
    dims = window_dims(graph, op, inp, out, (kh, kw), dilation(graph, op), in_c=c, out_c=oc)
    bias = weighted_bias(graph, op, op.inputs[2] if len(op.inputs) > 2 else None, oc, dtype)
    act = fused_activation(op)
    macs = n * oh * ow * oc * kh * kw * c
    args = [TensorArg(inp.index), TensorArg(filt.index), bias, TensorArg(out.index, writable=True)]
    size = dtype.size
    overlap = {
        "inplace": (inplace.windowed(inp.index, dims, c, oc, None, size, size),),
        "reverse_param": "d.reverse",
    }
    if dtype == DType.FLOAT32:
        lo, hi = quant.activation_range_float(act, op.describe())
        float_call = KernelCall(
            "tinyaot_conv_f32",
            "tinyaot/conv.h",
            "struct tinyaot_conv_f32_params",
            {"d": dims, "act_min": lo, "act_max": hi},
            args,
            macs=macs,
            **overlap,
        )
        return hybrid_common.lowered(graph, op, "conv", 0, float_call)
    rq = int8_requant(graph, op, (inp, filt, out), oc, 0, bias)
    mults, shifts, (lo, hi) = rq.mults, rq.shifts, rq.act
    if dtype == DType.INT16:
        assert filt.data is not None
        sum32 = int32_sum(graph, op)
        clamp = {"d": dims, "act_min": lo, "act_max": hi, "int32_sum": sum32}
        call = lower_fast_s16(graph, filt.data, rq, clamp, (inp, bias, out))
        if call is not None:
            return dataclasses.replace(call, **overlap)
        return KernelCall(
            "tinyaot_conv_s16",
            "tinyaot/conv.h",
            "struct tinyaot_conv_s16_params",
            {**s16_params(dims, rq), "int32_sum": sum32},
            args,
            macs=macs,
            **overlap,
        )
    assert filt.data is not None
    wide = wide_scratch(graph, op)
    call = lower_fast(inp, filt.data, rq.bias, out, dims, mults, shifts, (lo, hi), wide)
    if call is not None:
        return call
    params = {
        "d": dims,
        "input_offset": -inp.zero_point,
        "output_offset": out.zero_point,
        "act_min": lo,
        "act_max": hi,
        "multiplier": int32_array(mults),
        "shift": int32_array(shifts),
    }
    return KernelCall(
        "tinyaot_conv_s8",
        "tinyaot/conv.h",
        "struct tinyaot_conv_s8_params",
        params,
        args,
        macs=macs,
        **overlap,
    )


# tinyaot/conv_fast_s16.h
PATCH_MAX_S16 = 128


def lower_fast_s16(
    graph: Graph,
    filters: np.ndarray,
    rq: Requant,
    s16: dict[str, object],
    tensors: tuple[Tensor, TensorArg | ConstArray | None, Tensor],
) -> KernelCall | None:
    """tinyaot_conv_fast_s16 (tinyaot/conv_fast_s16.h) for int16x8 weights `filters` (OHWI)
    when no partial sum of a channel, its bias included, can leave int32 and the requantisation
    fits tinyaot_mbqm64_pre, else None. `s16` holds the dims (d), the clamp and int32_sum;
    `tensors` the input, the bias argument and the output. Also used by FULLY_CONNECTED, a 1x1
    convolution over its batches."""
    if not fast.ENABLED:
        return None
    inp, bias_arg, out = tensors
    out_c = filters.shape[0]
    weights = filters.astype(np.int64).reshape(out_c, -1)
    bias = s16_bias_values(graph, bias_arg, out_c)
    if not s16_sums_fit(weights, bias):
        return None
    requant = (int32_array(rq.mults), int32_array(rq.shifts))
    if not s16["int32_sum"]:
        pre = mbqm64_pre(rq.mults, rq.shifts)
        if pre is None:
            return None
        requant = pre
    depth = weights.shape[1]
    blocks = (out_c + 3) // 4
    padded = fast.padded(weights, 4 * blocks).reshape(blocks, 4, depth)
    dims = s16["d"]
    assert isinstance(dims, dict)
    # conv_fast_s16.h: a window read as one run from a stack patch where its rows are runs
    # of their own, then even positions only if the whole window is.
    patch = int(depth <= PATCH_MAX_S16 and dims["k_h"] * dims["k_w"] > 1)
    pairs = int(dims["in_c"] % 2 == 0 or patch and depth % 2 == 0)
    if pairs:
        # Per two positions: channels 0 and 1 at both, then 2 and 3 (conv_fast_s16.h).
        quads = padded.reshape(blocks, 2, 2, depth // 2, 2).transpose(0, 3, 1, 4, 2)
        layout = quads.reshape(-1)
    else:
        layout = padded.transpose(0, 2, 1).reshape(-1)
    default = ConstArray("int8_t", layout.astype(np.int8))
    params = {
        **s16,
        # Helium's path reads each channel's weights in a row (VMLADAVA.S16 over 8 inputs).
        "weights": ByTarget(
            default, default, ConstArray("int8_t", padded.reshape(-1).astype(np.int8))
        ),
        "pairs": pairs,
        "patch": patch,
        "bias": ConstArray("int32_t", fast.padded(bias, 4 * blocks).astype(np.int32)),
        "multiplier": requant[0],
        "shift": requant[1],
    }
    return KernelCall(
        "tinyaot_conv_fast_s16",
        "tinyaot/conv_fast_s16.h",
        "struct tinyaot_conv_fast_s16_params",
        params,
        [TensorArg(inp.index), TensorArg(out.index, writable=True)],
        macs=dims["batches"] * dims["out_h"] * dims["out_w"] * out_c * depth,
    )


# tinyaot/conv_fast.h
PATCH, ROWS = 0, 1
PATCH_MAX, RUNS_MAX = 128, 16
# Runs of at most SHORT bytes cost more to set up than to copy to the patch. Runs of 3 to 8
# bytes (first layers of one input channel) are cheaper in place on the Cortex-M3 (bench.py:
# kws_on_off 695281 -> 631931 instructions, fingerprint 11863348 -> 9964324; micro_speech's
# 10x8 windows 823715 -> 784155), but where the patch is whole words for whole blocks the DSP
# routine reads it and not such rows: there, up to SHORT_DSP bytes keep the patch where the
# DSP kernels are built (the mode is then per target, see dsp_mode).
SHORT, SHORT_DSP = 2, 8
# Windows shallower than this take the DSP routine on Helium's cores too, where it applies:
# the Helium routine's fixed cost per block of a pair of pixels (two passes over the runs, the
# vector requantisation, about 110 instructions) is not paid back by so few MACs. Cortex-M55
# (bench.py --board mps3-an547 --layers): a window 4 deep (armzoo_har_cnn's first layer) 4.62
# instructions per MAC on Helium, 4.31 on the DSP routine; VWW's pointwise layers over 8 and
# 16 channels 2.34 and 1.05 on Helium, 2.51 and 1.86 on the DSP routine.
MVE_MIN_DEPTH = 8
# Windows of at most this many inputs take the DSP routine that widens a pair's inputs once
# (tinyaot_conv_pairs_dsp16): its stack buffer is 4 bytes per input (TINYAOT_CONV_DSP16_DEPTH
# in tinyaot/asm_layout.h). Deeper ones take it on a scratch of the arena (wide_scratch), where
# the arena grows by no more than Options.speed_scratch allows, else the routine that widens a
# pair's inputs again for every block's half: 14 instructions per 16 MACs instead of 20.
DSP16_DEPTH = 128
WIDE_LABEL = "convolution inputs widened to int16"


def wide_scratch(graph: Graph, op: Op) -> Callable[[int], int]:
    """Makes the scratch of `elements` int16 that tinyaot_conv_pairs_dsp16 widens a pair's
    inputs into, for lower_fast."""
    return lambda elements: scratch_tensor(graph, op, WIDE_LABEL, DType.INT16, elements)


# Windows that are not whole words take it on the patch, padded, when at least this deep and
# with at least this many MACs per output pixel (depth * out_c); else the MLA routine reads
# them. Cortex-M4 (bench.py --board mps2-an386 --layers), instructions per MAC, MLA -> padded:
# 3x3 windows over 1 channel (depth 9) into 8-24 channels 3.1-4.8 -> 3.5-7.4; 27 deep into 8
# channels 2.33-2.38 -> 2.81-2.92, into 16 2.20-2.76 -> 2.03-2.55; 25 deep into 8 2.45 -> 3.27;
# 42 deep into 48 1.97 -> 1.40, 63 into 14 2.45 -> 1.74, 75 into 24 1.97 -> 1.35. Not under
# MVE_MIN_DEPTH, where Helium's cores would take it too.
PAD4_MIN_DEPTH, PAD4_MIN_MACS = 16, 384


def fast_mode(dims: dict[str, int], in_c: int, short: int = SHORT) -> int | None:
    """How tinyaot_conv_fast_s8 should read the windows, or None when it cannot.

    PATCH copies every window (runs of `short` bytes or fewer); ROWS reads whole windows in
    place and copies clipped ones when they fit the patch.
    """
    kh, kw = dims["k_h"], dims["k_w"]
    depth = kh * kw * in_c
    clipped = bool(np.any(clipped_columns(dims)))
    patch = depth <= PATCH_MAX
    # Dilated columns are runs of a tap each, whole windows too (tinyaot_conv_fast_runs).
    taps = dims["dil_w"] > 1
    rows = (kh * kw if taps else kh) <= RUNS_MAX
    rows = rows and (not clipped or patch or kh * kw <= RUNS_MAX)
    if patch and (run_bytes(dims, in_c) <= short and kh * kw > 1 or not rows):
        return PATCH
    return ROWS if rows else None


def clipped_columns(dims: dict[str, int]) -> np.ndarray:
    """Per output column, whether its window reaches past the input's left or right edge."""
    x0 = np.arange(dims["out_w"]) * dims["stride_w"] - dims["pad_w"]
    return (x0 < 0) | (x0 + window_extent(dims["k_w"], dims["dil_w"]) > dims["in_w"])


def run_bytes(dims: dict[str, int], in_c: int) -> int:
    """The length of the runs that ROWS reads a window inside the input as: a row of the
    window, or a tap where its columns are dilated."""
    return in_c if dims["dil_w"] > 1 else dims["k_w"] * in_c


def dsp_mode(dims: dict[str, int], in_c: int, mode: int) -> int:
    """The mode where the DSP kernels are built: PATCH for rows of up to SHORT_DSP bytes when
    the patch is whole words for whole blocks, which the DSP routine reads (see SHORT)."""
    depth = dims["k_h"] * dims["k_w"] * in_c
    if depth % 4 != 0 or in_c % 4 == 0 or dims["out_c"] % 4 != 0:
        return mode
    wider = fast_mode(dims, in_c, SHORT_DSP)
    return mode if wider is None else wider


def dsp_weights(weights: np.ndarray, blocks: int, depth: int) -> ConstArray:
    """The weights for tinyaot/conv_fast.h's DSP routine: per block of four channels, per half
    (channels 0-1, then 2-3), per four consecutive inputs, the two channels' four weights."""
    halves = weights.reshape(blocks, 2, 2, depth // 4, 4).transpose(0, 1, 3, 2, 4)
    return ConstArray("int8_t", halves.reshape(-1).astype(np.int8))


def dsp_weights16(weights: np.ndarray, blocks: int, depth: int) -> ConstArray:
    """The weights for tinyaot_conv_pairs_dsp16_w16: dsp_weights' as int16, per four inputs the
    two channels' weights 1 and 3, then their 0 and 2 (the registers its LDM fills, which
    SXTB16 gives the other routines), little-endian as the Arm cores that run it."""
    w = weights.reshape(blocks, 2, 2, depth // 4, 4).transpose(0, 1, 3, 2, 4)
    w = np.stack([w[..., [1, 3]], w[..., [0, 2]]], axis=3)
    return ConstArray("int8_t", w.reshape(-1).astype("<i2").view(np.int8))


def quads16(weights: np.ndarray, blocks: int, depth: int) -> np.ndarray:
    """The weights for tinyaot_conv_pairs_mve16: per block of four channels, per 16 inputs, each
    channel's 16 weights, then each channel's depth % 16 last ones."""
    w = weights.reshape(blocks, 4, depth).astype(np.int8)
    steps = depth // 16 * 16
    whole = w[:, :, :steps].reshape(blocks, 4, -1, 16).transpose(0, 2, 1, 3).reshape(blocks, -1)
    return np.concatenate([whole, w[:, :, steps:].reshape(blocks, -1)], axis=1).reshape(-1)


def lower_fast(
    inp: Tensor,
    filters: np.ndarray,
    bias: Tensor | None,
    out: Tensor,
    dims: dict[str, int],
    mults: list[int],
    shifts: list[int],
    act: tuple[int, int],
    wide: Callable[[int], int],
) -> KernelCall | None:
    """tinyaot_conv_fast_s8 when its arithmetic is exact for these weights, else None.

    filters are OHWI. Also used by DEPTHWISE_CONV_2D with one input channel, which is a
    convolution. `wide` makes the scratch for DSP windows deeper than DSP16_DEPTH (see
    wide_scratch): the call then has a narrow variant without it."""
    if not fast.ENABLED:
        return None
    in_c, out_c = dims["in_c"], dims["out_c"]
    mode = fast_mode(dims, in_c)
    if mode is None:
        return None
    dsp_reads = dsp_mode(dims, in_c, mode)
    if dims["out_w"] % 2 == 1:
        # Rows read in place, a job takes every whole pair of an output row when its width is
        # even; over an odd width each pair is a job of its own, which costs more than copying
        # rows of up to SHORT_DSP bytes. Cortex-M3 (bench.py): fire alarm's 8x8 windows over
        # 13 columns 3.28 -> 2.97 instructions per MAC with the patch; micro_speech's 10x8
        # over 20 columns 2.38 -> 2.33 in place.
        mode = dsp_reads
    depth = dims["k_h"] * dims["k_w"] * in_c
    weights = filters.astype(np.int64).reshape(out_c, depth)
    bias_data = bias.data if bias is not None else None
    rq = fast.exact_requant(weights, bias_data, (inp.zero_point, out.zero_point), mults, shifts)
    ch = fast.channels(weights, rq, (mults, shifts, out.zero_point), act) if rq else None
    if ch is None:
        return None
    blocks = (out_c + 3) // 4
    order = fast.block_channels(out_c)
    padded = fast.padded(weights[order], 4 * blocks)
    # Per input, the block's four channels; under four channels (tinyaot_conv_pairs_c1 to _c3)
    # only those there are, with no zeros for the rest.
    per_input = min(out_c, 4)
    grouped = ConstArray(
        "int8_t",
        padded.reshape(blocks, 4, depth)[:, :per_input]
        .transpose(0, 2, 1)
        .reshape(-1)
        .astype(np.int8),
    )
    zero_row = np.full(dims["k_w"] * in_c if mode == ROWS else 1, inp.zero_point, np.int8)
    params = {
        "d": dims,
        "mode": mode,
        "act_min": act[0],
        "act_max": act[1],
        "zero_row": ConstArray("int8_t", zero_row),
        "weights": grouped,
        "table": fast.block_table(ch.bias[order], ch.words[order], ch.pad),
        "line": int(ch.line),
    }
    # The Thumb-2 routines want four channels or more, whole blocks but for _part's; the
    # pixel routine is for an odd pixel count's last pixel. They saturate to int8: a
    # narrower clamp is applied to the output after them (clamp_after).
    whole = out_c % 4 == 0
    part = not whole and out_c > 4
    params["clamp_after"] = int((whole or part) and act != (-128, 127))
    odd = dims["batches"] * dims["out_h"] * dims["out_w"] % 2 == 1
    line = "_line" if ch.line else ""
    name = f"tinyaot_conv_pairs{line}" if whole else f"tinyaot_conv_pairs{line}_part"
    pairs = Routine(name if whole or part else f"tinyaot_conv_pairs_c{out_c}")
    single = Routine(f"tinyaot_conv_single{line}") if whole and odd else None
    params["pairs"], params["single"] = pairs, single
    # Every run a multiple of 4 bytes (the whole window, or rows and taps of in_c): the DSP
    # routine's layout, a word of four consecutive weights per channel, which the pixel
    # routine does not read. Its _part moves the highest block's outputs as the Thumb-2 one.
    runs4 = (depth if dsp_reads == PATCH else in_c) % 4 == 0
    # Other windows that fit the patch (rows of 3, 9 or 21 bytes: first layers over 1 or 3
    # channels) are copied to it on DSP cores, where tinyaot_conv_pairs_dsp16 reads it rounded
    # up to whole words (the zero point there, see tinyaot_conv_fast_patch) against weights
    # padded with zeros, where a pixel has enough MACs to pay for the copy (PAD4_MIN_*).
    pad4 = not runs4 and PAD4_MIN_DEPTH <= depth <= DSP16_DEPTH
    pad4 = pad4 and depth * out_c >= PAD4_MIN_MACS
    dsp = (runs4 or pad4) and (whole or part)
    part_name = "" if whole else "_part"
    dsp_pairs = Routine(f"tinyaot_conv_pairs_dsp16{part_name}")
    deep = depth > DSP16_DEPTH
    narrow_pairs = Routine(f"tinyaot_conv_pairs_dsp{part_name}") if deep else dsp_pairs
    # Helium's routine takes any job, a lone last pixel as a pair (single NULL): the portable
    # blocks with their sums by VMLADAVA, each channel's weights in a row.
    mve = depth >= MVE_MIN_DEPTH or not dsp
    # Where every run is whole steps of 16 inputs but for a lone run's tail (a 1x1 window, or
    # every window copied to the patch), the one-pass routine on the vector table, exact for any
    # requantisation (line 0 there). Helium's cores copy windows of rows up to SHORT_DSP bytes
    # to the patch for it; longer rows are cheaper read in place by the two-pass routine.
    # Cortex-M55 (bench.py --board mps3-an547 --layers): image_example1's first layer (3 bytes a
    # row) 3.01 -> 2.55 instructions per MAC; VWW's (9 bytes a row) would go 1.23 -> 1.92.
    # Clipped windows too deep for the patch are read in place a tap at a time.
    tap_runs = depth > PATCH_MAX and bool(np.any(clipped_columns(dims)))
    step_run = in_c if tap_runs else run_bytes(dims, in_c)
    whole_steps = dims["k_h"] * dims["k_w"] == 1 or step_run % 16 == 0
    mve_mode = dsp_reads
    if mve and not whole_steps and run_bytes(dims, in_c) <= SHORT_DSP and depth <= PATCH_MAX:
        mve_mode = PATCH
    dsp_final = PATCH if pad4 and dsp else dsp_reads
    if dsp_final != mve_mode:
        params["mode"] = ByTarget(mode, dsp_final, mve_mode)
    elif dsp_final != mode:
        params["mode"] = ByTarget(mode, dsp_final)
    mve16 = mve and (whole_steps or mve_mode == PATCH)
    if mve16:
        mve_weights = ConstArray("int8_t", quads16(padded, blocks, depth))
        relu = "_relu" if act[0] >= out.zero_point else ""
        mve_pairs = Routine(f"tinyaot_conv_pairs_mve16{relu}")
        table = params["table"]
        params["table"] = ByTarget(
            table, table, fast.vector_table(rq.folded, mults, shifts, out.zero_point, order)
        )
        params["line"] = ByTarget(int(ch.line), int(ch.line), 0)
    elif mve:
        mve_weights = ConstArray("int8_t", padded.reshape(-1).astype(np.int8))
        mve_pairs = Routine("tinyaot_conv_pairs_mve")
    else:
        mve_weights = mve_pairs = None
    depth4 = (depth + 3) // 4 * 4 if dsp else depth
    words = np.pad(padded, ((0, 0), (0, depth4 - depth)))
    params["weights"] = ByTarget(
        grouped, dsp_weights(words, blocks, depth4) if dsp else grouped, mve_weights
    )
    block_bytes = 4 * depth
    if depth4 > depth:
        block_bytes = ByTarget(block_bytes, 4 * depth4, block_bytes)
    elif per_input < 4:
        block_bytes = ByTarget(per_input * depth, per_input * depth, 4 * depth)
    params["block_bytes"] = block_bytes
    params["pairs"] = ByTarget(pairs, narrow_pairs if dsp else pairs, mve_pairs)
    params["single"] = ByTarget(single, None if dsp else single, None) if single else None
    call = KernelCall(
        "tinyaot_conv_fast_s8",
        "tinyaot/conv_fast.h",
        "struct tinyaot_conv_fast_params",
        params,
        [TensorArg(inp.index), TensorArg(out.index, writable=True)],
        macs=dims["batches"] * dims["out_h"] * dims["out_w"] * out_c * depth,
        inplace=(inplace.conv_fast(inp.index, dims, in_c, out_c, {mode, dsp_final, mve_mode}),),
        reverse_param="d.reverse",
    )

    def int16_weights(c: KernelCall) -> FlashVariant:
        # tinyaot_conv_pairs_dsp16's job on int16 weights: 10 instructions per 16 MACs
        # instead of 14, for 4 more bytes per weight (and per zero that pads the depth).
        dsp16 = Routine(f"tinyaot_conv_pairs_dsp16_w16{part_name}")
        w16 = dsp_weights16(words, blocks, depth4)
        w16_params = {
            **c.params,
            "weights": ByTarget(grouped, w16, mve_weights),
            "block_bytes": ByTarget(4 * depth, 8 * depth4, 4 * depth if mve else None),
            "pairs": ByTarget(pairs, dsp16, mve_pairs),
        }
        return FlashVariant(dataclasses.replace(c, params=w16_params), 4 * blocks * depth4)

    if not dsp:
        return call
    if not deep:
        return dataclasses.replace(call, faster=int16_weights(call))
    # The generated code is one for every core: the scratch is in the arena on all of them.
    scratch = TensorArg(wide(2 * depth4), writable=True)
    wide_params = {**params, "pairs": ByTarget(pairs, dsp_pairs, mve_pairs)}
    wide_call = dataclasses.replace(
        call,
        function="tinyaot_conv_fast_wide_s8",
        params=wide_params,
        args=[*call.args, scratch],
        narrow=call,
    )
    return dataclasses.replace(wide_call, faster=int16_weights(wide_call))


OP = OpDef(
    "CONV_2D",
    ("int8", "int16", "float32"),
    lower,
    "SAME/VALID, strides, dilation, fused RELU/RELU6/RELU_N1_TO_1; int16: int16x8 (int8 "
    "weights, int64 or int32 bias, zero points 0)",
    inputs=(2, 3),
    hybrid=1,
)
