"""SignalFilterBankSpectralSubtraction: a running noise estimate per uint32 channel, subtracted
from it with a floor (TFLM's signal/src/filter_bank_spectral_subtraction.cc); the second
output is the estimate after the update.

The estimate is state TFLM keeps in a persistent buffer, zeroed at Prepare and by the
interpreter's reset: here a variable tensor in the model's state buffer (state.py), zero
after `<name>_reset()`, so it lasts from one invocation to the next outside the arena.
"""

from __future__ import annotations

from ..ir import DType, Graph, Op, Tensor
from ..lowering import STATE_OPTION, KernelCall, OpDef, TensorArg, op_error
from . import signal_common as sc

KEYS = (
    "alternate_one_minus_smoothing",
    "alternate_smoothing",
    "clamping",
    "min_signal_remaining",
    "num_channels",
    "one_minus_smoothing",
    "smoothing",
    "smoothing_bits",
    "spectral_subtraction_bits",
)


def state(graph: Graph, op: Op) -> int | None:
    """The noise estimate's variable tensor, shaped as the op's input (None when the op is
    malformed: lowering then says what is wrong)."""
    if len(op.inputs) != 1 or op.inputs[0] is None:
        return None
    inp = graph.tensor(op.inputs[0])
    graph.tensors.append(
        Tensor(
            len(graph.tensors),
            f"{op.kind} noise estimate (op {op.index})",
            DType.UINT32,
            (inp.num_elements,),
            variable=True,
        )
    )
    return len(graph.tensors) - 1


def lower(graph: Graph, op: Op) -> KernelCall:
    u32 = DType.UINT32
    inp, out, noise = sc.tensors(graph, op, (u32,), (u32, u32))
    opts = sc.options(graph, op, *KEYS)
    for t in (inp, out, noise):
        sc.require_rank(graph, op, t, 1)
    channels = opts["num_channels"]
    if (
        not 0 < channels <= inp.num_elements
        or out.num_elements < channels
        or noise.shape != (channels,)
    ):
        raise op_error(graph, op, f"num_channels {channels} does not fit the tensors", noise.index)
    for key in ("smoothing_bits", "spectral_subtraction_bits"):
        if not 0 <= opts[key] < 32:
            raise op_error(graph, op, f"{key} {opts[key]}; supported: 0 to 31")
    slot = op.options.get(STATE_OPTION)
    assert isinstance(slot, int), f"{op.describe()}: no state tensor"
    params = {k: opts[k] & 0xFFFFFFFF for k in KEYS if k not in ("clamping", "num_channels")}
    params.update(num_channels=channels, clamping=int(bool(opts["clamping"])))
    return KernelCall(
        "tinyaot_signal_subtract_u32",
        sc.HEADER,
        "struct tinyaot_signal_spectral_subtraction_params",
        params,  # type: ignore[arg-type]
        [
            TensorArg(inp.index),
            TensorArg(slot, writable=True),
            TensorArg(out.index, writable=True),
            TensorArg(noise.index, writable=True),
        ],
    )


OP = OpDef(
    "SignalFilterBankSpectralSubtraction",
    ("uint32",),
    lower,
    "CUSTOM op (audio front end): uint32; the noise estimate in the state buffer",
    outputs=(2, 2),
    converts=(("uint32", "uint32"),),
    custom=True,
    state=state,
)
