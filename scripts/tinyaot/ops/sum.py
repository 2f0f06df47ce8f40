"""SUM over constant axes: int8 and float32, MEAN's kernel without the division.

TFLM's int8 SUM is QuantizedMeanOrSum with compute_sum: MEAN's arithmetic with the input
to output scale ratio alone, no 1/count folded in. Its float SUM adds in input order from
zero, as MEAN's kernel does before it divides (by 1 here, which changes nothing).
"""

from __future__ import annotations

from .. import quant
from ..ir import DType, Graph, Op
from ..lowering import KernelCall, OpDef
from .reduce_common import mean_call


def lower(graph: Graph, op: Op) -> KernelCall:
    call = mean_call(graph, op)
    inp, out = graph.tensor(op.inputs[0]), graph.tensor(op.outputs[0])
    if inp.dtype == DType.FLOAT32:
        call.params["count"] = 1.0
    else:
        # PrepareMeanOrSumHelper's multiplier, used as it is.
        mult, shift = quant.quantize_multiplier(float(inp.scale) / float(out.scale))
        call.params["multiplier"], call.params["shift"] = mult, shift
    return call


OP = OpDef(
    "SUM",
    ("int8", "float32"),
    lower,
    "constant axes, keep_dims either way; int8 rescales to the output's quantisation",
    inputs=(2, 2),
)
