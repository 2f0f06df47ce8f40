"""Hybrid float: float32 activations with int8 weights (FULLY_CONNECTED, CONV_2D,
DEPTHWISE_CONV_2D, BATCH_MATMUL), as dynamic-range quantisation converts them.

LiteRT quantises each batch of the input to int8 on the fly and multiplies int8 by int8;
tinyaot's kernels (crt/src/hybrid.c) instead sum input * weight in float and scale each
output's sum once by its weight scale: the weights stay int8 in flash, the arena is the
float model's, and no input rounding is added (README, "Hybrid float"). The compiler's
signature check (OpDef.hybrid) has already required the weights constant, quantised and
symmetric."""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np

from ..ir import DType, Graph, Op, Tensor
from ..lowering import ConstArray, KernelCall, TensorArg, op_error


def scales(graph: Graph, op: Op, filt: Tensor, channels: int, axis: int) -> ConstArray:
    """The weight scale of each of `channels` output channels (repeated when per tensor)."""
    assert filt.quant is not None
    values = np.asarray(filt.quant.scales, np.float32)
    if filt.quant.per_channel:
        if filt.quant.axis != axis or values.size != channels:
            raise op_error(
                graph,
                op,
                f"per-channel hybrid weights must have {channels} scales along axis {axis}",
                filt.index,
            )
        return ConstArray("float", values)
    return ConstArray("float", np.full(channels, values[0], np.float32))


def lowered(graph: Graph, op: Op, kernel: str, axis: int, float_call: KernelCall) -> KernelCall:
    """`float_call` when the weights (input 1) are float32; with int8 weights,
    tinyaot_<kernel>_hybrid with its params and tensors and the scale of each output
    channel, whose weights are along `axis`."""
    filt = graph.tensor(op.inputs[1])
    if filt.dtype != DType.INT8:
        return float_call
    channels = graph.tensor(op.outputs[0]).shape[-1]
    return dataclasses.replace(
        float_call,
        function=f"tinyaot_{kernel}_hybrid",
        header="tinyaot/hybrid.h",
        params_type=f"struct tinyaot_{kernel}_hybrid_params",
        params={**float_call.params, "scale": scales(graph, op, filt, channels, axis)},
    )


def matmul(graph: Graph, op: Op, dims: dict[str, Any], out: Tensor) -> KernelCall:
    """BATCH_MATMUL with an int8 rhs of one scale (LiteRT's hybrid takes no other)."""
    lhs, rhs = graph.tensor(op.inputs[0]), graph.tensor(op.inputs[1])
    assert rhs.quant is not None
    if rhs.quant.per_channel:
        raise op_error(graph, op, "hybrid rhs weights must have one scale", rhs.index)
    args = [TensorArg(lhs.index), TensorArg(rhs.index), TensorArg(out.index, writable=True)]
    params = {"d": dims, "scale": float(np.float32(rhs.quant.scales[0]))}
    return KernelCall(
        "tinyaot_batch_matmul_hybrid",
        "tinyaot/hybrid.h",
        "struct tinyaot_batch_matmul_hybrid_params",
        params,
        args,
        macs=out.num_elements * dims["depth"],
    )
