"""CUMSUM: running sums along one constant axis, exclusive and reverse as flagged; float32 and
int8, TFLite Micro's dtypes."""

from __future__ import annotations

import math

from ..ir import DType, Graph, Op
from ..lowering import KernelCall, OpDef, TensorArg, op_error, require_const, require_quant
from .q20_common import q20_sum


def lower(graph: Graph, op: Op) -> KernelCall:
    inp, out = graph.tensor(op.inputs[0]), graph.tensor(op.outputs[0])
    axis_t = require_const(graph, op, op.inputs[1], "axis", DType.INT32)
    assert axis_t.data is not None
    rank = len(inp.shape)
    axis = int(axis_t.data.reshape(-1)[0]) if axis_t.num_elements == 1 else None
    if rank == 0 or axis is None or not -rank <= axis < rank:
        raise op_error(graph, op, f"the axis must be one value within rank {rank}", axis_t.index)
    if out.shape != inp.shape:
        raise op_error(graph, op, f"output shape {list(out.shape)} is not the input's", out.index)
    axis %= rank
    params: dict[str, object] = {
        "outer": math.prod(inp.shape[:axis]),
        "depth": inp.shape[axis],
        "inner": math.prod(inp.shape[axis + 1 :]),
        "exclusive": int(bool(op.options.get("Exclusive", False))),
        "reverse": int(bool(op.options.get("Reverse", False))),
    }
    kind = "f32"
    if inp.dtype == DType.INT8:
        require_quant(graph, op, [inp.index, out.index])
        params["q"] = q20_sum(graph, op, inp, out)
        kind = "s8"
    return KernelCall(
        f"tinyaot_cumsum_{kind}",
        "tinyaot/cumsum.h",
        f"struct tinyaot_cumsum_{kind}_params",
        params,
        [TensorArg(inp.index), TensorArg(out.index, writable=True)],
    )


OP = OpDef(
    "CUMSUM",
    ("int8", "float32"),
    lower,
    "constant axis, exclusive and reverse; int8 sums as TFLM's (from the rescaled offset)",
    inputs=(2, 2),
)
