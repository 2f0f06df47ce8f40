"""What SUM, REDUCE_MAX and REDUCE_MIN share with MEAN: the constant axes, the output shape
they make and the reduced layout (struct tinyaot_mean_shape), all as MEAN checks them."""

from __future__ import annotations

from .. import quant
from ..ir import DType, Graph, Op
from ..lowering import KernelCall, OpDef, TensorArg, op_error
from . import mean


def mean_call(graph: Graph, op: Op) -> KernelCall:
    """MEAN's kernel call for this op's input, axes and output (SUM reuses it whole)."""
    return mean.lower(graph, op)


def reduced_shape(graph: Graph, op: Op) -> dict:
    """The struct tinyaot_mean_shape fields of the op's reduction."""
    shape = mean_call(graph, op).params["s"]
    assert isinstance(shape, dict)
    return shape


def lower_minmax(graph: Graph, op: Op, which: str) -> KernelCall:
    """REDUCE_MAX (which "max") or REDUCE_MIN ("min"): int8 in the input's quantisation."""
    inp, out = graph.tensor(op.inputs[0]), graph.tensor(op.outputs[0])
    shape = reduced_shape(graph, op)
    if inp.dtype == DType.INT8 and (quant.f32(inp.scale), inp.zero_point) != (
        quant.f32(out.scale),
        out.zero_point,
    ):
        raise op_error(
            graph,
            op,
            "int8 output must have the input's scale and zero point (TFLM requires it)",
            out.index,
        )
    kind = "f32" if inp.dtype == DType.FLOAT32 else "s8"
    return KernelCall(
        f"tinyaot_reduce_{which}_{kind}",
        "tinyaot/reduce_minmax.h",
        "struct tinyaot_reduce_minmax_params",
        {"s": shape},
        [TensorArg(inp.index), TensorArg(out.index, writable=True)],
    )


def minmax_op(which: str) -> OpDef:
    """The OpDef of REDUCE_MAX (which "max") or REDUCE_MIN ("min")."""
    return OpDef(
        f"REDUCE_{which.upper()}",
        ("int8", "float32"),
        lambda graph, op: lower_minmax(graph, op, which),
        "constant axes, keep_dims either way; int8 output in the input's quantisation",
        inputs=(2, 2),
    )
