"""DYNAMIC_UPDATE_SLICE: the operand with a block overwritten by the update, at start indices
(int32 or int64, usually computed at run time) clamped as TFLite Micro clamps them."""

from __future__ import annotations

from ..ir import DType, Graph, Op
from ..lowering import KernelCall, OpDef, TensorArg, op_error

MAX_RANK = 6  # TFLM's kMaxDimensions


def _strides(shape: tuple[int, ...]) -> list[int]:
    strides, step = [0] * MAX_RANK, 1
    for d in range(len(shape) - 1, -1, -1):
        strides[d] = step
        step *= shape[d]
    return strides


def lower(graph: Graph, op: Op) -> KernelCall:
    operand, update, start = (graph.tensor(t) for t in op.inputs)
    out = graph.tensor(op.outputs[0])
    rank = len(operand.shape)
    if update.dtype != operand.dtype:
        raise op_error(
            graph,
            op,
            f"update is {update.dtype.short}, the operand {operand.dtype.short}",
            update.index,
        )
    if start.dtype not in (DType.INT32, DType.INT64) or list(start.shape) != [rank]:
        raise op_error(
            graph,
            op,
            f"start indices must be int32 or int64 of shape [{rank}], not "
            f"{start.dtype.short}{list(start.shape)}",
            start.index,
        )
    if (
        not 1 <= rank <= MAX_RANK
        or len(update.shape) != rank
        or any(u > o for u, o in zip(update.shape, operand.shape, strict=True))
    ):
        raise op_error(
            graph,
            op,
            f"update {list(update.shape)} does not fit operand {list(operand.shape)} "
            f"(same rank, 1 to {MAX_RANK}, no dim larger)",
            update.index,
        )
    if out.shape != operand.shape:
        raise op_error(graph, op, f"output {list(out.shape)} is not the operand's shape", out.index)
    pad = [1] * (MAX_RANK - rank)
    params = {
        "rank": rank,
        "dims": list(operand.shape) + pad,
        "update_dims": list(update.shape) + pad,
        "strides": _strides(operand.shape),
        "element_size": operand.dtype.size,
        "index64": int(start.dtype == DType.INT64),
    }
    return KernelCall(
        "tinyaot_dynamic_update_slice",
        "tinyaot/dynamic_update_slice.h",
        "struct tinyaot_dynamic_update_slice_params",
        params,
        [
            TensorArg(operand.index),
            TensorArg(update.index),
            TensorArg(start.index),
            TensorArg(out.index, writable=True),
        ],
    )


OP = OpDef(
    "DYNAMIC_UPDATE_SLICE",
    ("int8", "int16", "int32", "float32"),
    lower,
    "int32 or int64 start indices, run-time or constant, clamped as TFLM; bytes copied as TFLM "
    "copies them (no requantisation)",
    inputs=(3, 3),
)
