"""ADD with NumPy-style broadcasting: int8, int16, float32 and int32; int8 with a constant of
one value as a table."""

from __future__ import annotations

from .. import fast, inplace, quant
from ..ir import DType, Graph, Op
from ..lowering import (
    KernelCall,
    OpDef,
    binary_io,
)
from .binary_common import (
    INT32_MAX,
    INT32_MIN,
    add_sub_call,
    add_sub_fields,
    add_sub_value,
    constant_table,
    fold_binary,
)
from .binary_common import call as binary_call


def lower(graph: Graph, op: Op) -> KernelCall:
    dtype, a, b, out, bcast, args = binary_io(graph, op)
    if dtype == DType.INT32:
        # TFLite Micro's add.cc clamps int32 to the whole type, whatever the activation.
        fields = {"act_min": INT32_MIN, "act_max": INT32_MAX}
        return binary_call(graph, op, "tinyaot_add_i32", "struct tinyaot_binary_i32_params", fields)
    if dtype == DType.INT16:
        return add_sub_call(graph, op, "tinyaot_add_s16", "tinyaot/add.h")
    act = int(op.options.get("FusedActivationFunction", 0))
    # Without broadcasting each output element depends only on the inputs at the
    # same index, so the output may take over either input's memory.
    overlap = inplace.binary(a, b, out)
    if dtype == DType.FLOAT32:
        lo, hi = quant.activation_range_float(act, op.describe())
        return KernelCall(
            "tinyaot_add_f32",
            "tinyaot/add.h",
            "struct tinyaot_add_f32_params",
            {"b": bcast, "act_min": lo, "act_max": hi},
            args,
            inplace=overlap,
        )
    fields = add_sub_fields(graph, op)
    table = constant_table(graph, op, add_sub_value(fields, 1))
    if table is not None:
        return table
    call = fast.lower_add(
        a,
        b,
        out,
        fields["left_shift"],
        (
            (fields["input1_multiplier"], fields["input1_shift"]),
            (fields["input2_multiplier"], fields["input2_shift"]),
        ),
        (fields["output_multiplier"], fields["output_shift"]),
        (fields["act_min"], fields["act_max"]),
        overlap,
    )
    if call is not None:
        return call
    params = {"b": bcast, **fields}
    return KernelCall(
        "tinyaot_add_s8",
        "tinyaot/add.h",
        "struct tinyaot_add_s8_params",
        params,
        args,
        inplace=overlap,
    )


OP = OpDef(
    "ADD",
    ("int8", "float32", "int32", "int16"),
    lower,
    "broadcasting up to 4-D, fused activations; int8 with a constant of one value: a table",
    inputs=(2, 2),
    fold=fold_binary(lambda a, b: a + b, fused_activation=True),
)
