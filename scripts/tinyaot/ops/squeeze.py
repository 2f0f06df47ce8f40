"""SQUEEZE: a view of its input, like RESHAPE."""

from __future__ import annotations

from ..ir import Graph, Op
from ..lowering import ANY_DTYPE, op_error
from .movement_common import axis_of, view_op


def shape(graph: Graph, op: Op) -> list[int]:
    inp = graph.tensor(op.inputs[0])
    rank = len(inp.shape)
    dims = op.options.get("SqueezeDims")
    axes = [axis_of(graph, op, int(a), rank) for a in dims] if dims is not None else []
    if not axes:
        axes = [d for d in range(rank) if inp.shape[d] == 1]
    for a in axes:
        if inp.shape[a] != 1:
            raise op_error(graph, op, f"axis {a} has size {inp.shape[a]}, not 1")
    return [n for d, n in enumerate(inp.shape) if d not in axes]


OP = view_op("SQUEEZE", ANY_DTYPE, shape, "aliased: no copy")
