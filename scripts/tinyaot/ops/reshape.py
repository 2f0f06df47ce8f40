"""RESHAPE: a view of its input; it costs neither code nor memory."""

from __future__ import annotations

from ..ir import Graph, Op
from ..lowering import ANY_DTYPE, Alias, OpDef, op_error


def lower(graph: Graph, op: Op) -> Alias:
    if not op.inputs or op.inputs[0] is None or len(op.outputs) != 1:
        raise op_error(graph, op, "expects an input tensor and one output")
    inp, out = graph.tensor(op.inputs[0]), graph.tensor(op.outputs[0])
    if inp.num_elements != out.num_elements or inp.dtype != out.dtype:
        raise op_error(
            graph,
            op,
            f"cannot view {inp.dtype.short}{list(inp.shape)} as {out.dtype.short}{list(out.shape)}",
            out.index,
        )
    if inp.quant != out.quant:
        raise op_error(graph, op, "input and output quantisation differ", out.index)
    return Alias(inp.index)


OP = OpDef("RESHAPE", ANY_DTYPE, lower, "aliased: no copy", inputs=(1, 2))
