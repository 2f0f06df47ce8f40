"""The float comparison fails on a NaN or an infinity that the other side does not have."""

from __future__ import annotations

import math
import sys

import harness
import numpy as np
import pytest
import tflite_builder as tb
from closeness import FLOAT_RTOL, float_error, outputs_match

sys.path.insert(0, str(harness.REPO / "bench"))
import bench  # noqa: E402

NAN, INF = float("nan"), float("inf")


@pytest.mark.parametrize(
    ("got", "want"),
    [
        ([1.0, NAN], [1.0, 2.0]),
        ([1.0, INF], [1.0, 2.0]),
        ([1.0, -INF], [1.0, 2.0]),
        ([1.0, 2.0], [1.0, NAN]),
        ([1.0, 2.0], [1.0, INF]),
        ([1.0, INF], [1.0, -INF]),
        ([1.0, NAN], [1.0, INF]),
        ([NAN, NAN], [0.0, 0.0]),
    ],
)
def test_non_finite_mismatch_fails(got: list[float], want: list[float]) -> None:
    g, w = np.array(got, np.float32), np.array(want, np.float32)
    assert float_error(g, w) == math.inf
    assert not outputs_match([g], [w])
    assert harness.compare([g], [w]).max_rel_error > FLOAT_RTOL


def test_same_non_finite_values_match() -> None:
    w = np.array([NAN, INF, -INF, 4.0], np.float32)
    g = np.array([NAN, INF, -INF, 4.0 + 2e-5], np.float32)
    # The scale is the largest finite magnitude, 4: an infinity does not widen it.
    assert float_error(g, w) == pytest.approx(2e-5 / 4, rel=0.1)
    assert outputs_match([g], [w])


def test_finite_error_is_relative_to_the_largest_magnitude() -> None:
    w = np.array([100.0, 1.0], np.float32)
    assert float_error(np.array([100.0, 1.002], np.float32), w) == pytest.approx(2e-5, rel=0.01)
    assert not outputs_match([np.array([100.0, 1.01], np.float32)], [w])


def test_integer_outputs_byte_for_byte() -> None:
    w = np.array([1, -2], np.int8)
    assert outputs_match([w.copy()], [w])
    assert not outputs_match([np.array([1, -1], np.int8)], [w])


def test_a_nan_output_fails_the_end_to_end_check(tmp_path, monkeypatch) -> None:
    """The real pipeline with one output value of the built program replaced by NaN."""
    model = tmp_path / "fc.tflite"
    model.write_bytes(tb.build(tb.fully_connected(float32=True)))
    harness.check_against_tflm(model, tmp_path / "clean", sets=1)
    real_run = harness.runner.run

    def nan_run(*args: object, **kwargs: object) -> bytes:
        out = np.frombuffer(real_run(*args, **kwargs), np.float32).copy()
        out[1] = np.nan
        return out.tobytes()

    monkeypatch.setattr(harness.runner, "run", nan_run)
    with pytest.raises(AssertionError, match="float error inf"):
        harness.check_against_tflm(model, tmp_path / "nan", sets=1)


def test_bench_flags_a_nan_output() -> None:
    want = [np.array([0.5, -0.25], np.float32)]
    assert bench._matches([want[0].tobytes()], want)
    assert not bench._matches([np.array([0.5, NAN], np.float32).tobytes()], want)
