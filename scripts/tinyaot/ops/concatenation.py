"""CONCATENATION along any axis: int8, int16, float32 and int32, up to 10 inputs as in TFLM.

TFLM's int8 kernel copies bytes and refuses inputs whose scale or zero point
differ from the output's; so do we, at compile time. Its int16 kernel copies bytes too,
whatever the scales, and requires zero points of 0.
"""

from __future__ import annotations

import math

from .. import quant
from ..ir import DType, Graph, Op
from ..lowering import (
    KernelCall,
    OpDef,
    TensorArg,
    TensorList,
    op_error,
    require_quant,
    require_symmetric,
)

MAX_INPUTS = 10  # TINYAOT_CONCATENATION_MAX_INPUTS, TFLM's kMaxInputNum


def lower(graph: Graph, op: Op) -> KernelCall:
    dtype = graph.tensor(op.inputs[0]).dtype
    out = graph.tensor(op.outputs[0])
    if None in op.inputs:
        raise op_error(graph, op, f"input {op.inputs.index(None)} is missing")
    inputs = [graph.tensor(i) for i in op.inputs]
    if int(op.options.get("FusedActivationFunction", 0)) != quant.ACT_NONE:
        raise op_error(graph, op, "a fused activation is not supported (TFLM has none here)")
    rank = len(out.shape)
    axis = int(op.options.get("Axis", 0))
    axis = axis + rank if axis < 0 else axis
    if not 0 <= axis < rank:
        raise op_error(graph, op, f"axis {op.options.get('Axis')} is outside rank {rank}")
    total = 0
    for t in inputs:
        if t.dtype != dtype:
            raise op_error(
                graph, op, f"input dtype {t.dtype.short} differs from {dtype.short}", t.index
            )
        same = len(t.shape) == rank and all(
            t.shape[d] == out.shape[d] for d in range(rank) if d != axis
        )
        if not same:
            raise op_error(
                graph,
                op,
                f"input shape {list(t.shape)} does not fit output {list(out.shape)} "
                f"along axis {axis}",
                t.index,
            )
        total += t.shape[axis]
    if total != out.shape[axis]:
        raise op_error(
            graph,
            op,
            f"inputs add up to {total} along axis {axis}, the output has {out.shape[axis]}",
            out.index,
        )
    if dtype == DType.INT8:
        require_quant(graph, op, [t.index for t in inputs] + [out.index])
        for t in inputs:
            if (quant.f32(t.scale), t.zero_point) != (quant.f32(out.scale), out.zero_point):
                raise op_error(
                    graph,
                    op,
                    f"int8 inputs must have the output's scale {out.scale} and zero point "
                    f"{out.zero_point} (TFLM does not rescale); this one has scale {t.scale} "
                    f"and zero point {t.zero_point}",
                    t.index,
                )
    if dtype == DType.INT16:
        require_symmetric(graph, op, [t.index for t in inputs] + [out.index])
    inner = math.prod(out.shape[axis + 1 :])
    copy_bytes = [t.shape[axis] * inner * dtype.size for t in inputs]
    params = {
        "outer": math.prod(out.shape[:axis]),
        "inputs_count": len(inputs),
        "copy_bytes": copy_bytes + [0] * (MAX_INPUTS - len(inputs)),
    }
    kernel = {DType.INT8: "s8", DType.INT16: "s16", DType.INT32: "i32"}.get(dtype, "f32")
    return KernelCall(
        f"tinyaot_concatenation_{kernel}",
        "tinyaot/concatenation.h",
        "struct tinyaot_concatenation_params",
        params,
        [TensorList(tuple(t.index for t in inputs)), TensorArg(out.index, writable=True)],
    )


OP = OpDef(
    "CONCATENATION",
    ("int8", "float32", "int32", "int16"),
    lower,
    "any axis, up to 10 inputs; int8 inputs in the output's scale and zero point; int16 copied "
    "(zero points 0)",
    inputs=(1, MAX_INPUTS),
)
