"""The int16x8 fast kernels (tinyaot/conv_fast_s16.h, tinyaot/dwconv_fast_s16.h) against TFLite
Micro.

Each case is a one-op int16x8 model converted by TensorFlow, chosen to reach one path: the two
weight layouts (pairs of positions where in_c is even or the patch holds the whole window, four
channels a position elsewhere), windows copied to the patch or read row by row, clipped windows,
output channels that do not fill a block, depth multipliers (four channels a tap, or one), and
FULLY_CONNECTED as a 1x1 convolution. Each runs as compiled and with its output moved onto its
input at the overlap gap, forward and in reverse (test_fast_kernels.compiled), on the host (the
portable C) and on the emulated Cortex-M3, Cortex-M4 (SMLAD on the pairs) and Cortex-M55
(VMLADAVA.S16 on each channel's weights in a row); inputs are random and at both ends of int16.
A layer whose sums could leave int32 keeps TFLite Micro's int64 kernel.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

import pytest
import tensorflow as tf
import tfmodels
from test_fast_kernels import PLACEMENTS, check_host, compiled, cortex_m_failures, inputs_for
from tfmodels import conv, dwconv
from tinyaot import fast, frontend
from tinyaot.compiler import Options, compile_graph

sys.path.insert(0, str(Path(__file__).resolve().parent / "cortex_m3"))
import runner as m3  # noqa: E402

CONV, DWCONV = "tinyaot_conv_fast_s16", "tinyaot_dwconv_fast_s16"


def dense(units: int, act: str | None = None):
    return lambda x: tf.keras.layers.Dense(units, activation=act)(x)


# The layouts and window modes of tinyaot_conv_fast_s16's params.
PAIRS, FOURS = {"pairs": 1, "patch": 0}, {"pairs": 0, "patch": 0}
PATCH_PAIRS, PATCH_FOURS = {"pairs": 1, "patch": 1}, {"pairs": 0, "patch": 1}

# name: (layers, input shape, the kernel, the params it must have)
CASES: dict[str, tuple[Callable, list[int], str, dict[str, int]]] = {
    # Pointwise over an even depth: one run a pixel, pairs.
    "conv_1x1": (conv(12, (1, 1), 1, "same"), [1, 5, 7, 16], CONV, PAIRS),
    # Output channels not a multiple of four (the highest block's last three unwritten).
    "conv_1x1_oc5": (conv(5, (1, 1), 2, "same"), [1, 6, 6, 6], CONV, PAIRS),
    # Pointwise over an odd depth: four channels a position.
    "conv_1x1_c3": (conv(8, (1, 1), 1, "same"), [1, 4, 5, 3], CONV, FOURS),
    # 3x3 over 3 channels (27 positions): the patch, clipped windows zero-filled, no pairs.
    "conv_3x3_c3": (conv(8, (3, 3), 1, "same", "relu"), [1, 7, 6, 3], CONV, PATCH_FOURS),
    # One input channel, 10x4 windows (KWS's first layer): the patch, pairs over the window.
    "conv_10x4_s2_c1": (conv(8, (10, 4), 2, "same"), [1, 13, 10, 1], CONV, PATCH_PAIRS),
    # Windows over the patch's 128 inputs: rows of their own, clipped, pairs of 16 channels.
    "conv_3x3_c16": (conv(6, (3, 3), 1, "same"), [1, 5, 6, 16], CONV, PAIRS),
    # Over it with an odd in_c: rows of their own, four channels a position.
    "conv_5x5_s2_c7": (conv(4, (5, 5), 2, "same"), [1, 9, 9, 7], CONV, FOURS),
    # Dilated: the patch tap by tap (27 positions, no pairs); taps of 16 channels read in
    # place, clipped ones zero; a dilated depthwise window.
    "conv_3x3_d2_c3": (conv(8, (3, 3), 1, "same", d=2), [1, 8, 7, 3], CONV, PATCH_FOURS),
    "conv_3x3_d13_c16": (conv(6, (3, 3), 1, "same", d=(1, 3)), [1, 5, 9, 16], CONV, PAIRS),
    "dw_3x3": (dwconv((3, 3), 1, "same"), [1, 5, 6, 12], DWCONV, {}),
    "dw_3x3_d2": (dwconv((3, 3), 1, "same", d=(2, 3)), [1, 7, 8, 12], DWCONV, {}),
    # Channels left over after the groups of four, stride 2, clipped windows.
    "dw_3x3_s2_c6": (dwconv((3, 3), 2, "same"), [1, 7, 7, 6], DWCONV, {}),
    # A depth multiplier of 2: one channel at a time.
    "dw_3x3_m2": (dwconv((3, 3), 1, "valid", 2), [1, 6, 5, 3], DWCONV, {}),
    "fc": (dense(10, "relu"), [2, 24], CONV, PAIRS),
    "fc_odd": (dense(7), [3, 15], CONV, FOURS),
    # 2048 inputs: 32768 times the weights' magnitudes passes int32; TFLite Micro's int64 sum.
    "fc_wide": (dense(4), [1, 2048], "tinyaot_fc_s16", {}),
}


@pytest.fixture(scope="module")
def models(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("fast_s16")
    paths = {}
    for name, (layers, shape, _, _) in CASES.items():
        path = root / f"{name}.tflite"
        path.write_bytes(tfmodels.keras(layers, shape, True, seed=len(name), int16x8=True))
        paths[name] = path
    return paths


@pytest.mark.parametrize("name", CASES)
def test_lowered(name, models):
    c = compile_graph(frontend.load(models[name]), Options(name="m"), name)
    call = c.steps[-1].call
    _, _, function, params = CASES[name]
    assert call.function == function
    assert {k: call.params[k] for k in params} == params


@pytest.mark.parametrize("placement", PLACEMENTS)
@pytest.mark.parametrize("name", CASES)
def test_host_matches_tflm(name, placement, models, tmp_path):
    path = models[name]
    check_host(f"{name} {placement}", path, compiled(path, placement), tmp_path, inputs_for)


def test_fast_s16_can_be_turned_off(models, monkeypatch):
    monkeypatch.setattr(fast, "ENABLED", False)
    for name, path in models.items():
        c = compile_graph(frontend.load(path), Options(name="m"), path.name)
        assert not any("fast" in step.call.function for step in c.steps), name


# TFLite Micro's int64 kernels, which layers too wide for int32 sums keep: output channels in
# blocks of four and one by one.
REFERENCE = {
    "conv_3x3_c3": "tinyaot_conv_s16",
    "conv_3x3_d2_c3": "tinyaot_conv_s16",
    "dw_3x3_d2": "tinyaot_dwconv_s16",
    "conv_1x1_oc5": "tinyaot_conv_s16",
    "dw_3x3_s2_c6": "tinyaot_dwconv_s16",
}


@pytest.mark.parametrize("name", REFERENCE)
def test_reference_kernels_match_tflm(name, models, tmp_path, monkeypatch):
    monkeypatch.setattr(fast, "ENABLED", False)
    c = compiled(models[name], "planned")
    assert c.steps[-1].call.function == REFERENCE[name]
    check_host(name, models[name], c, tmp_path, inputs_for)


@pytest.mark.skipif(bool(m3.missing_tools()), reason="needs arm-none-eabi-gcc and qemu")
@pytest.mark.parametrize("board", ["mps2-an385", "mps2-an386", "mps3-an547"])
def test_cortex_m_matches_tflm(models, tmp_path, board):
    """Every case and placement on the emulated Cortex-M3, Cortex-M4 and Cortex-M55 at -O2."""
    assert cortex_m_failures(models, tmp_path, board, inputs_for) == []
