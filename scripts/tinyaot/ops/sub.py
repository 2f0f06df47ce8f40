"""SUB with NumPy-style broadcasting: int8, int16, float32 and int32, fused activations; int8
with a constant of one value as a table."""

from __future__ import annotations

from ..ir import DType, Graph, Op
from ..lowering import KernelCall, OpDef
from .binary_common import (
    SUFFIX,
    add_sub_call,
    add_sub_fields,
    add_sub_value,
    constant_table,
    fold_binary,
    with_activation,
)


def lower(graph: Graph, op: Op) -> KernelCall:
    dtype = graph.tensor(op.inputs[0]).dtype
    if dtype == DType.INT8:
        table = constant_table(graph, op, add_sub_value(add_sub_fields(graph, op), -1))
        if table is not None:
            return table
    if dtype in (DType.INT8, DType.INT16):
        return add_sub_call(graph, op, f"tinyaot_sub_{SUFFIX[dtype]}", "tinyaot/binary.h")
    return with_activation(graph, op, "sub")


OP = OpDef(
    "SUB",
    ("int8", "float32", "int32", "int16"),
    lower,
    "broadcasting up to 4-D, fused activations; int8 with a constant of one value: a table",
    inputs=(2, 2),
    fold=fold_binary(lambda a, b: a - b, fused_activation=True),
)
