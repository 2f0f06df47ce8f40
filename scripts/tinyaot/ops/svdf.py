"""SVDF: int8 input and output with an int16 or int8 activation state (a variable tensor,
updated in place in the state buffer), as TFLite Micro's EvalIntegerSvdfReference."""

from __future__ import annotations

import numpy as np

from .. import quant
from ..ir import DType, Graph, Op
from ..lowering import (
    KernelCall,
    OpDef,
    TensorArg,
    int_option,
    op_error,
    require_const,
    require_quant,
)


def lower(graph: Graph, op: Op) -> KernelCall:
    inp, out = graph.tensor(op.inputs[0]), graph.tensor(op.outputs[0])
    feature = require_const(graph, op, op.inputs[1], "feature weights", DType.INT8)
    time = require_const(graph, op, op.inputs[2], "time weights")
    bias = require_const(graph, op, op.inputs[3], "bias", DType.INT32)
    state = graph.tensor(op.inputs[4])
    require_quant(graph, op, [t.index for t in (inp, feature, time, bias, state, out)])
    if not state.variable:
        raise op_error(graph, op, "the activation state must be a variable tensor", state.index)
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
    # Prepare's arithmetic: float products, then QuantizeMultiplier on the double.
    f = np.float32
    if abs(float(bias.scale) - float(f(state.scale) * f(time.scale))) >= 1e-5:
        raise op_error(graph, op, "the bias scale is not state scale x time scale", bias.index)
    m1, s1 = quant.quantize_multiplier(float(f(inp.scale) * f(feature.scale) / f(state.scale)))
    m2, s2 = quant.quantize_multiplier(float(f(state.scale) * f(time.scale) / f(out.scale)))
    kind = "s16" if state.dtype == DType.INT16 else "s8"
    return KernelCall(
        f"tinyaot_svdf_s8_{kind}",
        "tinyaot/svdf.h",
        "struct tinyaot_svdf_s8_params",
        {
            "batches": batches,
            "input_size": size,
            "filters": filters,
            "rank": rank,
            "memory": memory,
            "input_zero_point": inp.zero_point,
            "output_zero_point": out.zero_point,
            "mult1": m1,
            "shift1": s1,
            "mult2": m2,
            "shift2": s2,
        },
        [
            TensorArg(inp.index),
            TensorArg(feature.index),
            TensorArg(time.index),
            TensorArg(bias.index),
            TensorArg(state.index, writable=True),
            TensorArg(out.index, writable=True),
        ],
        macs=batches * filters * (size + memory),
    )


OP = OpDef(
    "SVDF",
    ("int8",),
    lower,
    "int8 with an int16 or int8 state (zero point 0) in the state buffer; bias required, as TFLM",
    inputs=(5, 5),
)
