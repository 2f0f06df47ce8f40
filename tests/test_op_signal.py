"""TFLite Micro's signal library ops (the audio front end) against TFLite Micro: one model that
holds every op on inputs of its own, over a sequence of invocations (spectral subtraction
keeps state), and the corpus audio preprocessor over a sequence and after a reset."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
import tflite
import tflite_builder as tb
from detection_models import custom_options
from harness import tinyaot
from reference import MODELS
from test_state import build, check, run, runtime, tflm_sequence  # noqa: F401 - a fixture
from tinyaot import frontend
from tinyaot.compiler import Options, compile_graph
from tinyaot.errors import CompileError

I16, I32 = tflite.TensorType.INT16, tflite.TensorType.INT32
U32, U64 = tflite.TensorType.UINT32, tflite.TensorType.UINT64
PREPROCESSORS = [MODELS / f"tflm_audio_preprocessor_{d}.tflite" for d in ("int8", "float32")]
STEPS = 6


class Net:
    """A one-subgraph model of custom ops, built up tensor by tensor."""

    def __init__(self) -> None:
        self.tensors: list[tb.Tensor] = []
        self.buffers = [tb.Buffer()]
        self.ops: list[tb.Operator] = []
        self.codes: list[str] = []
        self.inputs: list[int] = []
        self.outputs: list[int] = []

    def tensor(self, shape: list[int], dtype: int, data: np.ndarray | None = None) -> int:
        buffer = 0
        if data is not None:
            self.buffers.append(tb.Buffer(np.ascontiguousarray(data).tobytes()))
            buffer = len(self.buffers) - 1
        self.tensors.append(tb.Tensor(f"t{len(self.tensors)}", shape, dtype, buffer))
        return len(self.tensors) - 1

    def input(self, shape: list[int], dtype: int) -> int:
        self.inputs.append(self.tensor(shape, dtype))
        return self.inputs[-1]

    def op(self, code: str, inputs: list[int], outputs: list[tuple[list[int], int]], **opts):
        if code not in self.codes:
            self.codes.append(code)
        outs = [self.tensor(shape, dtype) for shape, dtype in outputs]
        self.outputs += outs
        options = custom_options(opts)
        self.ops.append(tb.Operator(self.codes.index(code), inputs, outs, custom_options=options))

    def write(self, path: Path) -> Path:
        sg = tb.SubGraph(self.tensors, self.ops, self.inputs, self.outputs)
        codes = [tb.OpCode(tb.OPS.CUSTOM, c) for c in self.codes]
        path.write_bytes(tb.build(tb.Model([sg], codes, self.buffers)))
        return path


def every_op(rng: np.random.Generator) -> Net:
    """Each op (spectral subtraction with and without clamping, delay three ways) on its own graph
    inputs; tables random over their whole range, so every wrap-around TFLM has is taken."""
    n = Net()
    x = n.input([2, 16], I16)
    window = n.tensor([16], I16, rng.integers(-32768, 32768, 16).astype("<i2"))
    n.op("SignalWindow", [x, window], [([2, 16], I16)], shift=12)

    x = n.input([40], I16)
    n.op("SignalFftAutoScale", [x], [([40], I16), ([], I32)])

    # 48 samples padded to 64: the 32-point complex FFT takes radices 4, 4 and 2.
    x = n.input([2, 48], I16)
    n.op("SignalRfft", [x], [([2, 66], I16)], T=7, fft_length=64)

    x = n.input([48], I16)
    n.op("SignalEnergy", [x], [([24], U32)], start_index=0, end_index=24)

    channels = 4
    x = n.input([32], U32)
    widths = np.array([3, 5, 6, 4, 2], "<i2")
    starts = np.array([0, 3, 8, 14, 18], "<i2")
    wstarts = np.concatenate([[0], np.cumsum(widths)[:-1]]).astype("<i2")
    tables = [rng.integers(-32768, 32768, int(widths.sum())).astype("<i2") for _ in range(2)]
    ins = [x, *(n.tensor([len(t)], I16, t) for t in (*tables, starts, wstarts, widths))]
    n.op("SignalFilterBank", ins, [([channels], U64)], num_channels=channels)

    x, bits = n.input([8], U64), n.input([], I32)
    n.op("SignalFilterBankSquareRoot", [x, bits], [([8], U32)])

    x = n.input([6], U32)
    for clamping in (False, True):
        n.op(
            "SignalFilterBankSpectralSubtraction",
            [x],
            [([6], U32), ([6], U32)],
            alternate_one_minus_smoothing=15401,
            alternate_smoothing=983,
            clamping=clamping,
            min_signal_remaining=819,
            num_channels=6,
            one_minus_smoothing=15975,
            smoothing=409,
            smoothing_bits=10,
            spectral_subtraction_bits=14,
        )

    x, noise = n.input([10], U32), n.input([10], U32)
    lut = n.tensor([125], I16, rng.integers(-32768, 32768, 125).astype("<i2"))
    n.op("SignalPCAN", [x, noise, lut], [([10], U32)], snr_shift=6)

    x = n.input([10], U32)
    n.op("SignalFilterBankLog", [x], [([10], I16)], input_correction_bits=3, output_scale=64)
    n.op("SignalFilterBankLog", [x], [([10], I16)], input_correction_bits=0, output_scale=40000)

    # Rows of 5 samples delayed by more than a frame (the history spans invocations), by
    # less, and not at all.
    x = n.input([2, 5], I16)
    for delay in (7, 3, 0):
        n.op("SignalDelay", [x], [([2, 5], I16)], delay_length=delay)
    return n


def magnitudes(rng: np.random.Generator, shape: tuple[int, ...], dtype: str, bits: int):
    """Values whose magnitudes spread over 0..2**bits, the ends included."""
    top = rng.integers(0, bits + 1, size=shape)
    v = [int(rng.integers(0, 1 << int(t))) if t else 0 for t in np.ravel(top)]
    out = np.array(v, dtype=object).reshape(shape)
    if np.dtype(dtype).kind == "i":
        out = out * rng.choice([-1, 1], size=shape)
    info = np.iinfo(dtype)
    return np.clip(out, info.min, info.max).astype(dtype)


def every_op_inputs(rng: np.random.Generator, step: int) -> list[np.ndarray]:
    i16 = np.iinfo(np.int16)
    scale = np.array(magnitudes(rng, (40,), "int16", 15 - 2 * step))
    if step == 1:
        scale[7] = i16.min  # MaxAbs16's int16 maximum wraps here
    if step == 5:
        scale[:] = 0
    energy = rng.integers(i16.min, i16.max, 48, endpoint=True).astype(np.int16)
    energy[:4] = i16.min
    rfft = magnitudes(rng, (2, 48), "int16", 15 if step % 2 else 11)
    subtraction = magnitudes(rng, (6,), "uint32", 32 if step == 3 else 22)
    return [
        rng.integers(i16.min, i16.max, (2, 16), endpoint=True).astype(np.int16),
        scale,
        rfft,
        energy,
        magnitudes(rng, (32,), "uint32", 32),
        magnitudes(rng, (8,), "uint64", 64),
        np.array(step * 3, np.int32),
        subtraction,
        magnitudes(rng, (10,), "uint32", 32),
        magnitudes(rng, (10,), "uint32", 32),
        magnitudes(rng, (10,), "uint32", 32),
        rng.integers(i16.min, i16.max, (2, 5), endpoint=True).astype(np.int16),
    ]


def test_every_op_matches_tflm_over_a_sequence(tmp_path, runtime):  # noqa: F811
    rng = np.random.default_rng(3)
    model = every_op(rng).write(tmp_path / "signal.tflite")
    inputs = [every_op_inputs(rng, s) for s in range(STEPS)]
    want = tflm_sequence(model, inputs)
    # Spectral subtraction's noise estimate carries over: the same input twice differs.
    again = tflm_sequence(model, [inputs[2], inputs[2]])
    assert again[0][9].tobytes() != again[1][9].tobytes()
    exe = build(tmp_path, runtime, model)
    check(run(exe, "invoke", STEPS, inputs), want)


def frames(step: int) -> list[np.ndarray]:
    """30 ms of 16 kHz audio: silence, quiet noise, a tone in noise, full-scale noise."""
    rng = np.random.default_rng(step)
    t = np.arange(480) / 16000
    tone = 6000 * np.sin(2 * math.pi * (300 + 400 * step) * t)
    noise = rng.normal(0, [0, 30, 200, 12000, 500, 200][step], 480)
    x = np.clip(np.round(tone * (step in (2, 4, 5)) + noise), -32768, 32767)
    return [x.astype(np.int16).reshape(1, 480)]


@pytest.mark.parametrize("model", PREPROCESSORS, ids=["int8", "float32"])
def test_audio_preprocessor_sequence_and_reset(model, tmp_path, runtime):  # noqa: F811
    """The float32 one ends in a CAST and a MUL by a constant, which TFLM rounds as we do."""
    inputs = [frames(s) for s in range(STEPS)]
    want = tflm_sequence(model, inputs)
    assert len({w[0].tobytes() for w in want}) == STEPS
    exe = build(tmp_path, runtime, model)
    check(run(exe, "invoke", STEPS, inputs), want)
    check(run(exe, "run", STEPS, inputs), want)
    half = inputs[:3]
    check(run(exe, "reset", 2 * len(half), half + half), want[:3] + want[:3])


@pytest.mark.parametrize(
    ("opts", "message"),
    [
        ({"T": 7, "fft_length": 48}, "fft_length 48; supported: powers of two"),
        ({"T": 2, "fft_length": 64}, "only the int16 FFT is supported"),
    ],
)
def test_unsupported_fft_is_refused(opts, message, tmp_path):
    n = Net()
    x = n.input([48], I16)
    n.op("SignalRfft", [x], [([opts["fft_length"] + 2], I16)], **opts)
    done = tinyaot("compile", str(n.write(tmp_path / "fft.tflite")), "--output-dir", str(tmp_path))
    assert done.returncode == 2 and done.stderr.startswith("error: op 0 (SignalRfft)")
    assert message in done.stderr, done.stderr


def _one_op(tmp_path: Path, code: str, inputs, outputs, consts=None, **opts) -> Path:
    """A model of one op: `inputs` as (shape, dtype), constant where `consts` gives data."""
    n = Net()
    consts = consts or {}
    ins = [
        n.tensor(shape, dtype, consts[k]) if k in consts else n.input(shape, dtype)
        for k, (shape, dtype) in enumerate(inputs)
    ]
    n.op(code, ins, outputs, **opts)
    return n.write(tmp_path / "one.tflite")


def _table(*values: int) -> np.ndarray:
    return np.array(values, "<i2")


# What TFLM would read past an array or compute with an undefined shift stops the compile.
BAD = {
    "window_not_whole": (
        "SignalWindow",
        [([10], I16), ([4], I16)],
        [([10], I16)],
        {},
        {"shift": 12},
        "not a whole number of windows",
    ),
    "energy_past_the_end": (
        "SignalEnergy",
        [([8], I16)],
        [([4], U32)],
        {},
        {"start_index": 1, "end_index": 5},
        "bins 1 to 5; the spectrum has 4",
    ),
    "filter_bank_reads_past_the_energies": (
        "SignalFilterBank",
        [([4], U32)] + [([3], I16)] * 5,
        [([2], U64)],
        {
            1: _table(1, 1, 1),
            2: _table(1, 1, 1),
            3: _table(0, 1, 3),
            4: _table(0, 1, 2),
            5: _table(1, 1, 2),
        },
        {"num_channels": 2},
        "channel 2 reads outside the energies or the weights",
    ),
    "pcan_short_gain_table": (
        "SignalPCAN",
        [([4], U32), ([4], U32), ([124], I16)],
        [([4], U32)],
        {2: np.zeros(124, "<i2")},
        {"snr_shift": 6},
        "the gain table must have 125 entries",
    ),
    "log_correction_bits": (
        "SignalFilterBankLog",
        [([4], U32)],
        [([4], I16)],
        {},
        {"input_correction_bits": 32, "output_scale": 64},
        "input_correction_bits 32",
    ),
}


@pytest.mark.parametrize("case", BAD.values(), ids=BAD.keys())
def test_what_tflm_would_read_past_is_refused(case, tmp_path):
    code, inputs, outputs, consts, opts, message = case
    path = _one_op(tmp_path, code, inputs, outputs, consts, **opts)
    graph = frontend.load(path)
    with pytest.raises(CompileError, match=message):
        compile_graph(graph, Options("m"), path.name)
