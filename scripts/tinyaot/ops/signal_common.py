"""What TFLite Micro's signal library ops (the audio front end: SignalWindow, SignalRfft,
SignalFilterBank, ...) share: their flexbuffer options and their tensor checks.

Each op's Init reads its options from a flexbuffer map in the custom options, by position
in the map's keys sorted alphabetically (FlexbufferWrapper::ElementAsInt32), which is the
value under the key's name. The kernels are crt/src/signal_*.c (tinyaot/signal.h).
"""

from __future__ import annotations

from flatbuffers import flexbuffers

from ..ir import DType, Graph, Op, Tensor
from ..lowering import KernelCall, TensorArg, op_error

HEADER = "tinyaot/signal.h"


def options(graph: Graph, op: Op, *keys: str) -> dict[str, int]:
    """The named options as Init reads them (ElementAsInt32: a bool or a float as an int)."""
    raw = op.options.get("custom_options", b"")
    assert isinstance(raw, bytes)
    try:
        m = flexbuffers.Loads(raw) if raw else {}
    except Exception as exc:  # noqa: BLE001 - any decoding failure of damaged bytes
        raise op_error(graph, op, f"its custom options are not a flexbuffer ({exc})") from None
    if not isinstance(m, dict):
        raise op_error(graph, op, "its custom options are not a flexbuffer map")
    out = {}
    for key in keys:
        v = m.get(key)
        if not isinstance(v, bool | int | float):
            raise op_error(graph, op, f"option {key} is missing or not a number")
        out[key] = int(v)
    return out


def tensors(
    graph: Graph, op: Op, inputs: tuple[DType, ...], outputs: tuple[DType, ...]
) -> list[Tensor]:
    """The op's inputs then outputs, each checked against its dtype (TFLM's Prepare checks
    every one)."""
    found = [graph.tensor(t) for t in op.inputs] + [graph.tensors[t] for t in op.outputs]
    for t, want in zip(found, inputs + outputs, strict=True):
        if t.dtype != want:
            raise op_error(graph, op, f"dtype {t.dtype.short}; supported: {want.short}", t.index)
    return found


def require_rank(graph: Graph, op: Op, t: Tensor, rank: int) -> None:
    if len(t.shape) != rank:
        raise op_error(graph, op, f"shape {list(t.shape)}; supported: rank {rank}", t.index)


def require_const(graph: Graph, op: Op, t: Tensor, what: str) -> None:
    if not t.is_const:
        raise op_error(graph, op, f"the {what} must be constant", t.index)


def call(
    graph: Graph, op: Op, function: str, params_type: str, params: dict, writes: int = 1
) -> KernelCall:
    """The kernel on the op's inputs and outputs in their order (the last `writes` of them
    written)."""
    ts = [*op.inputs, *op.outputs]
    args = [TensorArg(t, writable=k >= len(ts) - writes) for k, t in enumerate(ts)]  # type: ignore[arg-type]
    return KernelCall(function, HEADER, params_type, params, args)  # type: ignore[arg-type]
