"""SELECT_V2: x where the bool condition is true, else y, all three broadcasting.

int8 and float32 as TFLite Micro (its SELECT_V2 runs no int32; it has no SELECT): the
kernel copies whole elements, int8 ones as stored, as TFLite Micro does."""

from __future__ import annotations

import numpy as np

from ..ir import Graph, Op
from ..lowering import KernelCall, OpDef, TensorArg, op_error, shape4
from .binary_common import broadcast_strides, fold_binary


def lower(graph: Graph, op: Op) -> KernelCall:
    cond, x, y, out = (graph.tensor(t) for t in (*op.inputs, op.outputs[0]))
    if x.dtype != out.dtype or y.dtype != out.dtype:
        raise op_error(
            graph,
            op,
            f"x, y and output dtypes {x.dtype.short}, {y.dtype.short} and {out.dtype.short} differ",
            out.index,
        )
    broadcast = [max(shape4(t)[d] for t in (cond, x, y)) for d in range(4)]
    if broadcast != list(shape4(out)):
        raise op_error(
            graph, op, f"output shape {list(out.shape)} is not the broadcast shape", out.index
        )
    params = {
        "shape": broadcast,
        "stride_c": broadcast_strides(graph, op, cond, out),
        "stride_x": broadcast_strides(graph, op, x, out),
        "stride_y": broadcast_strides(graph, op, y, out),
        "size": out.dtype.size,
    }
    args = [TensorArg(t.index) for t in (cond, x, y)] + [TensorArg(out.index, writable=True)]
    return KernelCall(
        "tinyaot_select", "tinyaot/compare.h", "struct tinyaot_select_params", params, args
    )


OP = OpDef(
    "SELECT_V2",
    ("bool",),
    lower,
    "broadcasting up to 4-D; copies int8 elements as stored",
    inputs=(3, 3),
    converts=(("bool", "int8"), ("bool", "float32")),
    fold=fold_binary(np.where),
)
