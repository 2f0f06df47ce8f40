"""MUL with NumPy-style broadcasting: int8, int16 (zero points 0), float32 and int32 (wrapping,
as TFLite's); int8 with a constant of one value as a table."""

from __future__ import annotations

from .. import fast, inplace, quant
from ..fixedpoint import mbqm, saturate
from ..ir import DType, Graph, Op, Tensor
from ..lowering import (
    KernelCall,
    OpDef,
    binary_io,
    require_quant,
    require_symmetric,
)
from .binary_common import constant_table, fold_binary, with_activation


def lower(graph: Graph, op: Op) -> KernelCall:
    dtype, a, b, out, bcast, args = binary_io(graph, op)
    if dtype == DType.INT32:
        return with_activation(graph, op, "mul")
    act = int(op.options.get("FusedActivationFunction", 0))
    if dtype == DType.FLOAT32:
        lo, hi = quant.activation_range_float(act, op.describe())
        return KernelCall(
            "tinyaot_mul_f32",
            "tinyaot/mul.h",
            "struct tinyaot_mul_f32_params",
            {"b": bcast, "act_min": lo, "act_max": hi},
            args,
            inplace=inplace.binary(a, b, out),
        )
    require_quant(graph, op, [a.index, b.index, out.index])
    # CalculateOpDataMul: the three scales multiplied and divided in double.
    real = float(a.scale) * float(b.scale) / float(out.scale)
    mult, shift = quant.quantize_multiplier(real)
    wide = dtype == DType.INT16
    if wide:
        require_symmetric(graph, op, [a.index, b.index, out.index])
    ranges = quant.activation_range_int16 if wide else quant.activation_range_int8
    lo, hi = ranges(act, out, op.describe())
    if not wide:
        o1, o2, oo = -a.zero_point, -b.zero_point, out.zero_point

        def value(x: int, y: int) -> int:
            return saturate(mbqm((x + o1) * (y + o2), mult, shift) + oo, lo, hi)

        table = constant_table(graph, op, value)
        if table is not None:
            return table
        fast_call = lower_fast(a, b, out, bcast, (mult, shift), (lo, hi), args)
        if fast_call is not None:
            return fast_call
    params = {
        "b": bcast,
        "input1_offset": -a.zero_point,
        "input2_offset": -b.zero_point,
        "output_offset": out.zero_point,
        "output_multiplier": mult,
        "output_shift": shift,
        "act_min": lo,
        "act_max": hi,
    }
    return KernelCall(
        "tinyaot_mul_s16" if wide else "tinyaot_mul_s8",
        "tinyaot/mul.h",
        "struct tinyaot_mul_s8_params",
        params,
        args,
        inplace=inplace.binary(a, b, out),
    )


def lower_fast(
    a: Tensor,
    b: Tensor,
    out: Tensor,
    bcast: object,
    requant: tuple[int, int],
    act: tuple[int, int],
    args: list,
) -> KernelCall | None:
    """tinyaot_mul_fast_s8 where tinyaot_requant is exact over every product of the offset
    inputs (fast.requant_entry); None elsewhere, and the reference kernel stays."""
    if not fast.ENABLED:
        return None
    ends = [(x - a.zero_point) * (y - b.zero_point) for x in (-128, 127) for y in (-128, 127)]
    entry = fast.requant_entry(requant[0], requant[1], out.zero_point, (min(ends), max(ends)))
    if entry is None:
        return None
    params = {
        "b": bcast,
        "input1_offset": -a.zero_point,
        "input2_offset": -b.zero_point,
        "mult": entry[0],
        "high": entry[1],
        "shift": entry[2],
        "act_min": act[0],
        "act_max": act[1],
    }
    return KernelCall(
        "tinyaot_mul_fast_s8",
        "tinyaot/mul.h",
        "struct tinyaot_mul_fast_params",
        params,
        args,
        inplace=inplace.binary(a, b, out),
    )


OP = OpDef(
    "MUL",
    ("int8", "float32", "int32", "int16"),
    lower,
    "broadcasting up to 4-D, fused activations; int8 with a constant of one value: a table",
    inputs=(2, 2),
    fold=fold_binary(lambda a, b: a * b, fused_activation=True),
)
