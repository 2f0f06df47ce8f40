"""What the broadcasting binary ops share: their kernel calls on the broadcast walk
(crt/include/tinyaot/binary.h, compare.h), TFLite's common-scale multipliers, and the
folds that compute constant float, int32 and bool inputs at compile time."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from .. import inplace, quant
from ..fixedpoint import mbqm, saturate, wrap32
from ..ir import DType, Graph, Op, Tensor
from ..lowering import (
    Fold,
    KernelCall,
    OpDef,
    binary_io,
    const_inputs,
    op_error,
    require_quant,
    shape4,
)
from .lut_common import lut8

SUFFIX = {
    DType.INT8: "s8",
    DType.INT16: "s16",
    DType.FLOAT32: "f32",
    DType.INT32: "i32",
    DType.BOOL: "bool",
}
INT32_MIN, INT32_MAX = -(1 << 31), (1 << 31) - 1


def activation(op: Op) -> int:
    return int(op.options.get("FusedActivationFunction", 0))


def call(
    graph: Graph,
    op: Op,
    function: str,
    params_type: str,
    fields: dict[str, object] | None = None,
    header: str = "tinyaot/binary.h",
) -> KernelCall:
    """A kernel over struct tinyaot_broadcast `b` plus `fields`; inputs, then the output."""
    _, a, b, out, bcast, args = binary_io(graph, op)
    return KernelCall(
        function,
        header,
        params_type,
        {"b": bcast, **(fields or {})},
        args,
        inplace=inplace.binary(a, b, out),
    )


def plain(graph: Graph, op: Op, name: str) -> KernelCall:
    """tinyaot_<name>_<dtype>, which has no parameters but the broadcast walk."""
    dtype = graph.tensor(op.inputs[0]).dtype
    return call(graph, op, f"tinyaot_{name}_{SUFFIX[dtype]}", "struct tinyaot_binary_params")


def activation_range(dtype: DType, act: int, what: str) -> tuple[float, float]:
    """CalculateActivationRange for float or int32 outputs (int32: NONE spans the type)."""
    lo, hi = quant.activation_range_float(act, what)
    if dtype == DType.INT32:
        return max(lo, INT32_MIN), min(hi, INT32_MAX)
    return lo, hi


def with_activation(graph: Graph, op: Op, name: str) -> KernelCall:
    """tinyaot_<name>_f32 or _i32: the op's result clamped to its fused activation."""
    dtype = graph.tensor(op.inputs[0]).dtype
    lo, hi = activation_range(dtype, activation(op), op.describe())
    if dtype == DType.INT32:
        lo, hi = int(lo), int(hi)
    return call(
        graph,
        op,
        f"tinyaot_{name}_{SUFFIX[dtype]}",
        f"struct tinyaot_binary_{SUFFIX[dtype]}_params",
        {"act_min": lo, "act_max": hi},
    )


def common_scale(a: Tensor, b: Tensor) -> tuple[float, dict[str, int]]:
    """ADD's scheme, in double: twice the larger input scale, and the input fields that
    bring each input to it."""
    twice_max = 2.0 * max(float(a.scale), float(b.scale))
    return twice_max, scaled_inputs(a, b, float(a.scale) / twice_max, float(b.scale) / twice_max)


# Headroom ADD and SUB give the inputs on the common scale: 20 bits for int8, 15 for int16.
LEFT_SHIFT = {DType.INT8: 20, DType.INT16: 15}


def add_sub_fields(graph: Graph, op: Op) -> dict[str, int]:
    """The fields of a quantised ADD or SUB on TFLite's common scale (struct
    tinyaot_add_s8_params but the broadcast walk): the inputs rescaled with the dtype's
    headroom, summed or subtracted, rescaled to the output and clamped to its activation
    range."""
    a, b, out = (graph.tensor(t) for t in (*op.inputs, op.outputs[0]))
    require_quant(graph, op, [a.index, b.index, out.index])
    # Computed in double as ADD's Prepare: the installed TFLite Micro agrees with that for
    # SUB too, not with the float arithmetic of CalculateOpDataSub's current source (scales
    # 0.06, 0.09 and 0.1 tell the two apart).
    twice_max, fields = common_scale(a, b)
    left_shift = LEFT_SHIFT[a.dtype]
    mo, shift = quant.quantize_multiplier(twice_max / ((1 << left_shift) * float(out.scale)))
    ranges = {DType.INT8: quant.activation_range_int8, DType.INT16: quant.activation_range_int16}
    lo, hi = ranges[a.dtype](activation(op), out, op.describe())
    fields.update(
        left_shift=left_shift,
        output_offset=out.zero_point,
        output_multiplier=mo,
        output_shift=shift,
        act_min=lo,
        act_max=hi,
    )
    return fields


def add_sub_call(graph: Graph, op: Op, function: str, header: str) -> KernelCall:
    """A quantised ADD or SUB (add_sub_fields) on the broadcast walk."""
    fields = add_sub_fields(graph, op)
    return call(graph, op, function, "struct tinyaot_add_s8_params", fields, header)


def add_sub_value(f: dict[str, int], sign: int) -> Callable[[int, int], int]:
    """One output of ADD (sign 1) or SUB (-1) from its two stored inputs, in the steps of
    tinyaot_add_one and tinyaot_sub_one."""

    def value(x: int, y: int) -> int:
        shift = f["left_shift"]
        sa = mbqm(
            wrap32((x + f["input1_offset"]) << shift), f["input1_multiplier"], f["input1_shift"]
        )
        sb = mbqm(
            wrap32((y + f["input2_offset"]) << shift), f["input2_multiplier"], f["input2_shift"]
        )
        raw = mbqm(wrap32(sa + sign * sb), f["output_multiplier"], f["output_shift"])
        return saturate(raw + f["output_offset"], f["act_min"], f["act_max"])

    return value


def constant_table(graph: Graph, op: Op, value: Callable[[int, int], int]) -> KernelCall | None:
    """An int8 op whose one input is a constant of a single value (x - c, c * x, max(x, c))
    and whose other input is as large as the output, as a table of that input's 256 values
    (lut_common): `value(first, second)`, the kernel's arithmetic for one pair of stored
    inputs, evaluated at compile time. None for any other op, which keeps its kernel."""
    a, b, out = (graph.tensor(t) for t in (*op.inputs, op.outputs[0]))
    if a.dtype != b.dtype:
        return None  # the kernel's lowering says why
    for source, (var, const) in enumerate(((a, b), (b, a))):
        if var.is_const or not const.is_const or var.num_elements != out.num_elements:
            continue
        if var.quant is None or out.quant is None:
            continue
        values = np.unique(np.asarray(const.data))
        if values.size != 1:
            continue
        c = int(values[0])

        def table(v: int, c: int = c, source: int = source) -> int:
            return value(v, c) if source == 0 else value(c, v)

        return lut8(graph, op, table, source)
    return None


def scaled_inputs(a: Tensor, b: Tensor, real1: float, real2: float) -> dict[str, int]:
    """The input fields of the ops that bring both inputs to a common scale first: their
    offsets, and the factors (ADD's scheme: each scale over twice the larger one) as Q31
    multipliers and shifts."""
    m1, s1 = quant.quantize_multiplier(real1)
    m2, s2 = quant.quantize_multiplier(real2)
    return {
        "input1_offset": -a.zero_point,
        "input1_multiplier": m1,
        "input1_shift": s1,
        "input2_offset": -b.zero_point,
        "input2_multiplier": m2,
        "input2_shift": s2,
    }


def wrap_int32(values: np.ndarray) -> np.ndarray:
    """Integers reduced to int32 as two's complement arithmetic on the device leaves them."""
    return values.astype(np.int64).astype(np.uint32).astype(np.int32)


def fold_binary(fn: Callable[..., np.ndarray | None], fused_activation: bool = False) -> Fold:
    """A fold computing `fn` on the op's inputs when all are constant and not quantised
    (int8 stays with the kernels: its arithmetic is theirs). `fn` may return None to leave
    a case (a zero divisor) to the kernel. Integer arithmetic wraps as on the device."""

    def fold(graph: Graph, op: Op) -> list[np.ndarray] | None:
        values = const_inputs(graph, op)
        tensors = [graph.tensors[t] for t in [*op.inputs, *op.outputs] if t is not None]
        if values is None or any(t.quant is not None for t in tensors):
            return None
        if any(v.dtype.kind not in "fib" for v in values):
            return None
        with np.errstate(all="ignore"):
            result = fn(*values)
            if result is None:
                return None
            act = activation(op)
            if fused_activation and act != quant.ACT_NONE:
                dtype = graph.tensors[op.outputs[0]].dtype
                lo, hi = activation_range(dtype, act, op.describe())
                result = np.clip(result, np.array(lo, result.dtype), np.array(hi, result.dtype))
        return [result]

    return fold


def broadcast_strides(graph: Graph, op: Op, t: Tensor, out: Tensor) -> list[int]:
    """Element strides of `t` along each of the output's four dims, 0 where broadcast."""
    shape, want = shape4(t), shape4(out)
    strides, step = [0, 0, 0, 0], 1
    for d in range(3, -1, -1):
        if shape[d] not in (1, want[d]):
            raise op_error(
                graph, op, f"shape {list(t.shape)} does not broadcast to {list(out.shape)}", t.index
            )
        strides[d] = step if shape[d] > 1 else 0
        step *= shape[d]
    return strides


# Bits of struct tinyaot_compare_params's truth table: which classes of an element pair
# (a < b, a == b, a > b, unordered) make the comparison true.
LESS, EQUAL, GREATER, UNORDERED = 1, 2, 4, 8


def pick(name: str, select: Callable[[np.ndarray, np.ndarray], np.ndarray]) -> OpDef:
    """MAXIMUM or MINIMUM: `select(a, b)` is where TFLite keeps a (a > b, or a < b)."""

    def lower(graph: Graph, op: Op) -> KernelCall:
        if graph.tensor(op.inputs[0]).dtype == DType.INT8:
            table = constant_table(graph, op, lambda x, y: x if select(x, y) else y)
            if table is not None:
                return table
        return plain(graph, op, name.lower())

    return OpDef(
        name,
        ("int8", "float32", "int32"),
        lower,
        "broadcasting up to 4-D; int8 compares stored values, as TFLite Micro (with a constant of "
        "one value: a table)",
        inputs=(2, 2),
        # TFLite's a > b ? a : b, whose NaN handling np.maximum would not keep.
        fold=fold_binary(lambda a, b: np.where(select(a, b), a, b)),
    )


# The input dtypes TFLite Micro compares; EQUAL and NOT_EQUAL take bool too.
COMPARED = ("int8", "float32", "int32")


def comparison(name: str, truth: int, fn: Callable[..., np.ndarray], bools: bool = False) -> OpDef:
    """The OpDef of one of the six comparisons: one shared kernel per input dtype, told
    the op by `truth`."""
    dtypes = COMPARED + (("bool",) if bools else ())

    def lower(graph: Graph, op: Op) -> KernelCall:
        dtype, a, b, out, _, _ = binary_io(graph, op)
        if dtype != DType.INT8:
            return call(
                graph,
                op,
                f"tinyaot_compare_{SUFFIX[dtype]}",
                "struct tinyaot_compare_params",
                {"truth": truth},
                "tinyaot/compare.h",
            )
        require_quant(graph, op, [a.index, b.index])
        # ComparisonsPrepare: each input's own scale as the multiplier, after 8 bits of
        # left shift, so that the two are compared on one real-valued scale.
        fields = {"truth": truth, "left_shift": 8}
        fields.update(scaled_inputs(a, b, float(a.scale), float(b.scale)))
        return call(
            graph,
            op,
            "tinyaot_compare_s8",
            "struct tinyaot_compare_s8_params",
            fields,
            "tinyaot/compare.h",
        )

    return OpDef(
        name,
        dtypes,
        lower,
        "broadcasting up to 4-D; int8 inputs on a common scale, as TFLite Micro",
        inputs=(2, 2),
        converts=tuple((d, "bool") for d in dtypes),
        fold=fold_binary(fn),
    )
