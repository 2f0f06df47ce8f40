"""SignalDelay: each row of int16 samples (the innermost dimension) delayed by delay_length
samples, as TFLM's delay.cc does with a circular buffer per row that starts with
delay_length zeros. The samples still to come out are state: a variable tensor of
rows x delay_length int16 in the state buffer, zero after reset as TFLM's DelayReset leaves it.
"""

from __future__ import annotations

from ..ir import DType, Graph, Op, Tensor
from ..lowering import STATE_OPTION, KernelCall, OpDef, TensorArg, op_error
from . import signal_common as sc


def _rows_and_delay(graph: Graph, op: Op) -> tuple[int, int, int]:
    inp = graph.tensor(op.inputs[0])
    delay = sc.options(graph, op, "delay_length")["delay_length"]
    frame = inp.shape[-1] if inp.shape else 0
    return (inp.num_elements // frame if frame else 0), frame, delay


def state(graph: Graph, op: Op) -> int | None:
    """The samples each row still owes the output (None without a delay or a row)."""
    if len(op.inputs) != 1 or op.inputs[0] is None:
        return None
    rows, _, delay = _rows_and_delay(graph, op)
    if rows <= 0 or delay <= 0:
        return None
    name = f"{op.kind} history (op {op.index})"
    graph.tensors.append(
        Tensor(len(graph.tensors), name, DType.INT16, (rows * delay,), variable=True)
    )
    return len(graph.tensors) - 1


def lower(graph: Graph, op: Op) -> KernelCall:
    inp, out = sc.tensors(graph, op, (DType.INT16,), (DType.INT16,))
    rows, frame, delay = _rows_and_delay(graph, op)
    if not frame or out.shape != inp.shape:
        raise op_error(
            graph, op, "the output must have the input's shape, rows of samples", out.index
        )
    if delay < 0:
        raise op_error(graph, op, f"delay_length {delay}; supported: 0 or more")
    history = op.options.get(STATE_OPTION)
    return KernelCall(
        "tinyaot_signal_delay_s16",
        sc.HEADER,
        "struct tinyaot_signal_delay_params",
        {"rows": rows, "frame_size": frame, "delay": delay},
        [
            TensorArg(inp.index),
            TensorArg(history, writable=True) if isinstance(history, int) else None,
            TensorArg(out.index, writable=True),
        ],
    )


OP = OpDef(
    "SignalDelay",
    ("int16",),
    lower,
    "CUSTOM op (audio front end): int16 rows delayed by delay_length samples; state buffer",
    custom=True,
    state=state,
)
