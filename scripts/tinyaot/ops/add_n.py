"""ADD_N: the element-wise sum of two or more same-shaped tensors; float32 and int8, the dtypes
TFLite Micro's kernel takes (it rejects int32)."""

from __future__ import annotations

from .. import quant
from ..ir import DType, Graph, Op
from ..lowering import KernelCall, OpDef, TensorArg, TensorList, op_error, require_quant
from .q20_common import q20_sum

MAX_INPUTS = 64  # a bound for the signature check; TFLM has none


def lower(graph: Graph, op: Op) -> KernelCall:
    first, out = graph.tensor(op.inputs[0]), graph.tensor(op.outputs[0])
    kinds = {t: (graph.tensor(t).dtype, graph.tensor(t).shape) for t in op.inputs}
    odd = [t for t in op.inputs if kinds[t] != kinds[op.inputs[0]]]
    if odd:
        dtype, shape = kinds[odd[0]]
        raise op_error(
            graph,
            op,
            f"input {dtype.short}{list(shape)} is not {first.dtype.short}{list(first.shape)} "
            "as the first; all inputs must match",
            odd[0],
        )
    if out.shape != first.shape:
        raise op_error(graph, op, f"output shape {list(out.shape)} is not the inputs'", out.index)
    args = [TensorList(tuple(op.inputs)), TensorArg(out.index, writable=True)]
    if first.dtype == DType.FLOAT32:
        params = {"size": first.num_elements, "count": len(op.inputs)}
        return KernelCall(
            "tinyaot_add_n_f32", "tinyaot/add_n.h", "struct tinyaot_add_n_f32_params", params, args
        )
    require_quant(graph, op, [*op.inputs, out.index])
    for t in op.inputs[1:]:
        other = graph.tensor(t)
        if (quant.f32(other.scale), other.zero_point) != (
            quant.f32(first.scale),
            first.zero_point,
        ):
            raise op_error(
                graph, op, "int8 inputs must share one scale and zero point (TFLM's rule)", t
            )
    params = {
        "size": first.num_elements,
        "count": len(op.inputs),
        "q": q20_sum(graph, op, first, out),
    }
    return KernelCall(
        "tinyaot_add_n_s8", "tinyaot/add_n.h", "struct tinyaot_add_n_s8_params", params, args
    )


OP = OpDef(
    "ADD_N",
    ("int8", "float32"),
    lower,
    "same-shaped inputs; int8 inputs sharing one quantisation; int32 not (TFLM rejects it)",
    inputs=(2, MAX_INPUTS),
)
