"""SUB with NumPy-style broadcasting: int8, float32 and int32, fused activations."""

from __future__ import annotations

from .. import quant
from ..ir import DType, Graph, Op
from ..lowering import KernelCall, OpDef, require_quant
from .add import LEFT_SHIFT
from .binary_common import activation, call, common_scale, fold_binary, with_activation


def lower(graph: Graph, op: Op) -> KernelCall:
    a, b, out = (graph.tensor(t) for t in (*op.inputs, op.outputs[0]))
    if a.dtype != DType.INT8:
        return with_activation(graph, op, "sub")
    require_quant(graph, op, [a.index, b.index, out.index])
    # ADD's scheme, computed in double as ADD's Prepare: the installed TFLite Micro agrees
    # with that, not with the float arithmetic of CalculateOpDataSub's current source
    # (scales 0.06, 0.09 and 0.1 tell the two apart).
    twice_max, fields = common_scale(a, b)
    mo, shift = quant.quantize_multiplier(twice_max / ((1 << LEFT_SHIFT) * float(out.scale)))
    lo, hi = quant.activation_range_int8(activation(op), out, op.describe())
    fields.update(
        left_shift=LEFT_SHIFT,
        output_offset=out.zero_point,
        output_multiplier=mo,
        output_shift=shift,
        act_min=lo,
        act_max=hi,
    )
    return call(graph, op, "tinyaot_sub_s8", "struct tinyaot_add_s8_params", fields)


OP = OpDef(
    "SUB",
    ("int8", "float32", "int32"),
    lower,
    "broadcasting up to 4-D, fused activations",
    inputs=(2, 2),
    fold=fold_binary(lambda a, b: a - b, fused_activation=True),
)
