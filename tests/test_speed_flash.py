"""How much the weights may grow for the DSP routine's int16 weights (Options.speed_flash,
`--speed-flash`, Kconfig TINYAOT_SPEED_FLASH): a convolution that tinyaot_conv_pairs_dsp16 runs
has a form on int16 weights (tinyaot_conv_pairs_dsp16_w16, KernelCall.faster), which the
compiler takes while the extra bytes stay within the percentage of the plain core's weights,
the calls with the most MACs per extra byte first. Only the cores with the DSP extension link
those bytes, and the generated info says so per core.

Outputs on the int16 weights are compared with TensorFlow Lite Micro on the Cortex-M4 and M33
by tests/cortex_m3/test_models.py (SPEED_FLASH there), which also checks the info's weights_size
for the DSP cores against the linked firmware.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
from harness import tinyaot
from reference import model_paths
from tinyaot.compiler import Compiled, Options, compile_model
from tinyaot.lowering import DSP_GUARD, FPU_GUARD, ByTarget
from tinyaot.ops.conv_2d import dsp_weights, dsp_weights16

ROOT = Path(__file__).resolve().parents[1]
CORPUS = {m.stem: m for m in model_paths()}
W16 = "tinyaot_conv_pairs_dsp16_w16"
DSP = frozenset({DSP_GUARD, FPU_GUARD})

# Real models: percent -> (extra bytes on the DSP cores, calls on int16 weights). KWS's first
# layer (10x4 windows over one channel into 64: 320k MACs for 2560 bytes) comes first, then its
# four pointwise layers (512k MACs for 4096 bytes each); 100 % takes all five.
FIGURES = {
    "mlperf_tiny_kws_dscnn_int8": {0: (0, 0), 10: (2560, 1), 25: (6656, 2), 100: (18944, 5)},
    "mlperf_tiny_ic_resnet8_int8": {0: (0, 0), 10: (7616, 4), 50: (35264, 6), 200: (72128, 7)},
}


def compiled(name: str, **options: int) -> Compiled:
    return compile_model(CORPUS[name], Options(name="m", **options))


def on_int16(call) -> bool:
    pairs = call.params.get("pairs")
    return isinstance(pairs, ByTarget) and pairs.dsp.name.startswith(W16)


def int16_calls(c: Compiled) -> int:
    return sum(on_int16(s.call) for s in c.steps)


@pytest.mark.parametrize("name", list(FIGURES))
def test_weights_grow_within_the_percentage(name):
    base = compiled(name)
    for percent, (extra, calls) in FIGURES[name].items():
        c = compiled(name, speed_flash=percent)
        assert c.weights_size == base.weights_size, percent
        got = c.weights_size_where(DSP) - base.weights_size_where(DSP)
        assert (got, int16_calls(c)) == (extra, calls), percent
        assert got <= base.weights_size * percent // 100


def test_the_most_macs_per_byte_first():
    """Every call left on int8 weights that has an int16 form either has fewer MACs per byte
    than each one taken, or did not fit in what was left."""
    name = "mlperf_tiny_ic_resnet8_int8"
    base = compiled(name)
    c = compiled(name, speed_flash=25)
    allowance = base.weights_size * 25 // 100
    chosen = {i for i, s in enumerate(c.steps) if on_int16(s.call)}
    candidates = {i for i, s in enumerate(base.steps) if s.call.faster}
    assert chosen and chosen < candidates
    taken = [base.steps[i].call for i in chosen]
    used = sum(t.faster.extra for t in taken)
    worst = min(t.macs / t.faster.extra for t in taken)
    for i in candidates - chosen:
        call = base.steps[i].call
        assert call.macs / call.faster.extra <= worst or used + call.faster.extra > allowance, i


def test_int16_layout_is_what_the_step_loads():
    """dsp_weights16 holds, per four inputs of a half, the registers tinyaot_conv_pairs_dsp16's
    step makes of dsp_weights' two words with SXTB16, in the order the int16 step's LDM fills
    r10, r11, ip and lr: channel 0's (w1, w3), channel 1's (w1, w3), then their (w0, w2)."""
    rng = np.random.default_rng(3)
    blocks, depth = 3, 12
    w = rng.integers(-128, 128, (4 * blocks, depth))
    words = dsp_weights(w, blocks, depth).values.reshape(-1, 2, 4).astype(np.int16)
    halves = dsp_weights16(w, blocks, depth).values.view("<i2").reshape(-1, 4, 2)
    assert len(words) == len(halves) == 2 * blocks * depth // 4
    for (ch0, ch1), (r10, r11, ip, lr) in zip(words, halves, strict=True):
        # SXTB16 x: bytes 0 and 2; SXTB16 x, ror #8: bytes 1 and 3.
        assert ip.tolist() == ch0[[0, 2]].tolist() and r10.tolist() == ch0[[1, 3]].tolist()
        assert lr.tolist() == ch1[[0, 2]].tolist() and r11.tolist() == ch1[[1, 3]].tolist()


def test_info_says_the_weights_per_core(tmp_path):
    """The generated info's weights_size is per core when the DSP cores link more, and the
    report says both."""
    model = str(CORPUS["mlperf_tiny_kws_dscnn_int8"])
    done = tinyaot("compile", model, "--output-dir", str(tmp_path), "--speed-flash", "100")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[1] == "tinyaot: model: weights 48897 B with the DSP kernels, 34561 B with Helium's"
    text = (tmp_path / "model.c").read_text()
    assert re.search(
        r"#if TINYAOT_DSP_KERNELS && TINYAOT_MVE_KERNELS\n\t\.weights_size = 34561,\n"
        r"#elif TINYAOT_DSP_KERNELS\n\t\.weights_size = 48897,\n"
        r"#else\n\t\.weights_size = 29953,\n#endif\n",
        text,
    )
    assert text.count(W16) == 5
    assert 29953 + FIGURES["mlperf_tiny_kws_dscnn_int8"][100][0] == 48897


def test_kconfig_default_is_none():
    """Zephyr keeps the int8 weights unless the application asks: flash before speed."""
    kconfig = (ROOT / "zephyr_module" / "Kconfig").read_text()
    entry = kconfig.split("config TINYAOT_SPEED_FLASH\n")[1].split("\nconfig ")[0]
    assert re.findall(r"^\tdefault (.*)$", entry, re.M) == ["0"]


def test_cli_takes_a_whole_percentage(tmp_path):
    model = str(CORPUS["mlperf_tiny_kws_dscnn_int8"])
    done = tinyaot("compile", model, "--output-dir", str(tmp_path / "a"), "--speed-flash", "x")
    assert done.returncode == 2 and done.stderr.count("\n") == 1
    assert done.stderr.startswith("error: argument --speed-flash: 'x' is not a whole percentage")
    assert not (tmp_path / "a").exists()
