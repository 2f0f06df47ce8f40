"""SVDF: int8 input and output with an int16 or int8 activation state, as TFLite Micro's
EvalIntegerSvdfReference; float32, as its EvalFloatSvdfReference; and hybrid (float32
activations, state and bias with int8 feature and time weights of one scale each, as
LiteRT's hybrid SVDF takes them), the float sums with the weights read as floats. The state
is a variable tensor, updated in place in the state buffer."""

from __future__ import annotations

import numpy as np

from .. import quant
from ..ir import DType, Graph, Op, Tensor
from ..lowering import (
    ConstArray,
    KernelCall,
    OpDef,
    TensorArg,
    int_option,
    op_error,
    require_const,
    require_quant,
)
from .weighted_common import fused_activation


def lower(graph: Graph, op: Op) -> KernelCall:
    inp, out = graph.tensor(op.inputs[0]), graph.tensor(op.outputs[0])
    state = graph.tensor(op.inputs[4])
    if not state.variable:
        raise op_error(graph, op, "the activation state must be a variable tensor", state.index)
    if inp.dtype == DType.FLOAT32:
        return _lower_float(graph, op, inp, state, out)
    feature = require_const(graph, op, op.inputs[1], "feature weights", DType.INT8)
    time = require_const(graph, op, op.inputs[2], "time weights")
    bias = require_const(graph, op, op.inputs[3], "bias", DType.INT32)
    require_quant(graph, op, [t.index for t in (inp, feature, time, bias, state, out)])
    if time.dtype not in (DType.INT16, DType.INT8) or state.dtype != time.dtype:
        raise op_error(
            graph,
            op,
            f"time weights {time.dtype.short} and state {state.dtype.short}; supported: both "
            "int16 or both int8",
            state.index,
        )
    if state.zero_point != 0:
        raise op_error(graph, op, "the state's zero point must be 0", state.index)
    dims = _dims(graph, op, inp, feature, time, bias, state, out)
    # Prepare's arithmetic: float products, then QuantizeMultiplier on the double.
    f = np.float32
    if abs(float(bias.scale) - float(f(state.scale) * f(time.scale))) >= 1e-5:
        raise op_error(graph, op, "the bias scale is not state scale x time scale", bias.index)
    m1, s1 = quant.quantize_multiplier(float(f(inp.scale) * f(feature.scale) / f(state.scale)))
    m2, s2 = quant.quantize_multiplier(float(f(state.scale) * f(time.scale) / f(out.scale)))
    kind = "s16" if state.dtype == DType.INT16 else "s8"
    assert feature.data is not None
    w = feature.data.astype(np.int64).reshape(dims["filters"], -1)
    # The feature products are summed in int32 from this bias, the products of the stored
    # bytes: the same sums as TFLite Micro's of (input - zero point) while none can wrap.
    if np.any(256 * np.abs(w).sum(axis=1) > np.iinfo(np.int32).max):
        raise op_error(graph, op, "feature weights too large for int32 sums", feature.index)
    feature_bias = -inp.zero_point * w.sum(axis=1)
    return KernelCall(
        f"tinyaot_svdf_s8_{kind}",
        "tinyaot/svdf.h",
        "struct tinyaot_svdf_s8_params",
        {
            **dims,
            "feature_bias": ConstArray("int32_t", feature_bias.astype(np.int32)),
            "output_zero_point": out.zero_point,
            "mult1": m1,
            "shift1": s1,
            "mult2": m2,
            "shift2": s2,
        },
        _args(inp, feature, time, bias, state, out),
        macs=_macs(dims),
    )


def _dims(
    graph: Graph,
    op: Op,
    inp: Tensor,
    feature: Tensor,
    time: Tensor,
    bias: Tensor,
    state: Tensor,
    out: Tensor,
) -> dict[str, int]:
    """The shapes checked against each other, as the kernels' params take them."""
    rank = int_option(graph, op, "Rank")
    if len(inp.shape) != 2 or len(feature.shape) != 2 or len(time.shape) != 2:
        raise op_error(graph, op, "input and weights must be 2-D", inp.index)
    batches, size = inp.shape
    filters, memory = time.shape
    if rank <= 0 or filters % rank or feature.shape != (filters, size):
        raise op_error(graph, op, "weights, rank and input do not fit", feature.index)
    units = filters // rank
    if (
        out.shape != (batches, units)
        or bias.shape != (units,)
        or state.shape != (batches, memory * filters)
    ):
        raise op_error(graph, op, "output, bias or state shape does not fit", out.index)
    return {
        "batches": batches,
        "input_size": size,
        "filters": filters,
        "rank": rank,
        "memory": memory,
    }


def _args(*tensors: Tensor) -> list[TensorArg | None]:
    """Input, feature and time weights, bias, then the state and output, written in place."""
    *ins, state, out = tensors
    return [
        *(TensorArg(t.index) for t in ins),
        TensorArg(state.index, writable=True),
        TensorArg(out.index, writable=True),
    ]


def _macs(dims: dict[str, int]) -> int:
    return dims["batches"] * dims["filters"] * (dims["input_size"] + dims["memory"])


def _lower_float(graph: Graph, op: Op, inp: Tensor, state: Tensor, out: Tensor) -> KernelCall:
    """float32, or hybrid when the feature weights are int8 (OpDef.hybrid has checked them:
    constant, symmetric); the time weights must then be int8 of one scale as well."""
    feature = graph.tensor(op.inputs[1])
    hybrid = feature.dtype == DType.INT8
    wtype = DType.INT8 if hybrid else DType.FLOAT32
    time = graph.tensor(op.inputs[2])
    if time.dtype != wtype:
        raise op_error(
            graph,
            op,
            f"time weights dtype {time.dtype.short} with {feature.dtype.short} feature "
            f"weights; supported: both float32 or both int8",
            time.index,
        )
    require_const(graph, op, time.index, "time weights")
    bias = require_const(graph, op, op.inputs[3], "bias", DType.FLOAT32)
    for t in (state, out):
        if t.dtype != DType.FLOAT32:
            raise op_error(graph, op, "the state and output must be float32", t.index)
    dims = _dims(graph, op, inp, feature, time, bias, state, out)
    lo, hi = quant.activation_range_float(fused_activation(op), op.describe())
    params: dict[str, object] = {**dims, "act_min": lo, "act_max": hi}
    if hybrid:
        require_quant(graph, op, [feature.index, time.index])
        assert time.quant is not None
        if any(z != 0 for z in time.quant.zero_points):
            raise op_error(graph, op, "hybrid int8 weights must be symmetric", time.index)
        params = {
            "f": params,
            "feature_scale": quant.f32(feature.scale),
            "time_scale": quant.f32(time.scale),
        }
    kind = "hybrid" if hybrid else "f32"
    return KernelCall(
        f"tinyaot_svdf_{kind}",
        "tinyaot/svdf.h",
        f"struct tinyaot_svdf_{kind}_params",
        params,  # type: ignore[arg-type]
        _args(inp, feature, time, bias, state, out),
        macs=_macs(dims),
    )


OP = OpDef(
    "SVDF",
    ("int8", "float32"),
    lower,
    "int8 with an int16 or int8 state (zero point 0); float32; hybrid (int8 feature and time "
    "weights of one scale each); state in the state buffer; bias required, as TFLM",
    inputs=(5, 5),
    hybrid=1,
)
