"""DEQUANTIZE: int8 -> float32."""

from __future__ import annotations

from .. import inplace, quant
from ..ir import DType, Graph, Op
from ..lowering import KernelCall, OpDef, TensorArg, count_io, op_error, require_quant


def lower(graph: Graph, op: Op) -> KernelCall:
    count_io(graph, op, (1, 1))
    inp, out = graph.tensor(op.inputs[0]), graph.tensor(op.outputs[0])
    if (inp.dtype, out.dtype) != (DType.INT8, DType.FLOAT32):
        raise op_error(
            graph,
            op,
            f"{inp.dtype.short} -> {out.dtype.short} is not supported; supported: int8 -> float32",
            inp.index,
        )
    if inp.num_elements != out.num_elements:
        raise op_error(graph, op, "output size differs from input size", out.index)
    require_quant(graph, op, [inp.index])
    params = {
        "size": inp.num_elements,
        "zero_point": inp.zero_point,
        "scale": quant.f32(inp.scale),
    }
    return KernelCall(
        "tinyaot_dequantize_s8",
        "tinyaot/dequantize.h",
        "struct tinyaot_dequantize_s8_params",
        params,
        [TensorArg(inp.index), TensorArg(out.index, writable=True)],
        inplace=inplace.unary(inp, out),
    )


OP = OpDef("DEQUANTIZE", ("int8",), lower, "int8 -> float32; per-tensor input")
