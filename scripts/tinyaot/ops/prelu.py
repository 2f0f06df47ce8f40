"""PRELU: int8 and float32, alpha broadcast against the input (usually constant, one per
channel)."""

from __future__ import annotations

import numpy as np

from .. import quant
from ..ir import DType, Graph, Op
from ..lowering import KernelCall, OpDef, require_quant
from .binary_common import call, fold_binary, plain


def lower(graph: Graph, op: Op) -> KernelCall:
    x, alpha, out = (graph.tensor(t) for t in (*op.inputs, op.outputs[0]))
    if x.dtype != DType.INT8:
        return plain(graph, op, "prelu")
    require_quant(graph, op, [x.index, alpha.index, out.index])
    # CalculatePreluParams, in double: one multiplier for inputs at or above the zero point,
    # one for the products with alpha.
    m1, s1 = quant.quantize_multiplier(float(x.scale) / float(out.scale))
    m2, s2 = quant.quantize_multiplier(float(x.scale) * float(alpha.scale) / float(out.scale))
    fields = {
        "input_offset": -x.zero_point,
        "alpha_offset": -alpha.zero_point,
        "output_offset": out.zero_point,
        "output_multiplier_1": m1,
        "output_shift_1": s1,
        "output_multiplier_2": m2,
        "output_shift_2": s2,
    }
    return call(graph, op, "tinyaot_prelu_s8", "struct tinyaot_prelu_s8_params", fields)


OP = OpDef(
    "PRELU",
    ("int8", "float32"),
    lower,
    "alpha broadcast up to 4-D",
    inputs=(2, 2),
    fold=fold_binary(lambda x, alpha: np.where(x >= 0, x, x * alpha)),
)
