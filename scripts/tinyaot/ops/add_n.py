"""ADD_N: the element-wise sum of two or more same-shaped tensors; float32 and int8, the dtypes
TFLite Micro's kernel takes (it rejects int32)."""

from __future__ import annotations

from .. import quant
from ..fixedpoint import mbqm
from ..ir import DType, Graph, Op
from ..lowering import KernelCall, OpDef, TensorArg, TensorList, op_error, require_quant

LEFT_SHIFT = 20  # TFLM's kAddNIntegerShift
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
    # Prepare's multipliers: each input halved into Q20 (its scale over twice itself), the sum
    # scaled back to the output.
    twice = 2 * float(quant.f32(first.scale))
    in_mult, in_shift = quant.quantize_multiplier(float(quant.f32(first.scale)) / twice)
    out_mult, out_shift = quant.quantize_multiplier(
        twice / ((1 << LEFT_SHIFT) * float(quant.f32(out.scale)))
    )
    if out_shift > 0:
        raise op_error(
            graph,
            op,
            "output scale below 2^-19 of the input scale; TFLM needs a multiplier below one",
            out.index,
        )
    params = {
        "size": first.num_elements,
        "count": len(op.inputs),
        "input_offset": -first.zero_point,
        # TFLM's sum starts from the input offset rescaled, not from zero.
        "initial": mbqm(-first.zero_point << LEFT_SHIFT, in_mult, in_shift),
        "input_multiplier": in_mult,
        "input_shift": in_shift,
        "output_multiplier": out_mult,
        "output_shift": out_shift,
        "output_offset": out.zero_point,
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
