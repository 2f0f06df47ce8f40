"""SignalFftAutoScale: int16 samples shifted up as far as the largest magnitude allows, and
the shift as an int32 scalar (TFLM's signal/src/fft_auto_scale.cc, MaxAbs16's int16 maximum
included)."""

from __future__ import annotations

from ..ir import DType, Graph, Op
from ..lowering import KernelCall, OpDef, op_error
from . import signal_common as sc


def lower(graph: Graph, op: Op) -> KernelCall:
    inp, out, bits = sc.tensors(graph, op, (DType.INT16,), (DType.INT16, DType.INT32))
    sc.require_rank(graph, op, inp, 1)
    sc.require_rank(graph, op, bits, 0)
    if out.shape != inp.shape:
        raise op_error(graph, op, "the output must have the input's shape", out.index)
    return sc.call(
        graph,
        op,
        "tinyaot_signal_fft_auto_scale_s16",
        "struct tinyaot_signal_fft_auto_scale_params",
        {"size": inp.num_elements},
        writes=2,
    )


OP = OpDef(
    "SignalFftAutoScale",
    ("int16",),
    lower,
    "CUSTOM op (audio front end): int16, the scale as an int32 scalar",
    outputs=(2, 2),
    converts=(("int16", "int16"), ("int16", "int32")),
    custom=True,
)
