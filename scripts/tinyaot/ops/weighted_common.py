"""What every int8 op with weights prepares the same way (CONV_2D, DEPTHWISE_CONV_2D,
TRANSPOSE_CONV, FULLY_CONNECTED), as TFLite Micro's kernels share
PopulateConvolutionQuantizationParams."""

from __future__ import annotations

from dataclasses import dataclass

from .. import quant
from ..ir import Graph, Op, Tensor
from ..lowering import TensorArg, op_error, require_quant


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
    bias: TensorArg | None,
    symmetric: bool = True,
) -> Requant:
    """The checks and prepare-time arithmetic of an int8 weighted op, for (input, weights,
    output) `tensors`: quantised tensors, weights per tensor or per channel along `axis`
    (the output channel's), symmetric weights where the kernel ignores their zero point."""
    inp, filt, out = tensors
    require_quant(graph, op, [inp.index, out.index])
    require_quant(graph, op, [filt.index], per_tensor=False)
    assert filt.quant is not None
    if filt.quant.per_channel and filt.quant.axis != axis:
        raise op_error(
            graph, op, f"per-channel weights must be quantised along axis {axis}", filt.index
        )
    if symmetric and any(z != 0 for z in filt.quant.zero_points):
        raise op_error(graph, op, "int8 weights must be symmetric (zero point 0)", filt.index)
    mults, shifts = quant.conv_multipliers(inp, filt, out, channels)
    act = quant.activation_range_int8(fused_activation(op), out, op.describe())
    return Requant(mults, shifts, act, graph.tensors[bias.index] if bias is not None else None)


def fused_activation(op: Op) -> int:
    return int(op.options.get("FusedActivationFunction", 0))
