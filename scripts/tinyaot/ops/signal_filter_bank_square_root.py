"""SignalFilterBankSquareRoot: the integer square root of each uint64 channel (TFLM's Sqrt64,
rounded, with its 32-bit shortcut), shifted down by the FFT's run-time scale bits."""

from __future__ import annotations

from ..ir import DType, Graph, Op
from ..lowering import KernelCall, OpDef, op_error
from . import signal_common as sc


def lower(graph: Graph, op: Op) -> KernelCall:
    inp, bits, out = sc.tensors(graph, op, (DType.UINT64, DType.INT32), (DType.UINT32,))
    sc.require_rank(graph, op, inp, 1)
    sc.require_rank(graph, op, bits, 0)
    if out.shape != inp.shape:
        raise op_error(graph, op, "the output must have the input's shape", out.index)
    return sc.call(
        graph,
        op,
        "tinyaot_signal_sqrt_u64",
        "struct tinyaot_signal_square_root_params",
        {"num_channels": inp.num_elements},
    )


OP = OpDef(
    "SignalFilterBankSquareRoot",
    ("uint64",),
    lower,
    "CUSTOM op (audio front end): uint64 -> uint32, run-time int32 scale bits",
    inputs=(2, 2),
    converts=(("uint64", "uint32"),),
    custom=True,
)
