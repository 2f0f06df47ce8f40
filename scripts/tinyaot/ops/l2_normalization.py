"""L2_NORMALIZATION along the last dim: int8 and float32.

TFLM's int8 kernel writes Q0.7 values (1/128 steps, zero point 0) whatever the output
tensor's quantisation says, and so does ours; the converter gives the output exactly that.
TFLM allows no fused activation here, and ranks up to 4.
"""

from __future__ import annotations

from .. import inplace
from ..ir import DType, Graph, Op
from ..lowering import KernelCall, OpDef, elementwise_io, op_error, require_quant


def lower(graph: Graph, op: Op) -> KernelCall:
    dtype, inp, out, args = elementwise_io(graph, op)
    if inp.shape != out.shape or not 1 <= len(inp.shape) <= 4:
        raise op_error(graph, op, "input and output must have one shape of rank 1 to 4", out.index)
    if int(op.options.get("FusedActivationFunction", 0)) != 0:
        raise op_error(graph, op, "a fused activation is not supported (nor by TFLM)")
    depth = inp.shape[-1]
    params: dict[str, int] = {"rows": inp.num_elements // depth, "depth": depth}
    kind = "f32"
    if dtype == DType.INT8:
        require_quant(graph, op, [inp.index, out.index])
        params["input_zero_point"] = inp.zero_point
        kind = "s8"
    return KernelCall(
        f"tinyaot_l2_normalization_{kind}",
        "tinyaot/l2_normalization.h",
        f"struct tinyaot_l2_normalization_{kind}_params",
        params,
        args,
        # Each row is read whole before any of it is written.
        inplace=inplace.unary(inp, out),
    )


OP = OpDef(
    "L2_NORMALIZATION",
    ("int8", "float32"),
    lower,
    "last dim, rank up to 4; int8 output in 1/128 steps as TFLM writes it",
)
