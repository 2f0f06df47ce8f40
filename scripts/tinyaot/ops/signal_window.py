"""SignalWindow: int16 samples times an int16 window, shifted down and saturated (TFLM's
signal/src/window.cc), the window applied to each run of its length."""

from __future__ import annotations

from ..ir import DType, Graph, Op
from ..lowering import KernelCall, OpDef, op_error
from . import signal_common as sc


def lower(graph: Graph, op: Op) -> KernelCall:
    inp, window, out = sc.tensors(graph, op, (DType.INT16, DType.INT16), (DType.INT16,))
    shift = sc.options(graph, op, "shift")["shift"]
    sc.require_rank(graph, op, window, 1)
    if not inp.shape or len(out.shape) != len(inp.shape) or out.shape != inp.shape:
        raise op_error(graph, op, "the output must have the input's shape", out.index)
    if not window.num_elements or inp.num_elements % window.num_elements:
        raise op_error(graph, op, "the input is not a whole number of windows", window.index)
    if not 0 <= shift < 32:
        raise op_error(graph, op, f"shift {shift}; supported: 0 to 31")
    params = {"size": inp.num_elements, "window_size": window.num_elements, "shift": shift}
    return sc.call(
        graph, op, "tinyaot_signal_window_s16", "struct tinyaot_signal_window_params", params
    )


OP = OpDef(
    "SignalWindow",
    ("int16",),
    lower,
    "CUSTOM op (audio front end): int16 window, shift and saturation as TFLM",
    inputs=(2, 2),
    custom=True,
)
