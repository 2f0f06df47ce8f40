"""FULLY_CONNECTED: int8 (per-tensor or per-channel weights) and float32."""

from __future__ import annotations

from .. import quant
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
    require_quant,
)


def lower(graph: Graph, op: Op) -> KernelCall:
    count_io(graph, op, (2, 3))
    dtype = activation_dtype(graph, op, ("int8", "float32"))
    inp, out = graph.tensor(op.inputs[0]), graph.tensor(op.outputs[0])
    filt = require_const(graph, op, op.inputs[1], "weights")
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
    bias = bias_arg(graph, op, op.inputs[2] if len(op.inputs) > 2 else None, units, dtype)
    act = int(op.options.get("FusedActivationFunction", 0))
    args = [TensorArg(inp.index), TensorArg(filt.index), bias, TensorArg(out.index, writable=True)]
    dims = {"batches": batches, "depth": depth, "units": units}
    macs = batches * depth * units
    if dtype == DType.FLOAT32:
        lo, hi = quant.activation_range_float(act, op.describe())
        return KernelCall(
            "tinyaot_fc_f32",
            "tinyaot/fully_connected.h",
            "struct tinyaot_fc_f32_params",
            {**dims, "act_min": lo, "act_max": hi},
            args,
            macs=macs,
        )
    require_quant(graph, op, [inp.index, out.index])
    require_quant(graph, op, [filt.index], per_tensor=False)
    assert filt.quant is not None
    if filt.quant.per_channel and filt.quant.axis != 0:
        raise op_error(graph, op, "per-channel weights must be quantised along axis 0", filt.index)
    mults, shifts = quant.conv_multipliers(inp, filt, out, units)
    lo, hi = quant.activation_range_int8(act, out, op.describe())
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


OP = OpDef(
    "FULLY_CONNECTED", ("int8", "float32"), lower, "2-D weights, optional bias, fused activations"
)
