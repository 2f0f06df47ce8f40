"""State (resource variables, CALL_ONCE): sequences of invocations against TFLite Micro's, reset,
separate instances, and a stateful model in a shared arena pool."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import numpy as np
import pytest
import tflite
from harness import REPO, compile_model, split_outputs, tinyaot
from host import runner
from reference import MODELS, Reference

VAD = MODELS / "mww_vad_int8.tflite"
NABU = MODELS / "mww_okay_nabu_v2_int8.tflite"
HELLO = MODELS / "tflm_hello_world_int8.tflite"
STEPS = 6

MAIN = r"""
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "m.h"
#ifdef WITH_H
#include "h.h"
#endif

static uint8_t arena2[M_ARENA_SIZE] TINYAOT_ALIGNED(M_ARENA_ALIGNMENT);
static uint8_t state2[M_STATE_SIZE + M_STATE_ALIGNMENT] TINYAOT_ALIGNED(M_STATE_ALIGNMENT);

static int read_inputs(void)
{
	for (int i = 0; i < M_NUM_INPUTS; i++) {
		if (fread(m_input_ptr(NULL, i), 1, m_info.inputs[i].size, stdin) !=
		    m_info.inputs[i].size) {
			return 0;
		}
	}
	return 1;
}

static void write_outputs(uint8_t *arena)
{
	for (int i = 0; i < M_NUM_OUTPUTS; i++) {
		fwrite(m_output_ptr(arena, i), 1, m_info.outputs[i].size, stdout);
	}
}

/* argv[1]: what to do, argv[2]: invocations. stdin: each invocation's inputs in order;
 * stdout: each invocation's outputs in order.
 */
int main(int argc, char **argv)
{
	const int steps = argc == 3 ? atoi(argv[2]) : 0;
	const char *mode = argc == 3 ? argv[1] : "";

	if (strcmp(mode, "misaligned") == 0) {
		/* A misaligned state is refused; the model info gives the state's size. */
		return m_info.state_size == M_STATE_SIZE && M_STATE_SIZE > 0 &&
			       m_reset(state2 + 1) == TINYAOT_ERR_MISALIGNED_ARENA &&
				       m_invoke_with_state(NULL, state2 + 1) ==
					       TINYAOT_ERR_MISALIGNED_ARENA
			       ? 0
			       : 9;
	}
	if (strcmp(mode, "two") == 0) {
		/* Instance A: a caller state of garbage, reset first; B: the pinned state. */
		memset(state2, 0xA5, sizeof(state2));
		if (m_reset(state2) != 0) {
			return 3;
		}
	}
	for (int s = 0; s < steps; s++) {
		if (!read_inputs()) {
			return 2;
		}
		if (strcmp(mode, "invoke") == 0 || strcmp(mode, "reset") == 0) {
			if (m_invoke(NULL) != 0) {
				return 4;
			}
			write_outputs(NULL);
			if (strcmp(mode, "reset") == 0 && s == steps / 2 - 1 && m_reset(NULL) != 0) {
				return 5;
			}
		} else if (strcmp(mode, "run") == 0) {
			/* Own arena and own (zeroed) state: initialised by the first run. */
			void *in = m_input_ptr(NULL, 0), *out = m_output_ptr(arena2, 0);
			struct m_inputs ins;
			struct m_outputs outs;

			memcpy(&ins, &in, sizeof(in));
			memcpy(&outs, &out, sizeof(out));
			if (m_run_with_state(&ins, &outs, arena2, state2) != 0) {
				return 6;
			}
			write_outputs(arena2);
		} else if (strcmp(mode, "two") == 0) {
			/* A runs in its own arena and state, then B in the pinned ones, each on its
			 * own inputs.
			 */
			for (int i = 0; i < M_NUM_INPUTS; i++) {
				memcpy(m_input_ptr(arena2, i), m_input_ptr(NULL, i),
				       m_info.inputs[i].size);
			}
			if (!read_inputs() || m_invoke_with_state(arena2, state2) != 0) {
				return 7;
			}
			write_outputs(arena2);
			if (m_invoke(NULL) != 0) {
				return 7;
			}
			write_outputs(NULL);
#ifdef WITH_H
		} else if (strcmp(mode, "pool") == 0) {
			/* Another model of the pool runs between two invocations, on the same arena. */
			if (m_invoke(NULL) != 0) {
				return 8;
			}
			write_outputs(NULL);
			memset(h_input_ptr(NULL, 0), s * 37, h_info.inputs[0].size);
			if (h_invoke(NULL) != 0) {
				return 8;
			}
			fwrite(h_output_ptr(NULL, 0), 1, h_info.outputs[0].size, stdout);
#endif
		} else {
			return 64;
		}
	}
	return 0;
}
"""


@pytest.fixture(scope="module")
def runtime(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    """crt/src compiled once for the module's builds; under scripts/run-tests.sh, the runtime
    built for coverage (tests/crt_coverage.py), as tests/host/runner.py links it."""
    coverage = os.environ.get(runner.COVERAGE_DIR)
    if coverage:
        objects = runner.runtime_objects(Path(coverage) / "obj", runner.COVERAGE_FLAGS)
        return [*objects, "--coverage"]
    return runner.runtime_objects(tmp_path_factory.mktemp("crt"), ())


def build(
    tmp_path: Path, runtime: list[str], model: Path, *options: str, other: Path | None = None
) -> Path:
    gen = compile_model(model, tmp_path / "m", "m", *options)
    sources = [gen / "m.c"]
    flags = ["-I", str(gen)]
    if other is not None:
        gh = compile_model(other, tmp_path / "h", "h", *options)
        sources.append(gh / "h.c")
        flags += ["-I", str(gh), "-DWITH_H"]
    main = tmp_path / "main.c"
    main.write_text(MAIN)
    exe = tmp_path / "state"
    cmd = ["gcc", "-std=c99", "-O2", "-Wall", "-Wextra", "-Werror", *flags]
    cmd += ["-I", str(REPO / "crt" / "include"), str(main), *map(str, sources)]
    cmd += [*runtime, "-o", str(exe)]
    built = subprocess.run(cmd, capture_output=True, text=True)
    assert built.returncode == 0, built.stderr
    return exe


def run(exe: Path, mode: str, steps: int, inputs: list[list[np.ndarray]]) -> bytes:
    data = b"".join(x.tobytes() for xs in inputs for x in xs)
    done = subprocess.run([str(exe), mode, str(steps)], input=data, capture_output=True)
    assert done.returncode == 0, f"{mode}: exit {done.returncode}"
    return done.stdout


def tflm_sequence(model: Path, inputs: list[list[np.ndarray]]) -> list[list[np.ndarray]]:
    """TFLite Micro on the inputs one invocation after the other, state kept between them."""
    ref = Reference(model)
    ref.interp.reset()
    out = []
    for xs in inputs:
        for i, x in enumerate(xs):
            ref.interp.set_input(x, i)
        ref.interp.invoke()
        out.append([np.array(ref.interp.get_output(i)) for i in range(len(ref.outputs))])
    return out


def sequence(model: Path, steps: int, seed: int) -> list[list[np.ndarray]]:
    ref = Reference(model)
    rng = np.random.default_rng(seed)
    return [ref.random_inputs(rng) for _ in range(steps)]


def check(raw: bytes, want: list[list[np.ndarray]]) -> None:
    got = split_outputs(raw, [w for ws in want for w in ws])
    flat = [w for ws in want for w in ws]
    for k, (g, w) in enumerate(zip(got, flat, strict=True)):
        assert g.tobytes() == w.tobytes(), f"invocation {k}: {g.ravel()} != {w.ravel()}"


@pytest.mark.parametrize("model", [VAD, NABU], ids=["vad", "okay_nabu"])
def test_sequence_matches_tflm_invocation_by_invocation(model, tmp_path, runtime):
    exe = build(tmp_path, runtime, model)
    inputs = sequence(model, STEPS, 1)
    want = tflm_sequence(model, inputs)
    # The state matters: the same input gives different outputs as the state fills.
    assert len({w[0].tobytes() for w in want}) > 1 or model == NABU
    check(run(exe, "invoke", STEPS, inputs), want)
    check(run(exe, "run", STEPS, inputs), want)


def test_state_changes_the_output(tmp_path, runtime):
    """One input repeated: TFLite Micro's outputs change as the state fills, and so do ours."""
    exe = build(tmp_path, runtime, VAD)
    x = sequence(VAD, 1, 5)[0]
    inputs = [x] * STEPS
    want = tflm_sequence(VAD, inputs)
    assert len({w[0].tobytes() for w in want}) > 1, "the test needs an input whose output moves"
    check(run(exe, "invoke", STEPS, inputs), want)


def test_reset_gives_the_first_results_again(tmp_path, runtime):
    exe = build(tmp_path, runtime, VAD)
    half = sequence(VAD, STEPS, 2)
    want = tflm_sequence(VAD, half)
    check(run(exe, "reset", 2 * STEPS, half + half), want + want)


def test_two_instances_keep_their_own_state(tmp_path, runtime):
    exe = build(tmp_path, runtime, VAD)
    a, b = sequence(VAD, STEPS, 3), sequence(VAD, STEPS, 4)
    want_a, want_b = tflm_sequence(VAD, a), tflm_sequence(VAD, b)
    interleaved = [x for pair in zip(a, b, strict=True) for x in pair]
    want = [w for pair in zip(want_a, want_b, strict=True) for w in pair]
    check(run(exe, "two", STEPS, interleaved), want)


def test_stateful_model_keeps_its_state_in_a_shared_pool(tmp_path, runtime):
    exe = build(tmp_path, runtime, VAD, "--shared-arena", "p", other=HELLO)
    inputs = sequence(VAD, STEPS, 6)
    want = tflm_sequence(VAD, inputs)
    hello = Reference(HELLO)
    expected = []
    for s, w in enumerate(want):
        x = np.full(hello.inputs[0]["shape"], (s * 37) & 0xFF, np.uint8).view(np.int8)
        expected.append(w + hello.run([x]))
    raw = run(exe, "pool", STEPS, inputs)
    check(raw, expected)


def test_misaligned_state_is_refused(tmp_path, runtime):
    exe = build(tmp_path, runtime, VAD)
    done = subprocess.run([str(exe), "misaligned", "0"], capture_output=True)
    assert done.returncode == 0


def test_state_is_outside_the_arena(tmp_path):
    gen = compile_model(VAD, tmp_path / "m", "m")
    header = (gen / "m.h").read_text()
    size = int(header.split("M_STATE_SIZE")[1].split()[0])
    # Four int8 variables of 80, 128, 336 and 576 bytes, and the flag word.
    assert size == 80 + 128 + 336 + 576 + 4
    assert "int m_reset(uint8_t *state);" in header


def test_stateless_model_has_no_state_api(tmp_path):
    gen = compile_model(HELLO, tmp_path / "m", "m")
    header = (gen / "m.h").read_text()
    assert "#define M_STATE_SIZE 0" in header and "m_reset" not in header


def test_init_subgraph_that_is_not_call_once_is_refused(tmp_path):
    import tflite_builder as tb  # noqa: PLC0415 - only this test builds models

    model = tb.fully_connected()
    model.subgraphs.append(model.subgraphs[0])
    path = tmp_path / "two.tflite"
    path.write_bytes(tb.build(model))
    done = tinyaot("compile", str(path), "--name", "m", "--output-dir", str(tmp_path / "o"))
    assert done.returncode == 2 and done.stderr.count("\n") == 1
    assert "subgraph 1 is not the initialisation subgraph of a CALL_ONCE" in done.stderr


INIT = np.array([[0.5, -1.0, 2.0, 3.25]], np.float32)


def accumulator(
    init: bool = True,
    call_once_last: bool = False,
    delay: bool = False,
    fold: bool = False,
    unused: bool = False,
) -> bytes:
    """y = x + acc; acc = y, acc a resource variable that CALL_ONCE's subgraph sets to INIT
    (which no memset gives), or left to TFLite Micro's zero fill without one. delay: acc = x,
    assigned before the ADD reads the value read (which must be the old one). fold: the
    initialisation subgraph computes INIT (a RESHAPE the compiler folds)."""
    import tflite_builder as tb  # noqa: PLC0415 - only these tests build models

    resource = tflite.TensorType.RESOURCE
    name = {"SharedName": "acc"}
    ops = [
        tb.Operator(1, [], [1], "VarHandleOptions", name),
        tb.Operator(2, [1], [2]),
        tb.Operator(3, [0, 2], [3], "AddOptions", {"FusedActivationFunction": 0}),
        tb.Operator(4, [1, 3], []),
    ]
    if delay:
        ops[2:] = [ops[3], ops[2]]
        ops[2].inputs = [1, 0]
    if unused:  # y = x + x; the value read goes nowhere, only CALL_ONCE assigns
        ops[2].inputs = [0, 0]
        del ops[3]
    subgraphs = [
        tb.SubGraph(
            [
                tb.Tensor("x", [1, 4], tb.FLOAT32),
                tb.Tensor("acc", [], resource),
                tb.Tensor("read", [1, 4], tb.FLOAT32),
                tb.Tensor("y", [1, 4], tb.FLOAT32),
            ],
            ops,
            inputs=[0],
            outputs=[3],
        )
    ]
    if init:
        call = tb.Operator(0, [], [], "CallOnceOptions", {"InitSubgraphIndex": 1})
        ops.insert(len(ops) - 1 if call_once_last else 0, call)
        tensors = [tb.Tensor("acc", [], resource), tb.Tensor("init", [1, 4], tb.FLOAT32, 1)]
        init_ops = [tb.Operator(1, [], [0], "VarHandleOptions", name), tb.Operator(4, [0, 1], [])]
        if fold:
            tensors[1].shape = [4]
            tensors += [tb.Tensor("shape", [2], tb.INT32, 2), tb.Tensor("r", [1, 4], tb.FLOAT32)]
            init_ops.insert(1, tb.Operator(5, [1, 2], [3]))
            init_ops[2].inputs = [0, 3]
        subgraphs.append(tb.SubGraph(tensors, init_ops, inputs=[], outputs=[], name="init"))
    codes = [tb.OPS.CALL_ONCE, tb.OPS.VAR_HANDLE, tb.OPS.READ_VARIABLE, tb.OPS.ADD]
    model = tb.Model(
        subgraphs=subgraphs,
        opcodes=[tb.OpCode(c) for c in [*codes, tb.OPS.ASSIGN_VARIABLE, tb.OPS.RESHAPE]],
        buffers=[tb.Buffer(), tb.Buffer(INIT.tobytes()), tb.Buffer(tb.int32_bytes([1, 4]))],
    )
    return tb.build(model)


@pytest.mark.parametrize(
    "init, delay, fold",
    [(True, False, False), (False, False, False), (True, True, False), (True, False, True)],
    ids=["call_once", "zero", "delay", "folded_init"],
)
def test_initial_values_as_tflm(init, delay, fold, tmp_path, runtime):
    """An initial image that is not one byte repeated (a copy from flash), the zero fill of a
    variable no CALL_ONCE sets, and a value read before an assignment and used after it (a
    copy, not a view of the state)."""
    path = tmp_path / "acc.tflite"
    path.write_bytes(accumulator(init, delay=delay, fold=fold))
    exe = build(tmp_path, runtime, path)
    inputs = sequence(path, STEPS, 8)
    want = tflm_sequence(path, inputs)
    first = inputs[0][0] + (INIT if init else 0)
    assert np.array_equal(want[0][0], first), "TFLite Micro's start is not the one assumed"
    check(run(exe, "invoke", STEPS, inputs), want)
    check(run(exe, "reset", 2 * STEPS, inputs + inputs), want + want)
    source = (tmp_path / "m" / "m.c").read_text()
    assert ("m_state_init0" in source) == init
    # The read is a view of the state unless the assignment comes before its use.
    assert source.count("tinyaot_state_copy(") == (2 if delay else 1)


def test_state_no_code_reads_builds_warning_free(tmp_path, runtime):
    """A variable read into a value nothing uses and never assigned but by CALL_ONCE: the read
    folds away and no kernel touches the state, which must still build under -Werror."""
    path = tmp_path / "unused.tflite"
    path.write_bytes(accumulator(unused=True))
    exe = build(tmp_path, runtime, path)
    inputs = sequence(path, 2, 9)
    check(run(exe, "invoke", 2, inputs), tflm_sequence(path, inputs))
    assert "(void)state;" in (tmp_path / "m" / "m.c").read_text()


def test_call_once_after_the_variables_is_refused(tmp_path):
    path = tmp_path / "late.tflite"
    path.write_bytes(accumulator(call_once_last=True))
    done = tinyaot("compile", str(path), "--name", "m", "--output-dir", str(tmp_path / "o"))
    assert done.returncode == 2 and done.stderr.count("\n") == 1, done.stderr
    assert "(CALL_ONCE) comes after op 1 (READ_VARIABLE)" in done.stderr
