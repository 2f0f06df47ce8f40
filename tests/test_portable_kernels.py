"""The portable C kernels (`compile --no-fast-kernels`) against TFLite Micro, and the
quantisation variants the converter does not make by default.

Every other test compiles with the fast kernels wherever they are exact, which leaves the
portable int8 CONV_2D, DEPTHWISE_CONV_2D, FULLY_CONNECTED and ADD kernels unexercised on
the int8 models. Here the corpus models and small TensorFlow-built ones run with the fast
kernels off; the per-tensor convolution weights and per-channel fully connected weights run
both ways. float32 DEPTHWISE_CONV_2D (no shared model has one) is covered here too, and the
float32 kernels' channel groups and their remainders.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pytest
import tfmodels
from closeness import outputs_match
from harness import check_against_tflm, tinyaot
from opcheck import write_model
from reference import Reference, model_paths
from tfmodels import conv, dwconv
from tinyaot import cli, fast, frontend
from tinyaot.compiler import Options, compile_model

sys.path.insert(0, str(Path(__file__).resolve().parent / "cortex_m3"))
import runner as m3  # noqa: E402

PORTABLE = ("--no-fast-kernels",)


def kernels(gen: Path) -> set[str]:
    """The runtime kernels the generated model calls."""
    return set(re.findall(r"\b(tinyaot_\w+_(?:s8|f32))\(", (gen / "m.c").read_text()))


def test_switch_leaves_only_portable_kernels(tmp_path):
    """KWS uses every fast int8 kernel; the switch must remove them all, and restore the
    module setting for an in-process caller."""
    kws = next(p for p in model_paths() if p.stem == "mlperf_tiny_kws_dscnn_int8")
    fast_out = tinyaot("report", str(kws))
    portable_out = tinyaot("report", str(kws), *PORTABLE)
    assert fast_out.returncode == portable_out.returncode == 0
    assert {"tinyaot_conv_fast_s8", "tinyaot_dwconv_fast_s8"} <= set(
        re.findall(r"tinyaot_\w+", fast_out.stdout)
    )
    used = set(re.findall(r"tinyaot_\w+", portable_out.stdout))
    assert {"tinyaot_conv_s8", "tinyaot_dwconv_s8", "tinyaot_fc_s8"} <= used
    assert not [k for k in used if "fast" in k]
    argv = ["compile", str(kws), "--name", "m", "--output-dir", str(tmp_path), "--quiet"]
    assert cli.main([*argv, *PORTABLE]) == 0 and fast.ENABLED
    assert not [k for k in kernels(tmp_path) if "fast" in k]


@pytest.mark.parametrize("model", model_paths(), ids=lambda p: p.stem)
def test_model_portable(tmp_path, model):
    """A model whose compile picks fast kernels, again with the portable ones only. One input
    set: the generated cases below vary shapes and options more. A model without fast kernels
    compiles to the code test_models.py already runs."""
    steps = compile_model(model, Options(name="m")).steps
    if not any("fast" in s.call.function for s in steps):
        return
    check_against_tflm(model, tmp_path, sets=1, options=PORTABLE)
    assert not [k for k in kernels(tmp_path / "gen") if "fast" in k]


def dense(units: int, act: str | None = None):
    import tensorflow as tf

    return lambda x: tf.keras.layers.Dense(units, activation=act)(x)


PER_TENSOR = {"_experimental_disable_per_channel": True}
PER_CHANNEL_FC = {"_experimental_disable_per_channel_quantization_for_dense_layers": False}


# name: (layers, input shape, int8, converter flags, the portable kernel, scales per weight)
CASES: dict[str, tuple[Callable, list[int], bool, dict[str, bool], str, str]] = {
    "conv_3x3_same": (conv(8, (3, 3), 1, "same"), [1, 7, 6, 3], True, {}, "conv_s8", "channel"),
    "conv_3x3_s2_relu6": (
        conv(6, (3, 3), 2, "same", "relu6"),
        [1, 9, 9, 8],
        True,
        {},
        "conv_s8",
        "channel",
    ),
    "conv_5x3_valid": (conv(4, (5, 3), 1, "valid"), [1, 8, 7, 5], True, {}, "conv_s8", "channel"),
    "conv_1x1": (conv(12, (1, 1), 1, "same"), [1, 5, 5, 16], True, {}, "conv_s8", "channel"),
    "conv_per_tensor_3x3": (
        conv(8, (3, 3), 1, "same", "relu"),
        [1, 7, 6, 4],
        True,
        PER_TENSOR,
        "conv_s8",
        "tensor",
    ),
    "conv_per_tensor_1x1_s2": (
        conv(16, (1, 1), 2, "valid"),
        [1, 8, 8, 8],
        True,
        PER_TENSOR,
        "conv_s8",
        "tensor",
    ),
    "dwconv_3x3_same": (dwconv((3, 3), 1, "same"), [1, 7, 6, 8], True, {}, "dwconv_s8", "channel"),
    "dwconv_3x3_s2_valid": (
        dwconv((3, 3), 2, "valid", act="relu"),
        [1, 9, 8, 16],
        True,
        {},
        "dwconv_s8",
        "channel",
    ),
    "dwconv_5x5_mult2": (
        dwconv((5, 5), 1, "same", 2),
        [1, 6, 6, 3],
        True,
        {},
        "dwconv_s8",
        "channel",
    ),
    # Rows of 7 under a ReLU: a group of 6 and a tail of 1, both line routines when fast.
    "dwconv_3x3_relu_w7": (
        dwconv((3, 3), 1, "same", act="relu"),
        [1, 5, 7, 16],
        True,
        {},
        "dwconv_s8",
        "channel",
    ),
    "dwconv_per_tensor": (
        dwconv((3, 3), 1, "same"),
        [1, 6, 6, 16],
        True,
        PER_TENSOR,
        "dwconv_s8",
        "tensor",
    ),
    "dwconv_f32_3x3_same": (dwconv((3, 3), 1, "same"), [1, 7, 6, 8], False, {}, "dwconv_f32", ""),
    "dwconv_f32_3x3_s2_relu": (
        dwconv((3, 3), 2, "valid", act="relu"),
        [1, 9, 8, 4],
        False,
        {},
        "dwconv_f32",
        "",
    ),
    "dwconv_f32_5x3_mult3_relu6": (
        dwconv((5, 3), 1, "same", 3, "relu6"),
        [1, 6, 7, 2],
        False,
        {},
        "dwconv_f32",
        "",
    ),
    # The float32 kernels' groups of output channels and what is left over: 11 channels are a
    # group of eight (two of four where two pixels go together) and three alone, 11 units a
    # group of eight and three alone; windows clipped at every border.
    "conv_f32_3x3_same_relu": (
        conv(11, (3, 3), 1, "same", "relu"),
        [1, 7, 6, 3],
        False,
        {},
        "conv_f32",
        "",
    ),
    "conv_f32_1x1_s2": (conv(6, (1, 1), 2, "valid"), [1, 8, 7, 5], False, {}, "conv_f32", ""),
    "dwconv_f32_3x3_11ch_relu6": (
        dwconv((3, 3), 1, "same", act="relu6"),
        [1, 5, 6, 11],
        False,
        {},
        "dwconv_f32",
        "",
    ),
    # A depth multiplier that is a multiple of 8: eight channels of one input channel go
    # together; with 16, two such groups per input channel.
    "dwconv_f32_3x3_mult8_relu": (
        dwconv((3, 3), 2, "same", 8, "relu"),
        [1, 7, 6, 3],
        False,
        {},
        "dwconv_f32",
        "",
    ),
    "dwconv_f32_3x1_mult16": (
        dwconv((3, 1), 1, "valid", 16),
        [1, 9, 1, 2],
        False,
        {},
        "dwconv_f32",
        "",
    ),
    # Dilated windows: int8 per channel and per tensor, float32 with the groups of eight
    # channels (and of a multiplier of 8) and the rest.
    "conv_3x3_d23": (
        conv(8, (3, 3), 1, "same", d=(2, 3)),
        [1, 9, 10, 4],
        True,
        {},
        "conv_s8",
        "channel",
    ),
    "dwconv_3x3_d2_per_tensor": (
        dwconv((3, 3), 1, "same", d=2),
        [1, 8, 7, 8],
        True,
        PER_TENSOR,
        "dwconv_s8",
        "tensor",
    ),
    "conv_f32_3x3_d32": (
        conv(11, (3, 3), 1, "same", d=(3, 2)),
        [1, 9, 8, 3],
        False,
        {},
        "conv_f32",
        "",
    ),
    "dwconv_f32_3x3_d2_mult8": (
        dwconv((3, 3), 1, "same", 8, d=(1, 2)),
        [1, 6, 9, 2],
        False,
        {},
        "dwconv_f32",
        "",
    ),
    "dwconv_f32_3x3_d2": (
        dwconv((3, 3), 1, "valid", d=2),
        [1, 8, 8, 5],
        False,
        {},
        "dwconv_f32",
        "",
    ),
    "fc_f32_relu": (dense(11, "relu"), [1, 20], False, {}, "fc_f32", ""),
    # 21 inputs: two blocks of eight in the FPU's block loop, and five after them.
    "fc_f32_21": (dense(9), [2, 21], False, {}, "fc_f32", ""),
    "fc_per_channel": (dense(16), [1, 96], True, PER_CHANNEL_FC, "fc_s8", "channel"),
    "fc_per_channel_relu": (dense(12, "relu"), [1, 20], True, PER_CHANNEL_FC, "fc_s8", "channel"),
}


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Callable[[str], Path]:
    """Each case converted once, shared by its fast and portable runs."""
    cache: dict[str, Path] = {}

    def get(name: str) -> Path:
        if name not in cache:
            layers, shape, int8, flags, _, _ = CASES[name]
            data = tfmodels.keras(layers, shape, int8, flags=flags)
            cache[name] = write_model(data, tmp_path_factory.mktemp(name))
        return cache[name]

    return get


# Fast routines a case's fast run must call (the only test that runs them on the host).
FAST_ROUTINES = {"dwconv_3x3_relu_w7": "tinyaot_dw3x3_line_s1_n1"}
# The float32 kernels have no fast version: their cases run once.
RUNS = [(name, True) for name in CASES] + [(name, False) for name in CASES if CASES[name][2]]


@pytest.mark.parametrize(
    "name,portable", RUNS, ids=[f"{n}-{'portable' if p else 'fast'}" for n, p in RUNS]
)
def test_case(tmp_path, built, name, portable):
    _, _, int8, _, kernel, scales = CASES[name]
    path = built(name)
    graph = frontend.load(path)
    (op,) = [op for op in graph.ops if op.kind not in ("QUANTIZE", "DEQUANTIZE")]
    weights = graph.tensors[op.inputs[1]]
    if int8:
        assert weights.quant is not None
        assert (len(weights.quant.scales) > 1) == (scales == "channel"), weights.quant.scales
    check_against_tflm(path, tmp_path, sets=3, options=PORTABLE if portable else ())
    used = kernels(tmp_path / "gen")
    if portable:
        assert used == {f"tinyaot_{kernel}"}
    elif name in FAST_ROUTINES:
        assert FAST_ROUTINES[name] in (tmp_path / "gen" / "m.c").read_text()


F32_CASES = [name for name in CASES if not CASES[name][2]]


@pytest.mark.skipif(bool(m3.missing_tools()), reason="needs arm-none-eabi-gcc and qemu")
def test_f32_cases_on_cortex_m4f(tmp_path, built):
    """The float32 cases on the emulated Cortex-M4F (mps2-an386, hard float) at -O2, where the
    kernels take the FPU's block loops (VLDM, VMLA), within FLOAT_RTOL of TFLite Micro."""
    rng = np.random.default_rng(4)

    def run(name: str) -> str | None:
        path = built(name)
        gen = tmp_path / name / "gen"
        done = tinyaot("compile", str(path), "--name", "m", "--output-dir", str(gen))
        assert done.returncode == 0, done.stderr
        ref = Reference(path)
        sets = [ref.random_inputs(rng) for _ in range(2)]
        result = m3.build_and_run(
            gen,
            "m",
            [[x.tobytes() for x in s] for s in sets],
            board="mps2-an386",
            opt="-O2",
            workdir=tmp_path / name / "build",
            jobs=1,
        )
        for s, raw in zip(sets, result.outputs, strict=True):
            want = ref.run(s)
            got = [
                np.frombuffer(r, w.dtype).reshape(w.shape) for r, w in zip(raw, want, strict=True)
            ]
            if not outputs_match(got, want):
                return name
        return None

    for name in F32_CASES:
        built(name)  # converted here: TensorFlow once at a time
    with ThreadPoolExecutor() as pool:
        assert [f for f in pool.map(run, F32_CASES) if f] == []
