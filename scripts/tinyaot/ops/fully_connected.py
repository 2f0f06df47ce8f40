"""FULLY_CONNECTED: int8 (per-tensor or per-channel weights), int16x8 and float32."""

from __future__ import annotations

import numpy as np

from .. import fast, quant
from ..ir import DType, Graph, Op, Tensor
from ..lowering import (
    ByTarget,
    ConstArray,
    KernelCall,
    OpDef,
    TensorArg,
    int32_array,
    op_error,
)
from . import conv_2d, hybrid_common
from .weighted_common import bias as weighted_bias
from .weighted_common import fused_activation, int8_requant, int32_sum, weights


def lower(graph: Graph, op: Op) -> KernelCall:
    dtype = graph.tensor(op.inputs[0]).dtype
    inp, out = graph.tensor(op.inputs[0]), graph.tensor(op.outputs[0])
    filt = weights(graph, op, op.inputs[1], dtype, "weights", hybrid=True)
    if op.options.get("WeightsFormat", 0) != 0:
        raise op_error(graph, op, "shuffled weights format is not supported")
    if len(filt.shape) != 2:
        raise op_error(graph, op, f"weights must be 2-D, got {list(filt.shape)}", filt.index)
    units, depth = filt.shape
    if inp.num_elements % depth or out.num_elements != inp.num_elements // depth * units:
        raise op_error(
            graph,
            op,
            f"input {list(inp.shape)} and output {list(out.shape)} do not fit "
            f"weights {list(filt.shape)}",
            out.index,
        )
    batches = inp.num_elements // depth
    bias = weighted_bias(graph, op, op.inputs[2] if len(op.inputs) > 2 else None, units, dtype)
    act = fused_activation(op)
    args = [TensorArg(inp.index), TensorArg(filt.index), bias, TensorArg(out.index, writable=True)]
    dims = {"batches": batches, "depth": depth, "units": units}
    macs = batches * depth * units
    if dtype == DType.FLOAT32:
        lo, hi = quant.activation_range_float(act, op.describe())
        float_call = KernelCall(
            "tinyaot_fc_f32",
            "tinyaot/fully_connected.h",
            "struct tinyaot_fc_f32_params",
            {**dims, "act_min": lo, "act_max": hi},
            args,
            macs=macs,
        )
        return hybrid_common.lowered(graph, op, "fc", 0, float_call)
    # int16x8 weights are symmetric: TFLM's per-channel int16 kernel ignores their zero point.
    int16 = dtype == DType.INT16
    rq = int8_requant(graph, op, (inp, filt, out), units, 0, bias, symmetric=int16)
    mults, shifts, (lo, hi), bias_t = rq.mults, rq.shifts, rq.act, rq.bias
    if int16:
        assert filt.data is not None
        # A 1x1 convolution over the batches, one pixel each.
        conv_dims = {
            "batches": batches,
            **dict.fromkeys(("in_h", "in_w", "out_h", "out_w", "k_h", "k_w"), 1),
            **dict.fromkeys(("stride_h", "stride_w", "dil_h", "dil_w"), 1),
            **dict.fromkeys(("pad_h", "pad_w", "reverse"), 0),
            "in_c": depth,
            "out_c": units,
        }
        clamp = {"d": conv_dims, "act_min": lo, "act_max": hi, "int32_sum": int32_sum(graph, op)}
        call = conv_2d.lower_fast_s16(graph, filt.data, rq, clamp, (inp, bias, out))
        if call is not None:
            return call
        return KernelCall(
            "tinyaot_fc_s16",
            "tinyaot/fully_connected.h",
            "struct tinyaot_fc_s16_params",
            {
                **dims,
                "int32_sum": int32_sum(graph, op),
                "act_min": lo,
                "act_max": hi,
                "multiplier": int32_array(mults),
                "shift": int32_array(shifts),
            },
            args,
            macs=macs,
        )
    call = lower_fast(inp, filt, bias_t, out, dims, mults, shifts, (lo, hi))
    if call is not None:
        return call
    params = {
        **dims,
        "input_offset": -inp.zero_point,
        "filter_offset": -filt.zero_point,
        "output_offset": out.zero_point,
        "act_min": lo,
        "act_max": hi,
        "multiplier": int32_array(mults),
        "shift": int32_array(shifts),
    }
    return KernelCall(
        "tinyaot_fc_s8",
        "tinyaot/fully_connected.h",
        "struct tinyaot_fc_s8_params",
        params,
        args,
        macs=macs,
    )


def dsp_weights(weights: np.ndarray, units: int, depth: int) -> ConstArray:
    """The weights for crt/src/dsp/fully_connected_dsp.c: per block of four units, per four
    consecutive inputs, each unit's four weights; then the depth % 4 last inputs' weights, four
    units per input."""
    whole = depth - depth % 4
    blocks = weights.reshape(units // 4, 4, depth)
    words = blocks[:, :, :whole].reshape(units // 4, 4, whole // 4, 4).transpose(0, 2, 1, 3)
    tail = blocks[:, :, whole:].transpose(0, 2, 1)
    rows = [
        np.concatenate([w.reshape(-1), t.reshape(-1)]) for w, t in zip(words, tail, strict=True)
    ]
    return ConstArray("int8_t", np.concatenate(rows).astype(np.int8))


def lower_fast(
    inp: Tensor,
    filt: Tensor,
    bias: Tensor | None,
    out: Tensor,
    dims: dict[str, int],
    mults: list[int],
    shifts: list[int],
    act: tuple[int, int],
) -> KernelCall | None:
    """tinyaot_fc_fast_s8 (symmetric weights) when exact, else None. Units go four at a
    time, in fast.block_channels' order: over four not a multiple of 4, the highest block is
    the last four units; under four, zero weights fill the block.

    Small layers take it too: the reference kernel's 64-bit requantisation of each output
    made TFLite Micro's hello_world (three layers of 16 to 256 MACs) slower than TFLite Micro
    + CMSIS-NN on the Cortex-M3, 4165 against 3718 instructions; with it 1683. The code it
    links (about 750 bytes there) is what --no-fast-kernels is for.
    """
    units, depth = dims["units"], dims["depth"]
    if not fast.ENABLED or filt.zero_point != 0:
        return None
    assert filt.data is not None
    weights = filt.data.astype(np.int64).reshape(units, depth)
    bias_data = bias.data if bias is not None else None
    rq = fast.exact_requant(weights, bias_data, (inp.zero_point, out.zero_point), mults, shifts)
    if rq is None or rq.rows is None:
        return None
    blocks = (units + 3) // 4
    order = fast.block_channels(units)
    padded = fast.padded(weights[order], 4 * blocks)
    grouped = padded.reshape(blocks, 4, depth).transpose(0, 2, 1).reshape(-1)
    params = {
        **dims,
        "act_min": act[0],
        "act_max": act[1],
        "weights": ByTarget(
            ConstArray("int8_t", grouped.astype(np.int8)),
            dsp_weights(padded, 4 * blocks, depth),
            # crt/src/mve/: each unit's weights in a row, as the model has them.
            ConstArray("int8_t", padded.reshape(-1).astype(np.int8)),
        ),
        "table": fast.block_table(rq.folded[order], rq.rows[order], fast.SIGN_PAD),
    }
    return KernelCall(
        "tinyaot_fc_fast_s8",
        "tinyaot/fully_connected_fast.h",
        "struct tinyaot_fc_fast_params",
        params,
        [TensorArg(inp.index), TensorArg(out.index, writable=True)],
        macs=dims["batches"] * depth * units,
    )


OP = OpDef(
    "FULLY_CONNECTED",
    ("int8", "int16", "float32"),
    lower,
    "2-D weights, optional bias, fused activations; int16: int16x8 (symmetric int8 weights, "
    "int64 or int32 bias, zero points 0)",
    inputs=(2, 3),
    hybrid=1,
)
