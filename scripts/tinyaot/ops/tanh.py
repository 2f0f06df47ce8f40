"""TANH: int8 as a table of gemmlowp's fixed-point tanh, int16 through TFLite's interpolated
sigmoid table, and float32."""

from __future__ import annotations

from ..fixedpoint import rdbpot
from ..ir import DType, Graph, Op
from ..lowering import KernelCall, OpDef, elementwise_io, require_quant
from .unary_common import Q4_INTEGER_BITS, f32_call, fixed_tanh, int16_sigmoid_call, q4_table

# The kernel writes tanh in steps of 1/128 (Q0.7) whatever the output tensor says.
OUTPUT_FRACTION_BITS = 7


def lower(graph: Graph, op: Op) -> KernelCall:
    dtype, inp, out, _ = elementwise_io(graph, op)
    if dtype == DType.FLOAT32:
        return f32_call(inp, out, "tanh")
    require_quant(graph, op, [inp.index, out.index])
    if dtype == DType.INT16:
        # TANH takes a power-of-two scale needing one more left shift than LOGISTIC's.
        return int16_sigmoid_call(graph, op, "tinyaot_tanh_s16", (0, 1))
    return q4_table(
        graph,
        op,
        inp,
        "tanh",
        lambda q: rdbpot(fixed_tanh(q, Q4_INTEGER_BITS), 31 - OUTPUT_FRACTION_BITS),
    )


OP = OpDef(
    "TANH",
    ("int8", "int16", "float32"),
    lower,
    "int8 output in steps of 1/128 around 0, as TFLite Micro writes it whatever its scale; "
    "int16 zero points 0, output scale 1/32768",
)
