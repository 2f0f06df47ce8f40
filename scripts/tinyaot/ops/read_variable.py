"""READ_VARIABLE: a copy of the resource variable's bytes from the state buffer (state.py), which
the compiler drops for a view of the state where nothing writes the variable before the value's
last use (compiler._read_in_place)."""

from __future__ import annotations

from ..ir import Graph, Op
from ..lowering import ANY_DTYPE, KernelCall, OpDef, TensorArg


def state_copy(graph: Graph, source: int, dest: int) -> KernelCall:
    """Bytes of tensor source into tensor dest (one of them a state slot)."""
    return KernelCall(
        "tinyaot_state_copy",
        "tinyaot/state.h",
        "struct tinyaot_state_copy_params",
        {"size": graph.tensors[dest].nbytes},
        [TensorArg(source), TensorArg(dest, writable=True)],
    )


def lower(graph: Graph, op: Op) -> KernelCall:
    # state.py made input 0 the variable's slot and checked the sizes.
    assert op.inputs[0] is not None and graph.tensors[op.inputs[0]].variable
    return state_copy(graph, op.inputs[0], op.outputs[0])


OP = OpDef(
    "READ_VARIABLE",
    ANY_DTYPE,
    lower,
    "resource variables in the state buffer (not the arena); the state as TFLite Micro keeps it",
)
