"""MAX_POOL_2D: int8, int16 and float32."""

from __future__ import annotations

from ..ir import Graph, Op
from ..lowering import KernelCall, OpDef
from ..pooling import pool_call


def lower(graph: Graph, op: Op) -> KernelCall:
    return pool_call(graph, op, "max_pool")


OP = OpDef(
    "MAX_POOL_2D", ("int8", "int16", "float32"), lower, "SAME/VALID, strides, fused activations"
)
