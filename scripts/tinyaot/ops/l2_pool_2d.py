"""L2_POOL_2D: float32 only, as TFLite Micro (it has no quantised L2 pool)."""

from __future__ import annotations

import dataclasses

from ..ir import Graph, Op
from ..lowering import KernelCall, OpDef
from ..pooling import pool_call


def lower(graph: Graph, op: Op) -> KernelCall:
    # The window, padding, activation and in-place rules are AVERAGE_POOL_2D's; only the
    # kernel and its header differ.
    call = pool_call(graph, op, "l2_pool")
    return dataclasses.replace(call, header="tinyaot/l2_pool.h")


OP = OpDef(
    "L2_POOL_2D",
    ("float32",),
    lower,
    "SAME/VALID, strides, fused activations; sqrt of the mean square over the clipped window",
)
