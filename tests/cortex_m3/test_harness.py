"""Tests of the Cortex-M3 qemu harness itself, on a hand-written fake model.

The fake implements the generated-model API (fake.h / fake.c) without the compiler, so the
harness can be trusted before any real model exists: outputs must come back bit-exact, failures
must surface as exceptions with the firmware's log, and SysTick ticks must convert to the exact
instruction count of a hand-written Thumb loop.
"""

from __future__ import annotations

import shutil
import struct
import subprocess
import sys
import time
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

import runner

pytestmark = pytest.mark.skipif(
    bool(runner.missing_tools()),
    reason=f"Cortex-M3 harness needs {', '.join(runner.missing_tools())} on PATH "
    "(apt-get install gcc-arm-none-eabi libnewlib-arm-none-eabi qemu-system-arm)",
)

BOARDS = ["lm3s6965evb", "mps2-an385", "mps2-an386", "mps2-an505", "mps3-an547"]

FAKE_H = """\
#ifndef FAKE_H_
#define FAKE_H_

#include <tinyaot/tinyaot.h>

#define FAKE_ARENA_SIZE 24

struct fake_inputs {
	const int8_t *x;
	const uint32_t *spin;
};

struct fake_outputs {
	int8_t *y;
};

extern const struct tinyaot_model_info fake_info;

int fake_run(const struct fake_inputs *inputs, const struct fake_outputs *outputs,
	     uint8_t *arena);
int fake_invoke(uint8_t *arena);
void *fake_input_ptr(uint8_t *arena, int index);
void *fake_output_ptr(uint8_t *arena, int index);

#endif
"""

# Arena: x (8 bytes) at 0, spin count (uint32) at 8, y (8 bytes) at 16. y = x + 1, then the
# invoke spins `spin` times round a 4-instruction loop; magic spin counts make it fail, fault, or
# flip the byte just past the arena's end or just before its start.
FAKE_C = """\
#include <string.h>

#include "fake.h"

#define SPIN_FAIL         0xFFFFFFFFu
#define SPIN_FAULT        0xFFFFFFFEu
#define SPIN_PAST_END     0xFFFFFFFDu
#define SPIN_BEFORE_ARENA 0xFFFFFFFCu

static uint8_t fake_arena[FAKE_ARENA_SIZE] __attribute__((aligned(8)));

/* Stands in for weights, so size() has a const array to find: all ones, indexed by data. */
const uint8_t fake_weights[256] = {@WEIGHTS@};

static const int32_t fake_shape_x[] = {1, 8};
static const int32_t fake_shape_spin[] = {1};

static const struct tinyaot_tensor_info fake_inputs_info[] = {
	{"x", TINYAOT_DTYPE_INT8, 2, fake_shape_x, 8, 0.0f, 0},
	{"spin", TINYAOT_DTYPE_INT32, 1, fake_shape_spin, 4, 0.0f, 0},
};

static const struct tinyaot_tensor_info fake_outputs_info[] = {
	{"y", TINYAOT_DTYPE_INT8, 2, fake_shape_x, 8, 0.0f, 0},
};

const struct tinyaot_model_info fake_info = {
	"fake", FAKE_ARENA_SIZE, 8, sizeof(fake_weights), 2, 1,
	fake_inputs_info, fake_outputs_info, 1, 8, 0,
};

static uint8_t *arena_or_pinned(uint8_t *arena)
{
	return arena != NULL ? arena : fake_arena;
}

void *fake_input_ptr(uint8_t *arena, int index)
{
	return arena_or_pinned(arena) + (index == 0 ? 0 : 8);
}

void *fake_output_ptr(uint8_t *arena, int index)
{
	(void)index;
	return arena_or_pinned(arena) + 16;
}

/* Exactly 4 instructions per iteration: nop, nop, subs, bne. */
static void spin(uint32_t count)
{
	if (count != 0u) {
		__asm__ volatile("1:\\n\\t"
				 "nop\\n\\t"
				 "nop\\n\\t"
				 "subs %0, %0, #1\\n\\t"
				 "bne 1b\\n\\t"
				 : "+r"(count)
				 :
				 : "cc");
	}
}

int fake_invoke(uint8_t *arena)
{
	uint8_t *a = arena_or_pinned(arena);
	uint32_t count;
	int i;

	memcpy(&count, a + 8, sizeof(count));
	if (count == SPIN_FAIL) {
		return TINYAOT_ERR_INVALID_ARGUMENT;
	}
	if (count == SPIN_FAULT) {
		__asm__ volatile("udf #0");
	}
	if (count == SPIN_PAST_END || count == SPIN_BEFORE_ARENA) {
		/* volatile: the compiler must neither see nor drop the out-of-bounds store. */
		uint8_t *volatile stray = count == SPIN_PAST_END ? a + FAKE_ARENA_SIZE : a - 1;

		*stray = (uint8_t)~*stray;
		count = 0u;
	}
	for (i = 0; i < 8; i++) {
		a[16 + i] = (uint8_t)(a[i] + fake_weights[a[i]]);
	}
	spin(count);
	return TINYAOT_OK;
}

int fake_run(const struct fake_inputs *inputs, const struct fake_outputs *outputs,
	     uint8_t *arena)
{
	int rc;

	memcpy(fake_input_ptr(arena, 0), inputs->x, 8);
	memcpy(fake_input_ptr(arena, 1), inputs->spin, 4);
	rc = fake_invoke(arena);
	memcpy(outputs->y, fake_output_ptr(arena, 0), 8);
	return rc;
}
"""

# Spin counts of the timing sets: 0 measures the fixed cost, 1000 already pins the factor to
# 0.05 %, and 3e6 * 4 instructions spans SysTick wraps (2**24 ticks) on both boards.
SPINS = [0, 1000, 100_000, 3_000_000]
SPIN_FAIL = 0xFFFFFFFF
SPIN_FAULT = 0xFFFFFFFE
SPIN_PAST_END = 0xFFFFFFFD
SPIN_BEFORE_ARENA = 0xFFFFFFFC


def spin_input(count: int) -> bytes:
    """Encode the spin count as the model's little-endian uint32 input."""
    return struct.pack("<I", count)


def data_input(seed: int) -> bytes:
    """Eight input bytes that include 0x7f and 0xff, where +1 wraps."""
    return bytes((seed * 37 + i * 61 + (0x7E if i == 3 else 0)) % 256 for i in range(7)) + b"\xff"


def write_fake(directory: Path) -> Path:
    """Write the fake model folder, as the compiler would write a generated one."""
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "fake.h").write_text(FAKE_H)
    (directory / "fake.c").write_text(FAKE_C.replace("@WEIGHTS@", ", ".join(["1"] * 256)))
    return directory


@pytest.fixture(scope="module", params=BOARDS)
def timing_run(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> tuple[list[list[bytes]], runner.RunResult]:
    """Build and run the fake once per board with several input sets, shared by the tests."""
    board: str = request.param
    model = write_fake(tmp_path_factory.mktemp("model"))
    inputs = [[data_input(i), spin_input(n)] for i, n in enumerate(SPINS)]
    # crt_sources=[]: the fake needs no kernels, and crt/src may hold work in progress.
    result = runner.build_and_run(
        model,
        "fake",
        inputs,
        board=board,
        workdir=tmp_path_factory.mktemp("build"),
        crt_sources=[],
    )
    return inputs, result


def test_outputs_are_input_plus_one(
    timing_run: tuple[list[list[bytes]], runner.RunResult],
) -> None:
    inputs, result = timing_run
    assert result.ok
    assert result.model == "fake"
    assert result.arena_size == 24
    assert result.return_codes == [0] * len(SPINS)
    expected = [[bytes((b + 1) % 256 for b in input_set[0])] for input_set in inputs]
    assert result.outputs == expected


def test_ticks_convert_to_known_instruction_count(
    timing_run: tuple[list[list[bytes]], runner.RunResult],
) -> None:
    _, result = timing_run
    fixed = result.instructions()[0]
    # The fake's own code around the loop is a few dozen instructions.
    assert 10 < fixed < 200
    for count, ticks in zip(SPINS[1:], result.ticks[1:], strict=True):
        loop = runner.instructions(ticks - result.ticks[0], result.board)
        assert loop == pytest.approx(4 * count, rel=0.01), (count, ticks)


def test_stack_is_measured(timing_run: tuple[list[list[bytes]], runner.RunResult]) -> None:
    _, result = timing_run
    assert all(0 < s < 256 for s in result.stack)
    assert result.stack_window > 1024


def test_size_splits_code_and_weights(
    timing_run: tuple[list[list[bytes]], runner.RunResult],
) -> None:
    _, result = timing_run
    sizes = runner.size(result.elf)
    assert sizes["flash"] == sizes["text"] + sizes["data"]
    assert sizes["code"] > 0
    assert sizes["inputs"] >= 12
    assert sizes["weights"] >= 256
    only_fake = runner.size(result.elf, is_weight=lambda name: name == "fake_weights")
    assert only_fake["weights"] == 256


def test_invoke_failure_is_reported(tmp_path: Path) -> None:
    model = write_fake(tmp_path / "model")
    inputs = [[data_input(0), spin_input(0)], [data_input(1), spin_input(SPIN_FAIL)]]
    elf = runner.build(model, "fake", inputs, workdir=tmp_path / "build", crt_sources=[])
    result = runner.run(elf, check=False)
    assert not result.ok
    assert result.exit_status == runner.EXIT_INVOKE_FAILED
    assert result.return_codes == [0, -1]
    with pytest.raises(runner.RunError, match=r"invoke failed for input sets \[1\]"):
        runner.run(elf)


def test_fault_is_reported(tmp_path: Path) -> None:
    model = write_fake(tmp_path / "model")
    inputs = [[data_input(0), spin_input(SPIN_FAULT)]]
    elf = runner.build(model, "fake", inputs, workdir=tmp_path / "build", crt_sources=[])
    with pytest.raises(runner.RunError, match=r"fault exception=3 pc=0x") as info:
        runner.run(elf)
    assert info.value.exit_status == runner.EXIT_FAULT


@pytest.mark.parametrize(
    "spin,offset", [(SPIN_PAST_END, 24), (SPIN_BEFORE_ARENA, -1)], ids=["past_end", "before"]
)
def test_write_outside_arena_is_caught(tmp_path: Path, spin: int, offset: int) -> None:
    """One byte flipped next to the arena by the second invoke fails the run, naming it."""
    model = write_fake(tmp_path / "model")
    inputs = [[data_input(0), spin_input(0)], [data_input(1), spin_input(spin)]]
    elf = runner.build(model, "fake", inputs, workdir=tmp_path / "build", crt_sources=[])
    with pytest.raises(runner.RunError, match="wrote outside the arena") as info:
        runner.run(elf)
    assert info.value.exit_status == runner.EXIT_GUARD
    guards = [line for line in info.value.log.splitlines() if line.startswith("guard ")]
    assert len(guards) == 1 and guards[0].startswith(f"guard 1 {offset} ")


def test_wrong_input_size_is_reported(tmp_path: Path) -> None:
    model = write_fake(tmp_path / "model")
    inputs = [[data_input(0)[:5], spin_input(0)]]
    elf = runner.build(model, "fake", inputs, workdir=tmp_path / "build", crt_sources=[])
    with pytest.raises(runner.RunError, match="error set 0 input 0 size 5 expected 8"):
        runner.run(elf)


def test_timeout_kills_qemu(tmp_path: Path) -> None:
    model = write_fake(tmp_path / "model")
    # About 1.6e10 instructions: far longer than the timeout.
    inputs = [[data_input(0), spin_input(0xFFFF_FFF0)]]
    elf = runner.build(model, "fake", inputs, workdir=tmp_path / "build", crt_sources=[])
    start = time.monotonic()
    with pytest.raises(runner.RunTimeoutError):
        runner.run(elf, timeout=1.0)
    assert time.monotonic() - start < 10
    if shutil.which("pgrep"):
        leftover = subprocess.run(
            ["pgrep", "-f", str(elf)], capture_output=True, text=True, check=False
        ).stdout
        assert leftover == "", "qemu still running after the timeout"


def test_compile_error_is_reported(tmp_path: Path) -> None:
    model = write_fake(tmp_path / "model")
    (model / "broken.c").write_text("int broken(void) { return undeclared; }\n")
    with pytest.raises(runner.BuildError, match="undeclared"):
        runner.build(model, "fake", [], workdir=tmp_path / "build", crt_sources=[])
