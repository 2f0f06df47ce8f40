"""DEQUANTIZE: int8, uint8 or int16 to float32."""

from __future__ import annotations

import numpy as np

from .. import inplace, quant
from ..ir import DType, Graph, Op
from ..lowering import ByFpu, ConstArray, KernelCall, OpDef, TensorArg, op_error, require_quant
from .lut_common import FLOAT_TABLE_MIN_ELEMENTS

SUFFIX = {DType.INT8: "s8", DType.UINT8: "u8", DType.INT16: "s16"}


def table(dtype: DType, zero_point: int, scale: float) -> np.ndarray:
    """Each byte's float, indexed by the byte as unsigned: the kernel's product in float32,
    (value - zero point) rounded to float and multiplied by the float scale."""
    byte = np.arange(256, dtype=np.int64)
    values = byte.astype(np.uint8).view(np.int8) if dtype == DType.INT8 else byte
    return np.float32(scale) * (values.astype(np.int64) - zero_point).astype(np.float32)


def lower(graph: Graph, op: Op) -> KernelCall:
    inp, out = graph.tensor(op.inputs[0]), graph.tensor(op.outputs[0])
    if inp.num_elements != out.num_elements:
        raise op_error(graph, op, "output size differs from input size", out.index)
    require_quant(graph, op, [inp.index])
    params = {
        "size": inp.num_elements,
        "zero_point": inp.zero_point,
        "scale": quant.f32(inp.scale),
        "table": None,
    }
    if inp.dtype != DType.INT16 and inp.num_elements >= FLOAT_TABLE_MIN_ELEMENTS:
        # An FPU's conversion and multiply are a few instructions: no table in its flash.
        floats = table(inp.dtype, inp.zero_point, float(params["scale"]))
        params["table"] = ByFpu(ConstArray("float", floats), None)
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
