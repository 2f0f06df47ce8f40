"""LOGICAL_NOT: bool, on the device or folded when the input is constant."""

from __future__ import annotations

import numpy as np

from .. import inplace
from ..ir import Graph, Op
from ..lowering import KernelCall, OpDef, const_inputs, elementwise_io


def lower(graph: Graph, op: Op) -> KernelCall:
    _, inp, out, args = elementwise_io(graph, op)
    return KernelCall(
        "tinyaot_logical_not_bool",
        "tinyaot/unary.h",
        "struct tinyaot_unary_bool_params",
        {"size": inp.num_elements},
        args,
        inplace=inplace.unary(inp, out),
    )


def fold(graph: Graph, op: Op) -> list[np.ndarray] | None:
    values = const_inputs(graph, op)
    return None if values is None else [np.logical_not(values[0])]


OP = OpDef("LOGICAL_NOT", ("bool",), lower, "", fold=fold)
