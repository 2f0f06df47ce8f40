"""ASSIGN_VARIABLE: the value's bytes copied into the resource variable's slot in the state
buffer (state.py)."""

from __future__ import annotations

from ..ir import Graph, Op
from ..lowering import ANY_DTYPE, KernelCall, OpDef
from .read_variable import state_copy


def lower(graph: Graph, op: Op) -> KernelCall:
    # state.py made input 0 the variable's slot and checked the sizes.
    assert op.inputs[0] is not None and op.inputs[1] is not None
    assert graph.tensors[op.inputs[0]].variable
    return state_copy(graph, op.inputs[1], op.inputs[0])


OP = OpDef(
    "ASSIGN_VARIABLE",
    ANY_DTYPE,
    lower,
    "a copy into the state buffer",
    inputs=(2, 2),
    outputs=(0, 0),
    data_input=1,
)
