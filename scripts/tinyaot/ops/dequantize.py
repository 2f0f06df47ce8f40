"""DEQUANTIZE: int8, uint8 or int16 to float32."""

from __future__ import annotations

from .. import inplace, quant
from ..ir import DType, Graph, Op
from ..lowering import KernelCall, OpDef, TensorArg, op_error, require_quant

SUFFIX = {DType.INT8: "s8", DType.UINT8: "u8", DType.INT16: "s16"}


def lower(graph: Graph, op: Op) -> KernelCall:
    inp, out = graph.tensor(op.inputs[0]), graph.tensor(op.outputs[0])
    if inp.num_elements != out.num_elements:
        raise op_error(graph, op, "output size differs from input size", out.index)
    require_quant(graph, op, [inp.index])
    params = {
        "size": inp.num_elements,
        "zero_point": inp.zero_point,
        "scale": quant.f32(inp.scale),
    }
    return KernelCall(
        "tinyaot_dequantize_" + SUFFIX[inp.dtype],
        "tinyaot/dequantize.h",
        "struct tinyaot_dequantize_params",
        params,
        [TensorArg(inp.index), TensorArg(out.index, writable=True)],
        inplace=inplace.unary(inp, out),
    )


OP = OpDef(
    "DEQUANTIZE",
    ("int8", "uint8", "int16"),
    lower,
    "per-tensor input",
    converts=(("int8", "float32"), ("uint8", "float32"), ("int16", "float32")),
)
