"""SVDF (int8, int16 or int8 state): sequences of invocations against TFLite Micro, the state
carried between them in the state buffer; reset gives the first results again."""

from __future__ import annotations

import numpy as np
import pytest
import tflite
import tflite_builder as tb
from harness import tinyaot
from test_state import STEPS, build, check, run, runtime, sequence, tflm_sequence

__all__ = ["runtime"]  # the fixture the tests take
INT16 = tflite.TensorType.INT16


def svdf_model(state_dtype: int, rank: int = 2, seed: int = 0, state_zero_point: int = 0) -> bytes:
    """input [1, 8] -> SVDF (units 3, rank, memory 5) -> [1, 3], state a variable tensor."""
    rng = np.random.default_rng(seed)
    size, units, memory = 8, 3, 5
    filters = units * rank
    wide = state_dtype == INT16
    tdtype = "<i2" if wide else "<i1"
    state_scale, time_scale = (0.01, 0.001) if wide else (1.0, 0.02)
    feature = tb.int8_bytes(rng.integers(-127, 128, size=(filters, size)))
    time = rng.integers(-60 if wide else -127, 61 if wide else 128, size=(filters, memory))
    bias = tb.int32_bytes(rng.integers(-3000, 3000, size=units))
    bias_scale = float(np.float32(state_scale) * np.float32(time_scale))
    tensors = [
        tb.Tensor("input", [1, size], tb.INT8, 0, [0.05], [-3]),
        tb.Tensor("feature", [filters, size], tb.INT8, 1, [0.02], [0]),
        tb.Tensor("time", [filters, memory], state_dtype, 2, [time_scale], [0]),
        tb.Tensor("bias", [units], tb.INT32, 3, [bias_scale], [0]),
        tb.Tensor(
            "state",
            [1, filters * memory],
            state_dtype,
            0,
            [state_scale],
            [state_zero_point],
            is_variable=True,
        ),
        tb.Tensor("output", [1, units], tb.INT8, 0, [0.5 if wide else 2.0], [2]),
    ]
    model = tb.Model(
        subgraphs=[
            tb.SubGraph(
                tensors,
                [
                    tb.Operator(
                        0,
                        [0, 1, 2, 3, 4],
                        [5],
                        "SVDFOptions",
                        {"Rank": rank, "FusedActivationFunction": 0},
                    )
                ],
                inputs=[0],
                outputs=[5],
            )
        ],
        opcodes=[tb.OpCode(tb.OPS.SVDF)],
        buffers=[
            tb.Buffer(),
            tb.Buffer(feature),
            tb.Buffer(time.astype(tdtype).tobytes()),
            tb.Buffer(bias),
        ],
    )
    return tb.build(model)


@pytest.mark.parametrize("state", ["int16", "int8"])
@pytest.mark.parametrize("rank", [1, 2])
def test_svdf_sequence_matches_tflm(state, rank, tmp_path, runtime):
    path = tmp_path / "svdf.tflite"
    path.write_bytes(svdf_model(INT16 if state == "int16" else tb.INT8, rank))
    exe = build(tmp_path, runtime, path)
    inputs = sequence(path, STEPS, 11)
    want = tflm_sequence(path, inputs)
    outs = np.array([w[0] for w in want])
    assert len({o.tobytes() for o in outs}) > 1, "the outputs do not move with the state"
    assert (np.abs(outs.astype(int)) < 127).mean() > 0.5, "the outputs saturate"
    check(run(exe, "invoke", STEPS, inputs), want)
    check(run(exe, "reset", 2 * STEPS, inputs + inputs), want + want)
    header = (tmp_path / "m" / "m.h").read_text()
    state_bytes = 3 * rank * 5 * (2 if state == "int16" else 1)
    assert int(header.split("M_STATE_SIZE")[1].split()[0]) == -(-state_bytes // 4) * 4 + 4


def test_svdf_state_with_a_zero_point_is_refused(tmp_path):
    path = tmp_path / "zp.tflite"
    path.write_bytes(svdf_model(tb.INT8, state_zero_point=5))
    done = tinyaot("compile", str(path), "--name", "m", "--output-dir", str(tmp_path / "o"))
    assert done.returncode == 2 and done.stderr.count("\n") == 1, done.stderr
    assert "op 0 (SVDF), tensor 4 'state': the state's zero point must be 0" in done.stderr
