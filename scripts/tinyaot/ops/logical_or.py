"""LOGICAL_OR with NumPy-style broadcasting, on bool tensors."""

from __future__ import annotations

import numpy as np

from ..ir import Graph, Op
from ..lowering import KernelCall, OpDef
from .binary_common import call, fold_binary


def lower(graph: Graph, op: Op) -> KernelCall:
    return call(
        graph, op, "tinyaot_logical_or", "struct tinyaot_logical_params", header="tinyaot/compare.h"
    )


OP = OpDef(
    "LOGICAL_OR",
    ("bool",),
    lower,
    "broadcasting up to 4-D",
    inputs=(2, 2),
    fold=fold_binary(np.logical_or),
)
