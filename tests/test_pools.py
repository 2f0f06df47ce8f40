"""Arenas: pinned, caller-provided, and one pool shared by models that never run at once."""

from __future__ import annotations

import subprocess

import numpy as np
from harness import REPO, compile_model, split_outputs, tinyaot
from reference import MODELS, Reference
from tinyaot.runtime_sources import runtime_sources

KWS = MODELS / "mlperf_tiny_kws_dscnn_int8.tflite"
SPEECH = MODELS / "tflm_micro_speech_int8.tflite"

ALTERNATE = r"""
#include <stdio.h>
#include <string.h>
#include "kws.h"
#include "speech.h"

/* stdin: a KWS input then a speech input. stdout: kws, speech, kws again, speech again. */
int main(void)
{
	static int8_t kin[490], sin[1960];

	if (fread(kin, 1, sizeof(kin), stdin) != sizeof(kin) ||
	    fread(sin, 1, sizeof(sin), stdin) != sizeof(sin)) {
		return 2;
	}
	/* One pool: both models see the same pinned arena. */
	if ((uint8_t *)kws_input_ptr(NULL, 0) - kws_input_offset() !=
	    (uint8_t *)speech_input_ptr(NULL, 0) - speech_input_offset()) {
		return 3;
	}
	for (int round = 0; round < 2; round++) {
		memcpy(kws_input_ptr(NULL, 0), kin, sizeof(kin));
		if (kws_invoke(NULL) != 0) {
			return 4;
		}
		fwrite(kws_output_ptr(NULL, 0), 1, kws_info.outputs[0].size, stdout);
		memcpy(speech_input_ptr(NULL, 0), sin, sizeof(sin));
		if (speech_invoke(NULL) != 0) {
			return 5;
		}
		fwrite(speech_output_ptr(NULL, 0), 1, speech_info.outputs[0].size, stdout);
	}
	return 0;
}
"""


def offset_fn(gen, name):
    """The input offset, read from the generated table, as a C function for the test."""
    text = (gen / f"{name}.c").read_text()
    off = text.split(f"{name}_input_offsets[")[1].split("{")[1].split("}")[0]
    return f"static size_t {name}_input_offset(void) {{ return {off}; }}\n"


def test_two_models_share_one_pool(tmp_path):
    gk = compile_model(KWS, tmp_path / "kws", "kws", "--shared-arena", "audio")
    gs = compile_model(SPEECH, tmp_path / "speech", "speech", "--shared-arena", "audio")
    main = tmp_path / "main.c"
    main.write_text(
        ALTERNATE.replace(
            '#include "speech.h"\n',
            '#include "speech.h"\n' + offset_fn(gk, "kws") + offset_fn(gs, "speech"),
        )
    )
    exe = tmp_path / "pool"
    cmd = [
        "gcc",
        "-std=c99",
        "-Wall",
        "-Wextra",
        "-Werror",
        "-O2",
        "-I",
        str(gk),
        "-I",
        str(gs),
        "-I",
        str(REPO / "crt" / "include"),
        str(main),
        str(gk / "kws.c"),
        str(gs / "speech.c"),
        *map(str, runtime_sources()),
        "-o",
        str(exe),
    ]
    built = subprocess.run(cmd, capture_output=True, text=True)
    assert built.returncode == 0, built.stderr
    nm = subprocess.run(["nm", "-S", str(exe)], capture_output=True, text=True).stdout
    pools = [line.split() for line in nm.splitlines() if line.endswith(" tinyaot_pool_audio")]
    assert len(pools) == 1
    sizes = [int(x) for x in (gk / "kws.h").read_text().split("KWS_ARENA_SIZE")[1].split()[:1]]
    sizes += [
        int(x) for x in (gs / "speech.h").read_text().split("SPEECH_ARENA_SIZE")[1].split()[:1]
    ]
    assert int(pools[0][1], 16) == max(sizes)

    rk, rs = Reference(KWS), Reference(SPEECH)
    rng = np.random.default_rng(3)
    xk, xs = rk.random_inputs(rng), rs.random_inputs(rng)
    want = rk.run(xk) + rs.run(xs)
    ran = subprocess.run([str(exe)], input=xk[0].tobytes() + xs[0].tobytes(), capture_output=True)
    assert ran.returncode == 0
    got = split_outputs(ran.stdout, want + want)
    for g, w in zip(got, want + want, strict=True):
        assert g.tobytes() == w.tobytes()


def test_shared_arena_rejects_section(tmp_path):
    done = tinyaot(
        "compile",
        str(KWS),
        "--output-dir",
        str(tmp_path / "o"),
        "--shared-arena",
        "p",
        "--arena-section",
        ".x",
    )
    assert done.returncode == 2 and "cannot be combined" in done.stderr
