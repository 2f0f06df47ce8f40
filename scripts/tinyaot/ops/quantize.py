"""QUANTIZE: float32 to int8 or int16, and requantisation between int8, uint8, int16 and
int32 where TFLite Micro has it.

TFLite Micro has no float32 -> uint8 QUANTIZE (its invoke fails), so neither has this."""

from __future__ import annotations

from .. import inplace, quant
from ..fixedpoint import mbqm
from ..ir import DType, Graph, Op
from ..lowering import KernelCall, OpDef, TensorArg, op_error, require_quant
from .lut_common import lut8

SUFFIX = {DType.INT8: "s8", DType.INT16: "s16", DType.INT32: "i32"}


def lower(graph: Graph, op: Op) -> KernelCall:
    inp, out = graph.tensor(op.inputs[0]), graph.tensor(op.outputs[0])
    if inp.num_elements != out.num_elements:
        raise op_error(graph, op, "output size differs from input size", out.index)
    require_quant(graph, op, [out.index])
    args = [TensorArg(inp.index), TensorArg(out.index, writable=True)]
    if inp.dtype == DType.FLOAT32:
        # AffineQuantize divides by the scale as a float; emitted as that float.
        params = {
            "size": inp.num_elements,
            "scale": quant.f32(out.scale),
            "zero_point": out.zero_point,
        }
        return KernelCall(
            "tinyaot_quantize_f32" + ("_s16" if out.dtype == DType.INT16 else ""),
            "tinyaot/quantize.h",
            "struct tinyaot_quantize_f32_params",
            params,
            args,
            inplace=inplace.unary(inp, out),
        )
    require_quant(graph, op, [inp.index])
    # PrepareQuantizeReference: input scale / output scale in double; then Requantize, whose
    # xor-0x80 shortcut for int8 <-> uint8 gives what its general formula gives.
    mult, shift = quant.quantize_multiplier(float(inp.scale) / float(out.scale))
    if inp.dtype.size == out.dtype.size == 1:
        return lut8(graph, op, lambda v: mbqm(v - inp.zero_point, mult, shift) + out.zero_point)
    params = {
        "size": inp.num_elements,
        "input_zero_point": inp.zero_point,
        "output_zero_point": out.zero_point,
        "multiplier": mult,
        "shift": shift,
    }
    return KernelCall(
        f"tinyaot_requantize_{SUFFIX[inp.dtype]}_{SUFFIX[out.dtype]}",
        "tinyaot/quantize.h",
        "struct tinyaot_requantize_params",
        params,
        args,
        inplace=inplace.unary(inp, out),
    )


OP = OpDef(
    "QUANTIZE",
    ("float32", "int8", "uint8", "int16", "int32"),
    lower,
    "per-tensor output; 8-bit to 8-bit as a 256-byte table",
    converts=(
        ("float32", "int8"),
        ("float32", "int16"),
        ("int8", "int8"),
        ("int8", "uint8"),
        ("uint8", "int8"),
        ("int8", "int16"),
        ("int16", "int8"),
        ("int16", "int16"),
        ("int16", "int32"),
        ("int32", "int16"),
    ),
)
