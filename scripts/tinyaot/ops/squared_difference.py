"""SQUARED_DIFFERENCE with NumPy-style broadcasting: int8, float32 and int32."""

from __future__ import annotations

from .. import quant
from ..ir import DType, Graph, Op
from ..lowering import KernelCall, OpDef, require_quant
from .binary_common import call, common_scale, fold_binary, plain

# TFLite's: 255^2 * 2^(2 * 7) still fits an int32 once squared.
LEFT_SHIFT = 7


def lower(graph: Graph, op: Op) -> KernelCall:
    a, b, out = (graph.tensor(t) for t in (*op.inputs, op.outputs[0]))
    if a.dtype != DType.INT8:
        return plain(graph, op, "squared_difference")
    require_quant(graph, op, [a.index, b.index, out.index])
    # PrepareQuantized, in double: the inputs on ADD's common scale, the squared difference
    # back by (twice the larger scale)^2 / (2^14 * output scale).
    twice_max, fields = common_scale(a, b)
    denominator = float(quant.f32((1 << (2 * LEFT_SHIFT)) * float(out.scale)))
    mo, so = quant.quantize_multiplier(twice_max * twice_max / denominator)
    fields.update(left_shift=LEFT_SHIFT, output_offset=out.zero_point)
    fields.update(output_multiplier=mo, output_shift=so)
    return call(
        graph,
        op,
        "tinyaot_squared_difference_s8",
        "struct tinyaot_squared_difference_s8_params",
        fields,
    )


OP = OpDef(
    "SQUARED_DIFFERENCE",
    ("int8", "float32", "int32"),
    lower,
    "broadcasting up to 4-D",
    inputs=(2, 2),
    fold=fold_binary(lambda a, b: (a - b) * (a - b)),
)
