"""CONV_2D: int8 (per-channel or per-tensor weights) and float32."""

from __future__ import annotations

from .. import inplace, quant
from ..ir import DType, Graph, Op
from ..lowering import (
    KernelCall,
    OpDef,
    TensorArg,
    activation_dtype,
    bias_arg,
    count_io,
    int32_array,
    op_error,
    require_const,
    require_no_dilation,
    require_quant,
    shape4,
    window_padding,
)


def lower(graph: Graph, op: Op) -> KernelCall:
    count_io(graph, op, (2, 3))
    dtype = activation_dtype(graph, op, ("int8", "float32"))
    require_no_dilation(graph, op)
    inp, out = graph.tensor(op.inputs[0]), graph.tensor(op.outputs[0])
    filt = require_const(graph, op, op.inputs[1], "filter")
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
    pad_h, pad_w = window_padding(graph, op, (h, w), (kh, kw), (oh, ow))
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
        "stride_h": int(op.options["StrideH"]),
        "stride_w": int(op.options["StrideW"]),
        "pad_h": pad_h,
        "pad_w": pad_w,
        "reverse": 0,
    }
    bias = bias_arg(graph, op, op.inputs[2] if len(op.inputs) > 2 else None, oc, dtype)
    act = int(op.options.get("FusedActivationFunction", 0))
    macs = n * oh * ow * oc * kh * kw * c
    args = [TensorArg(inp.index), TensorArg(filt.index), bias, TensorArg(out.index, writable=True)]
    size = dtype.size
    overlap = {
        "inplace": (inplace.windowed(inp.index, dims, c, oc, None, size, size),),
        "reverse_param": "d.reverse",
    }
    if dtype == DType.FLOAT32:
        lo, hi = quant.activation_range_float(act, op.describe())
        return KernelCall(
            "tinyaot_conv_f32",
            "tinyaot/conv.h",
            "struct tinyaot_conv_f32_params",
            {"d": dims, "act_min": lo, "act_max": hi},
            args,
            macs=macs,
            **overlap,
        )
    require_quant(graph, op, [inp.index, out.index])
    require_quant(graph, op, [filt.index], per_tensor=False)
    assert filt.quant is not None
    if filt.quant.per_channel and filt.quant.axis != 0:
        raise op_error(graph, op, "per-channel weights must be quantised along axis 0", filt.index)
    if any(z != 0 for z in filt.quant.zero_points):
        raise op_error(graph, op, "int8 weights must be symmetric (zero point 0)", filt.index)
    mults, shifts = quant.conv_multipliers(inp, filt, out, oc)
    lo, hi = quant.activation_range_int8(act, out, op.describe())
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


OP = OpDef(
    "CONV_2D", ("int8", "float32"), lower, "SAME/VALID, strides, fused RELU/RELU6/RELU_N1_TO_1"
)
