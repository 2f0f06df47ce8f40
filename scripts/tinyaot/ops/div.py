"""DIV with NumPy-style broadcasting: int8, float32 and int32 (truncating), fused
activations.

An int8 divisor at its zero point gives what TFLite Micro gives on x86-64 (its reciprocal
of 0 and its shifts past 31 are undefined in C++; the kernel repeats what they do there).
An int32 zero divisor, which faults in TFLite Micro, gives 0."""

from __future__ import annotations

import numpy as np

from .. import quant
from ..ir import DType, Graph, Op
from ..lowering import KernelCall, OpDef, op_error, require_quant
from .binary_common import activation, call, fold_binary, with_activation, wrap_int32

# The int8 kernel's final right shift is recip_shift + headroom - output_shift, with
# recip_shift >= -1 and headroom >= 23 for int8 differences: at most this keeps it >= 0.
MAX_OUTPUT_SHIFT = 22


def lower(graph: Graph, op: Op) -> KernelCall:
    a, b, out = (graph.tensor(t) for t in (*op.inputs, op.outputs[0]))
    if a.dtype != DType.INT8:
        return with_activation(graph, op, "div")
    require_quant(graph, op, [a.index, b.index, out.index])
    # CalculateOpDataDiv: the three scales combined in float, widened for QuantizeMultiplier.
    sa, sb, so = np.float32(a.scale), np.float32(b.scale), np.float32(out.scale)
    mult, shift = quant.quantize_multiplier(float(sa / (sb * so)))
    if shift > MAX_OUTPUT_SHIFT:
        raise op_error(
            graph,
            op,
            f"scales {a.scale:g} / ({b.scale:g} * {out.scale:g}) give a rescaling factor "
            f"over 2^{MAX_OUTPUT_SHIFT}; supported: up to that",
            out.index,
        )
    lo, hi = quant.activation_range_int8(activation(op), out, op.describe())
    fields = {
        "input1_offset": -a.zero_point,
        "input2_offset": -b.zero_point,
        "output_offset": out.zero_point,
        "output_multiplier": mult,
        "output_shift": shift,
        "act_min": lo,
        "act_max": hi,
    }
    return call(graph, op, "tinyaot_div_s8", "struct tinyaot_div_s8_params", fields)


def divide(a: np.ndarray, b: np.ndarray) -> np.ndarray | None:
    """C++'s division: float as is; int32 truncating toward zero, wrapping INT32_MIN / -1,
    a zero divisor left to the kernel."""
    if a.dtype.kind == "f":
        return a / b
    if not np.all(b):
        return None
    a64, b64 = a.astype(np.int64), b.astype(np.int64)
    return wrap_int32(np.sign(a64) * np.sign(b64) * (np.abs(a64) // np.abs(b64)))


OP = OpDef(
    "DIV",
    ("int8", "float32", "int32"),
    lower,
    "broadcasting up to 4-D, fused activations",
    inputs=(2, 2),
    fold=fold_binary(divide, fused_activation=True),
)
