"""What ARG_MAX and ARG_MIN share: one constant axis, int32 indices, TFLM's tie rule.

TFLM's micro kernel keeps the first index of the extreme value (a later one must compare
strictly greater or smaller), and takes only an int32 axis and an int32 output; its inputs
are int8 and float32 (no uint8).
"""

from __future__ import annotations

import math

from ..ir import DType, Graph, Op
from ..lowering import KernelCall, OpDef, TensorArg, op_error, require_const


def lower_arg(graph: Graph, op: Op, which: str) -> KernelCall:
    inp, out = graph.tensor(op.inputs[0]), graph.tensor(op.outputs[0])
    axis_t = require_const(graph, op, op.inputs[1], "axis", DType.INT32)
    assert axis_t.data is not None
    rank = len(inp.shape)
    if axis_t.num_elements != 1 or rank == 0:
        raise op_error(graph, op, "the axis must be one value", axis_t.index)
    axis = int(axis_t.data.reshape(-1)[0])
    if not -rank <= axis < rank:
        raise op_error(graph, op, f"axis {axis} is outside rank {rank}", axis_t.index)
    axis %= rank
    expected = [s for d, s in enumerate(inp.shape) if d != axis]
    if list(out.shape) != expected:
        raise op_error(
            graph,
            op,
            f"output shape {list(out.shape)} should be {expected} for axis {axis}",
            out.index,
        )
    kind = "f32" if inp.dtype == DType.FLOAT32 else "s8"
    params = {
        "outer": math.prod(inp.shape[:axis]),
        "axis_size": inp.shape[axis],
        "inner": math.prod(inp.shape[axis + 1 :]),
    }
    return KernelCall(
        f"tinyaot_arg_{which}_{kind}",
        "tinyaot/arg_min_max.h",
        "struct tinyaot_arg_min_max_params",
        params,
        [TensorArg(inp.index), TensorArg(out.index, writable=True)],
    )


def arg_op(which: str) -> OpDef:
    """The OpDef of ARG_MAX (which "max") or ARG_MIN ("min")."""
    return OpDef(
        f"ARG_{which.upper()}",
        ("int8", "float32"),
        lambda graph, op: lower_arg(graph, op, which),
        "one constant int32 axis; the first index of ties",
        inputs=(2, 2),
        converts=(("int8", "int32"), ("float32", "int32")),
    )
