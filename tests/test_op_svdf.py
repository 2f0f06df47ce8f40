"""SVDF (int8 with an int16 or int8 state, and float32): sequences of invocations against
TFLite Micro, the state carried between them in the state buffer; reset gives the first
results again. (Hybrid SVDF, built here by float_svdf_model, is tested in test_hybrid.py.)"""

from __future__ import annotations

import numpy as np
import pytest
import tflite
import tflite_builder as tb
from closeness import FLOAT_RTOL, float_error
from harness import split_outputs, tinyaot
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


def float_svdf_model(
    hybrid: bool,
    activation: int = tb.ACT.NONE,
    feature_zero_point: int = 0,
    time_zero_point: int = 0,
    time_dtype: int = tb.INT8,
    feature_dtype: int = tb.INT8,
) -> bytes:
    """input [2, 16] -> SVDF (units 4, rank 2, memory 5) -> [2, 4], float32 state and bias.
    Hybrid: int8 weights of one scale each (or of the dtypes given); else float32 weights
    equal to the hybrid ones dequantised."""
    rng = np.random.default_rng(4)
    batches, size, units, rank, memory = 2, 16, 4, 2, 5
    filters = units * rank
    feature = rng.integers(-127, 128, size=(filters, size))
    time = rng.integers(-127, 128, size=(filters, memory))
    scales = [np.float32(0.01), np.float32(0.02)]
    bias = rng.uniform(-0.5, 0.5, units).astype(np.float32)
    if hybrid:
        dtypes = [feature_dtype, time_dtype]
        zero_points = [feature_zero_point, time_zero_point]
        weights = [
            tb.Tensor(name, list(w.shape), d, i + 1, [s], [z])
            for i, (name, w, d, s, z) in enumerate(
                zip(["feature", "time"], (feature, time), dtypes, scales, zero_points, strict=True)
            )
        ]
        data = [
            w.astype("<i2" if d == INT16 else "<i1").tobytes()
            for w, d in zip((feature, time), dtypes, strict=True)
        ]
    else:
        weights = [
            tb.Tensor("feature", [filters, size], tb.FLOAT32, 1),
            tb.Tensor("time", [filters, memory], tb.FLOAT32, 2),
        ]
        pairs = zip((feature, time), scales, strict=True)
        data = [(w.astype(np.float32) * s).tobytes() for w, s in pairs]
    tensors = [
        tb.Tensor("input", [batches, size], tb.FLOAT32, 0),
        *weights,
        tb.Tensor("bias", [units], tb.FLOAT32, 3),
        tb.Tensor("state", [batches, filters * memory], tb.FLOAT32, 0, is_variable=True),
        tb.Tensor("output", [batches, units], tb.FLOAT32, 0),
    ]
    options = {"Rank": rank, "FusedActivationFunction": activation}
    op = tb.Operator(0, [0, 1, 2, 3, 4], [5], "SVDFOptions", options)
    model = tb.Model(
        subgraphs=[tb.SubGraph(tensors, [op], inputs=[0], outputs=[5])],
        opcodes=[tb.OpCode(tb.OPS.SVDF)],
        buffers=[tb.Buffer(), *(tb.Buffer(d) for d in data), tb.Buffer(bias.tobytes())],
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


def test_float_svdf_sequence_matches_tflm(tmp_path, runtime):
    """RELU6 clamps some outputs at each end: the activation is TFLM's."""
    path = tmp_path / "svdf.tflite"
    path.write_bytes(float_svdf_model(False, tb.ACT.RELU6))
    exe = build(tmp_path, runtime, path)
    inputs = sequence(path, STEPS, 3)
    want = tflm_sequence(path, inputs)
    flat = [w for ws in want for w in ws]
    assert len({w.tobytes() for w in flat}) == STEPS, "the outputs do not move with the state"
    values = np.concatenate([w.ravel() for w in flat])
    assert (values == 0).any() and (values == 6).any() and ((values > 0) & (values < 6)).any()
    got = split_outputs(run(exe, "reset", 2 * STEPS, inputs + inputs), flat + flat)
    for k, (g, w) in enumerate(zip(got, flat + flat, strict=True)):
        assert float_error(g, w) <= FLOAT_RTOL, f"invocation {k}"


def test_svdf_state_with_a_zero_point_is_refused(tmp_path):
    path = tmp_path / "zp.tflite"
    path.write_bytes(svdf_model(tb.INT8, state_zero_point=5))
    done = tinyaot("compile", str(path), "--name", "m", "--output-dir", str(tmp_path / "o"))
    assert done.returncode == 2 and done.stderr.count("\n") == 1, done.stderr
    assert "op 0 (SVDF), tensor 4 'state': the state's zero point must be 0" in done.stderr
