"""SignalEnergy: re^2 + im^2 of int16 complex bins start_index..end_index - 1 as uint32
(TFLM's signal/src/energy.cc). TFLM leaves the other bins as the arena held them; here they
are 0."""

from __future__ import annotations

from ..ir import DType, Graph, Op
from ..lowering import KernelCall, OpDef, op_error
from . import signal_common as sc


def lower(graph: Graph, op: Op) -> KernelCall:
    inp, out = sc.tensors(graph, op, (DType.INT16,), (DType.UINT32,))
    opts = sc.options(graph, op, "start_index", "end_index")
    sc.require_rank(graph, op, inp, 1)
    sc.require_rank(graph, op, out, 1)
    size = out.num_elements
    if inp.num_elements != 2 * size:
        raise op_error(graph, op, "the input must hold one complex value per output", inp.index)
    start, end = opts["start_index"], opts["end_index"]
    if not 0 <= start <= end <= size:
        raise op_error(graph, op, f"bins {start} to {end}; the spectrum has {size}")
    return sc.call(
        graph,
        op,
        "tinyaot_signal_energy_s16",
        "struct tinyaot_signal_energy_params",
        {"size": size, "start": start, "end": end},
    )


OP = OpDef(
    "SignalEnergy",
    ("int16",),
    lower,
    "CUSTOM op (audio front end): int16 complex -> uint32; bins outside the range are 0",
    converts=(("int16", "uint32"),),
    custom=True,
)
