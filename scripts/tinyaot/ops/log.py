"""LOG: float32, the one dtype TFLite Micro's kernel takes."""

from __future__ import annotations

from ..ir import Graph, Op
from ..lowering import KernelCall, OpDef, elementwise_io
from .unary_common import f32_call


def lower(graph: Graph, op: Op) -> KernelCall:
    _, inp, out, _ = elementwise_io(graph, op)
    return f32_call(inp, out, "log")


OP = OpDef("LOG", ("float32",), lower, "float32 only, as in TFLite Micro")
