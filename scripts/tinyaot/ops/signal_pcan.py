"""SignalPCAN: per-channel automatic gain control of uint32 channels by their noise estimate
(TFLM's signal/src/pcan_argc_fixed.cc: the gain a quadratic per octave from the int16 gain
table, widened to uint32 with its sign, then the shrink function)."""

from __future__ import annotations

from ..ir import DType, Graph, Op
from ..lowering import KernelCall, OpDef, op_error
from . import signal_common as sc

# 4 * 32 - 6 + 3: the entries an estimate of 32 bits reads.
LUT_SIZE = 125


def lower(graph: Graph, op: Op) -> KernelCall:
    inp, noise, lut, out = sc.tensors(
        graph, op, (DType.UINT32, DType.UINT32, DType.INT16), (DType.UINT32,)
    )
    shift = sc.options(graph, op, "snr_shift")["snr_shift"]
    for t in (inp, noise, lut, out):
        sc.require_rank(graph, op, t, 1)
    if out.shape != inp.shape or noise.num_elements < inp.num_elements:
        raise op_error(graph, op, "input, noise estimate and output must be as long", noise.index)
    if lut.num_elements < LUT_SIZE:
        raise op_error(graph, op, f"the gain table must have {LUT_SIZE} entries", lut.index)
    if not 0 <= shift < 64:
        raise op_error(graph, op, f"snr_shift {shift}; supported: 0 to 63")
    return sc.call(
        graph,
        op,
        "tinyaot_signal_pcan_u32",
        "struct tinyaot_signal_pcan_params",
        {"num_channels": inp.num_elements, "snr_shift": shift},
    )


OP = OpDef(
    "SignalPCAN",
    ("uint32",),
    lower,
    "CUSTOM op (audio front end): uint32 channels, uint32 noise estimate, int16 gain table",
    inputs=(3, 3),
    converts=(("uint32", "uint32"),),
    custom=True,
)
