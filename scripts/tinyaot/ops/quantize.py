"""QUANTIZE: float32 to int8, and requantisation between int8 and uint8.

TFLite Micro has no float32 -> uint8 QUANTIZE (its invoke fails), so neither has this."""

from __future__ import annotations

from .. import inplace, quant
from ..fixedpoint import mbqm
from ..ir import DType, Graph, Op
from ..lowering import KernelCall, OpDef, TensorArg, op_error, require_quant
from .lut_common import lut8


def lower(graph: Graph, op: Op) -> KernelCall:
    inp, out = graph.tensor(op.inputs[0]), graph.tensor(op.outputs[0])
    if inp.num_elements != out.num_elements:
        raise op_error(graph, op, "output size differs from input size", out.index)
    require_quant(graph, op, [out.index])
    if inp.dtype == DType.FLOAT32:
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
            [TensorArg(inp.index), TensorArg(out.index, writable=True)],
            inplace=inplace.unary(inp, out),
        )
    require_quant(graph, op, [inp.index])
    # PrepareQuantizeReference: input scale / output scale in double; then Requantize, whose
    # xor-0x80 shortcut for int8 <-> uint8 gives what its general formula gives.
    mult, shift = quant.quantize_multiplier(float(inp.scale) / float(out.scale))
    return lut8(graph, op, lambda v: mbqm(v - inp.zero_point, mult, shift) + out.zero_point)


OP = OpDef(
    "QUANTIZE",
    ("float32", "int8", "uint8"),
    lower,
    "per-tensor output; 8-bit to 8-bit as a 256-byte table",
    converts=(
        ("float32", "int8"),
        ("int8", "int8"),
        ("int8", "uint8"),
        ("uint8", "int8"),
    ),
)
