"""SignalFilterBankLog: the natural log of each uint32 channel, scaled and saturated to
int16 (TFLM's signal/src/log.cc). Its correction table (log2(1 + x) - x at 129 points in
Q16) is computed here; it equals TFLM's kLogLut entry for entry."""

from __future__ import annotations

import math

import numpy as np

from ..ir import DType, Graph, Op
from ..lowering import ConstArray, KernelCall, OpDef, op_error
from . import signal_common as sc


def log_lut() -> np.ndarray:
    values = [round(65536 * (math.log2(1 + i / 128) - i / 128)) for i in range(129)]
    return np.array([*values, 0], dtype=np.uint16)


def lower(graph: Graph, op: Op) -> KernelCall:
    inp, out = sc.tensors(graph, op, (DType.UINT32,), (DType.INT16,))
    opts = sc.options(graph, op, "input_correction_bits", "output_scale")
    sc.require_rank(graph, op, inp, 1)
    if out.shape != inp.shape:
        raise op_error(graph, op, "the output must have the input's shape", out.index)
    bits = opts["input_correction_bits"]
    if not 0 <= bits < 32:
        raise op_error(graph, op, f"input_correction_bits {bits}; supported: 0 to 31")
    params = {
        "num_channels": inp.num_elements,
        "output_scale": opts["output_scale"] & 0xFFFFFFFF,
        "correction_bits": bits,
        "lut": ConstArray("uint16_t", log_lut()),
    }
    return sc.call(
        graph,
        op,
        "tinyaot_signal_filter_bank_log_u32",
        "struct tinyaot_signal_filter_bank_log_params",
        params,  # type: ignore[arg-type]
    )


OP = OpDef(
    "SignalFilterBankLog",
    ("uint32",),
    lower,
    "CUSTOM op (audio front end): uint32 -> int16",
    converts=(("uint32", "int16"),),
    custom=True,
)
