"""Element-wise ops on 8-bit data as a 256-entry table (crt tinyaot/lut.h).

An int8 or uint8 input has 256 possible values, so any element-wise op from it to an 8-bit
output is a table the compiler fills at compile time with the interpreter's arithmetic (the
integer steps of fixedpoint.py, in the order TFLite Micro's kernel takes them). The device
then does one load per element, whatever the op costs in the interpreter.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from .. import inplace
from ..ir import DType, Graph, Op, Tensor
from ..lowering import ConstArray, KernelCall, TensorArg, op_error, require_quant

BYTE_DTYPES = (DType.INT8, DType.UINT8)
# From this many elements on, cores without an FPU trade 1 KB of flash (QUANTIZE's keys,
# DEQUANTIZE's floats) for a soft-float conversion an element. Under it the conversion costs
# less than the table is worth: QUANTIZE's division is about 360 Cortex-M3 instructions an
# element against 45 by the keys (arm_kws_dnn_s' 250-element input took 90k of its 289k by the
# division); DEQUANTIZE's conversion and product some 60 against 5 by the table
# (slabs_ir_people_detector's last op, 1152 elements, 70456 instructions).
FLOAT_TABLE_MIN_ELEMENTS = 32


def byte_values(dtype: DType) -> list[int]:
    """The value of each byte 0..255 read as `dtype` (int8 or uint8), in byte order."""
    return [b - 256 if dtype == DType.INT8 and b >= 128 else b for b in range(256)]


def lut8(graph: Graph, op: Op, fn: Callable[[int], int], source: int = 0) -> KernelCall:
    """tinyaot_lut8 from fn: input value -> output value (saturated to the output dtype here).

    The input (op input `source`) and output must be quantised 8-bit tensors of the same size;
    fn computes with their scales and zero points, which it takes from the graph itself.
    """
    inp, out = graph.tensor(op.inputs[source]), graph.tensor(op.outputs[0])
    check_bytes(graph, op, inp, out)
    info = np.iinfo(out.dtype.numpy)
    table = [min(max(fn(v), int(info.min)), int(info.max)) & 0xFF for v in byte_values(inp.dtype)]
    return KernelCall(
        "tinyaot_lut8",
        "tinyaot/lut.h",
        "struct tinyaot_lut8_params",
        {"size": inp.num_elements, "table": ConstArray("uint8_t", np.asarray(table, np.uint8))},
        [TensorArg(inp.index), TensorArg(out.index, writable=True)],
        inplace=inplace.unary(inp, out),
    )


def check_bytes(graph: Graph, op: Op, inp: Tensor, out: Tensor) -> None:
    for t in (inp, out):
        if t.dtype not in BYTE_DTYPES:
            raise op_error(graph, op, f"expects int8 or uint8, not {t.dtype.short}", t.index)
    if inp.num_elements != out.num_elements:
        raise op_error(graph, op, "output size differs from input size", out.index)
    require_quant(graph, op, [inp.index, out.index])
