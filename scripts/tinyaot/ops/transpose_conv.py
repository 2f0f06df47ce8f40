"""TRANSPOSE_CONV: int8 (per-channel or per-tensor weights), int16x8 and float32.

Inputs are TFLite's: the output shape, the OHWI filter, the data, an optional bias. The
output tensor's static shape is what counts: TFLM never reads the shape input, which may
therefore be a model input (as in TFLM's seanet tests) when it is not a constant. TFLM
scatters every input into an int32 (float) scratch the size of the output and
requantises afterwards; the kernel gathers instead, each output summing its contributions
in the order the scatter adds them, so the int8 sums and the float roundings are the same
without the scratch.
"""

from __future__ import annotations

from .. import quant
from ..ir import DType, Graph, Op
from ..lowering import (
    PADDING_SAME,
    PADDING_VALID,
    KernelCall,
    OpDef,
    TensorArg,
    int32_array,
    int_option,
    op_error,
)
from .weighted_common import bias as weighted_bias
from .weighted_common import fused_activation, int8_requant, int32_sum, s16_params, weights


def transpose_padding(padding: object, stride: int, out_size: int, k: int) -> int:
    """TFLM's ComputePaddingHeightWidth, applied with the transposed conv's output as the
    convolution's input (as CalculateOpData calls it)."""
    if padding == PADDING_SAME:
        conv_out = (out_size + stride - 1) // stride
    else:
        conv_out = (out_size + stride - k) // stride
    return max(((conv_out - 1) * stride + k - out_size) // 2, 0)


def lower(graph: Graph, op: Op) -> KernelCall:
    inp, out = graph.tensor(op.inputs[2]), graph.tensor(op.outputs[0])
    dtype = out.dtype
    if inp.dtype != dtype or dtype not in (DType.INT8, DType.INT16, DType.FLOAT32):
        raise op_error(
            graph,
            op,
            f"input {inp.dtype.short} to output {dtype.short}; supported: int8, int16 or "
            "float32 on both sides",
            inp.index,
        )
    shape = graph.tensor(op.inputs[0])
    if shape.dtype != DType.INT32 or shape.num_elements != 4 or len(out.shape) != 4:
        raise op_error(
            graph,
            op,
            f"output shape {list(out.shape)} with a shape input of {list(shape.shape)} "
            f"{shape.dtype.short}; supported: rank 4, 4 int32 values",
            shape.index,
        )
    if shape.is_const:
        assert shape.data is not None
        if [int(v) for v in shape.data.reshape(-1)] != list(out.shape):
            raise op_error(
                graph, op, f"output shape {list(out.shape)} differs from its shape input", out.index
            )
    filt = weights(graph, op, op.inputs[1], dtype)
    n, h, w, c = inp.shape if len(inp.shape) == 4 else (0, 0, 0, 0)
    on, oh, ow, oc = out.shape
    if len(filt.shape) != 4 or filt.shape[0] != oc or filt.shape[3] != c or on != n:
        raise op_error(
            graph,
            op,
            f"filter shape {list(filt.shape)} does not fit input {list(inp.shape)} "
            f"and output {list(out.shape)}",
            filt.index,
        )
    padding = op.options.get("Padding")
    if padding not in (PADDING_SAME, PADDING_VALID):
        raise op_error(graph, op, f"padding type {padding} is not supported (SAME or VALID)")
    sh, sw = int_option(graph, op, "StrideH"), int_option(graph, op, "StrideW")
    if min(sh, sw) < 1:
        raise op_error(graph, op, f"stride {(sh, sw)} must be at least 1")
    kh, kw = filt.shape[1], filt.shape[2]
    dims = {
        "batches": n,
        "in_h": h,
        "in_w": w,
        "in_c": c,
        "out_h": oh,
        "out_w": ow,
        "out_c": oc,
        "k_h": kh,
        "k_w": kw,
        "stride_h": sh,
        "stride_w": sw,
        "pad_h": transpose_padding(padding, sh, oh, kh),
        "pad_w": transpose_padding(padding, sw, ow, kw),
        # struct tinyaot_conv_dims' dilation, which TRANSPOSE_CONV has none of.
        "dil_h": 1,
        "dil_w": 1,
        "reverse": 0,
    }
    bias = weighted_bias(graph, op, op.inputs[3] if len(op.inputs) > 3 else None, oc, dtype)
    act = fused_activation(op)
    args = [TensorArg(inp.index), TensorArg(filt.index), bias, TensorArg(out.index, writable=True)]
    macs = n * h * w * c * kh * kw * oc
    if dtype == DType.FLOAT32:
        lo, hi = quant.activation_range_float(act, op.describe())
        return KernelCall(
            "tinyaot_transpose_conv_f32",
            "tinyaot/transpose_conv.h",
            "struct tinyaot_conv_f32_params",
            {"d": dims, "act_min": lo, "act_max": hi},
            args,
            macs=macs,
        )
    # TFLM's kernel ignores the filter zero point; only symmetric weights mean the same.
    rq = int8_requant(graph, op, (inp, filt, out), oc, 0, bias)
    mults, shifts, (lo, hi) = rq.mults, rq.shifts, rq.act
    if dtype == DType.INT16:
        return KernelCall(
            "tinyaot_transpose_conv_s16",
            "tinyaot/transpose_conv.h",
            "struct tinyaot_conv_s16_params",
            {**s16_params(dims, rq), "int32_sum": int32_sum(graph, op)},
            args,
            macs=macs,
        )
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
        "tinyaot_transpose_conv_s8",
        "tinyaot/transpose_conv.h",
        "struct tinyaot_conv_s8_params",
        params,
        args,
        macs=macs,
    )


OP = OpDef(
    "TRANSPOSE_CONV",
    ("int8", "int16", "float32"),
    lower,
    "per-channel or per-tensor int8 weights; the output shape input constant or ignored, "
    "SAME/VALID, strides, optional bias, fused RELU/RELU6/RELU_N1_TO_1; int16: int16x8 (int8 "
    "weights, int64 bias, zero points 0)",
    inputs=(3, 4),
    data_input=2,
)
