"""API misuse gets error codes, never a crash: misaligned arenas, NULL pointers, bad indices."""

from __future__ import annotations

import subprocess

from harness import REPO, compile_model
from reference import MODELS
from tinyaot.runtime_sources import runtime_sources

CHECKS = r"""
#include <stdio.h>
#include "hw.h"

static uint8_t big[HW_ARENA_SIZE + 64] TINYAOT_ALIGNED(64);

int main(void)
{
	int8_t x = 0, y = 0;
	struct hw_inputs in = {&x};
	struct hw_outputs out = {&y};
	struct hw_inputs no_in = {NULL};

	printf("%d %d %d %d %d %d %d %d %d %d\n",
	       hw_invoke(big + 1),
	       hw_run(&in, &out, big + 1),
	       hw_run(NULL, &out, NULL),
	       hw_run(&in, NULL, NULL),
	       hw_run(&no_in, &out, NULL),
	       hw_input_ptr(NULL, 1) == NULL,
	       hw_input_ptr(NULL, -1) == NULL,
	       hw_output_ptr(NULL, 1) == NULL,
	       hw_input_ptr(big + 1, 0) == NULL,
	       hw_run(&in, &out, big + HW_ARENA_ALIGNMENT));
	return 0;
}
"""


def build(tmp_path, *flags):
    gen = compile_model(MODELS / "tflm_hello_world_int8.tflite", tmp_path / "g", "hw")
    main = tmp_path / "main.c"
    main.write_text(CHECKS)
    exe = tmp_path / "api"
    cmd = [
        "gcc",
        "-std=c99",
        "-Wall",
        "-Wextra",
        "-Werror",
        *flags,
        "-I",
        str(gen),
        "-I",
        str(REPO / "crt" / "include"),
        str(main),
        str(gen / "hw.c"),
        *map(str, runtime_sources()),
        "-o",
        str(exe),
    ]
    built = subprocess.run(cmd, capture_output=True, text=True)
    assert built.returncode == 0, built.stderr
    return subprocess.run([str(exe)], capture_output=True, text=True, check=True).stdout.split()


def test_misuse_gets_error_codes(tmp_path):
    got = build(tmp_path)
    # -2 misaligned arena (invoke and run), -1 NULL structs and NULL members,
    # NULL pointers for bad indices and a misaligned arena, 0 for a good caller arena.
    assert got == ["-2", "-2", "-1", "-1", "-1", "1", "1", "1", "1", "0"]


def test_checks_can_be_compiled_out(tmp_path):
    """-DTINYAOT_NO_ARG_CHECKS drops the NULL checks; alignment and indices stay checked."""
    gen = compile_model(MODELS / "tflm_hello_world_int8.tflite", tmp_path / "g", "hw")
    text = (gen / "hw.c").read_text()
    assert "#ifndef TINYAOT_NO_ARG_CHECKS" in text
    full = subprocess.run(
        ["gcc", "-std=c99", "-E", "-I", str(REPO / "crt" / "include"), str(gen / "hw.c")],
        capture_output=True,
        text=True,
    ).stdout
    lean = subprocess.run(
        [
            "gcc",
            "-std=c99",
            "-E",
            "-DTINYAOT_NO_ARG_CHECKS",
            "-I",
            str(REPO / "crt" / "include"),
            str(gen / "hw.c"),
        ],
        capture_output=True,
        text=True,
    ).stdout
    assert full.count("TINYAOT_ERR_INVALID_ARGUMENT") == 0  # macros are expanded by -E
    assert full.count("(-1)") > lean.count("(-1)")
