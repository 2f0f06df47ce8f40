"""ADD with NumPy-style broadcasting: int8, int16, float32 and int32."""

from __future__ import annotations

from .. import fast, inplace, quant
from ..ir import DType, Graph, Op
from ..lowering import (
    KernelCall,
    OpDef,
    binary_io,
    require_quant,
)
from .binary_common import INT32_MAX, INT32_MIN, LEFT_SHIFT, add_sub_call, fold_binary
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
    require_quant(graph, op, [a.index, b.index, out.index])
    twice_max = 2 * max(float(a.scale), float(b.scale))
    m1, s1 = quant.quantize_multiplier(float(a.scale) / twice_max)
    m2, s2 = quant.quantize_multiplier(float(b.scale) / twice_max)
    left_shift = LEFT_SHIFT[DType.INT8]
    mo, so = quant.quantize_multiplier(twice_max / ((1 << left_shift) * float(out.scale)))
    lo, hi = quant.activation_range_int8(act, out, op.describe())
    call = fast.lower_add(a, b, out, left_shift, ((m1, s1), (m2, s2)), (mo, so), (lo, hi), overlap)
    if call is not None:
        return call
    params = {
        "b": bcast,
        "left_shift": left_shift,
        "input1_offset": -a.zero_point,
        "input1_multiplier": m1,
        "input1_shift": s1,
        "input2_offset": -b.zero_point,
        "input2_multiplier": m2,
        "input2_shift": s2,
        "output_offset": out.zero_point,
        "output_multiplier": mo,
        "output_shift": so,
        "act_min": lo,
        "act_max": hi,
    }
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
    "broadcasting up to 4-D, fused activations",
    inputs=(2, 2),
    fold=fold_binary(lambda a, b: a + b, fused_activation=True),
)
