"""LOGICAL_NOT: bool, on the device or folded when the input is constant."""

from __future__ import annotations

import numpy as np

from ..ir import Graph, Op
from ..lowering import KernelCall, OpDef, elementwise_io
from .unary_common import fold_unary, size_call


def lower(graph: Graph, op: Op) -> KernelCall:
    _, inp, out, _ = elementwise_io(graph, op)
    return size_call(
        inp, out, "tinyaot_logical_not_bool", "tinyaot/unary.h", "struct tinyaot_unary_bool_params"
    )


OP = OpDef("LOGICAL_NOT", ("bool",), lower, "", fold=fold_unary(lambda x, _: np.logical_not(x)))
