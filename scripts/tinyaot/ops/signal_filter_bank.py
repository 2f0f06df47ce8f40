"""SignalFilterBank: uint32 energies into num_channels uint64 mel channels, each bin's energy
weighted into one channel and unweighted into the next (TFLM's signal/src/filter_bank.cc,
int16 weights widened to uint64 with their sign as C++ widens them). The five tables must be
constant: the compiler checks that every index they produce is inside its array."""

from __future__ import annotations

from ..ir import DType, Graph, Op
from ..lowering import KernelCall, OpDef, op_error
from . import signal_common as sc


def lower(graph: Graph, op: Op) -> KernelCall:
    i16 = DType.INT16
    inp, weights, unweights, freq, wstart, widths, out = sc.tensors(
        graph, op, (DType.UINT32, i16, i16, i16, i16, i16), (DType.UINT64,)
    )
    channels = sc.options(graph, op, "num_channels")["num_channels"]
    for t in (inp, weights, unweights, freq, wstart, widths, out):
        sc.require_rank(graph, op, t, 1)
    for t, what in (
        (weights, "weights"),
        (unweights, "unweights"),
        (freq, "frequency starts"),
        (wstart, "weight starts"),
        (widths, "channel widths"),
    ):
        sc.require_const(graph, op, t, what)
    if channels <= 0 or out.num_elements != channels:
        raise op_error(
            graph, op, f"num_channels {channels} for {out.num_elements} outputs", out.index
        )
    for t in (freq, wstart, widths):
        if t.num_elements < channels + 1:
            raise op_error(
                graph, op, f"needs {channels + 1} values, one per channel and one more", t.index
            )
    for c in range(channels + 1):
        f, w, n = (int(t.data[c]) for t in (freq, wstart, widths))  # type: ignore[index]
        if (
            n < 0
            or f < 0
            or w < 0
            or f + n > inp.num_elements
            or w + n > min(weights.num_elements, unweights.num_elements)
        ):
            raise op_error(
                graph, op, f"channel {c} reads outside the energies or the weights", widths.index
            )
    return sc.call(
        graph,
        op,
        "tinyaot_signal_filter_bank_u32",
        "struct tinyaot_signal_filter_bank_params",
        {"num_channels": channels},
    )


OP = OpDef(
    "SignalFilterBank",
    ("uint32",),
    lower,
    "CUSTOM op (audio front end): uint32 -> uint64, constant int16 tables",
    inputs=(6, 6),
    converts=(("uint32", "uint64"),),
    custom=True,
)
