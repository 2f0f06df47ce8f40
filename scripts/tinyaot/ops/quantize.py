"""QUANTIZE: float32 -> int8, and int8 -> int8 requantisation."""

from __future__ import annotations

from .. import inplace, quant
from ..ir import DType, Graph, Op
from ..lowering import KernelCall, OpDef, TensorArg, count_io, op_error, require_quant


def lower(graph: Graph, op: Op) -> KernelCall:
    count_io(graph, op, (1, 1))
    inp, out = graph.tensor(op.inputs[0]), graph.tensor(op.outputs[0])
    kinds = (inp.dtype, out.dtype)
    if kinds not in ((DType.FLOAT32, DType.INT8), (DType.INT8, DType.INT8)):
        raise op_error(
            graph,
            op,
            f"{inp.dtype.short} -> {out.dtype.short} is not supported; "
            "supported: float32 -> int8, int8 -> int8",
            out.index,
        )
    if inp.num_elements != out.num_elements:
        raise op_error(graph, op, "output size differs from input size", out.index)
    args = [TensorArg(inp.index), TensorArg(out.index, writable=True)]
    if inp.dtype == DType.FLOAT32:
        require_quant(graph, op, [out.index])
        # AffineQuantize divides by the scale as a float; emitted as that float.
        params = {
            "size": inp.num_elements,
            "scale": quant.f32(out.scale),
            "zero_point": out.zero_point,
        }
        return KernelCall(
            "tinyaot_quantize_f32",
            "tinyaot/quantize.h",
            "struct tinyaot_quantize_f32_params",
            params,
            args,
            inplace=inplace.unary(inp, out),
        )
    require_quant(graph, op, [inp.index, out.index])
    # PrepareQuantizeReference: input scale / output scale in double.
    mult, shift = quant.quantize_multiplier(float(inp.scale) / float(out.scale))
    params = {
        "size": inp.num_elements,
        "input_zero_point": inp.zero_point,
        "output_zero_point": out.zero_point,
        "multiplier": mult,
        "shift": shift,
    }
    return KernelCall(
        "tinyaot_quantize_s8",
        "tinyaot/quantize.h",
        "struct tinyaot_quantize_s8_params",
        params,
        args,
        inplace=inplace.unary(inp, out),
    )


OP = OpDef(
    "QUANTIZE",
    ("float32", "int8"),
    lower,
    "float32 -> int8, int8 -> int8 (requantise); per-tensor output",
)
