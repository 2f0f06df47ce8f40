"""RELU, int8 (requantised to its own output scale) and float32."""

from __future__ import annotations

import numpy as np
import pytest
import tfmodels
from harness import check_against_tflm
from opcheck import check_inputs, every_int8, load, write_model

SHAPE = (1, 8, 8, 4)


def _relu(x):
    import tensorflow as tf

    return tf.nn.relu(x)


def _model(tmp_path, int8, low=-1.0, high=1.0):
    data = tfmodels.convert(_relu, [SHAPE], int8=int8, low=low, high=high)
    path = write_model(data, tmp_path)
    graph = load(path)
    assert [op.kind for op in graph.ops] == ["RELU"]
    return path, graph


# Input ranges: symmetric, mostly positive (nonzero input zero point), all negative
# but one step, and wide.
RANGES = {
    "symmetric": (-5.0, 5.0),
    "skewed": (-1.0, 7.0),
    "negative": (-4.0, 0.1),
    "wide": (-300.0, 200.0),
}


@pytest.mark.parametrize("low,high", RANGES.values(), ids=RANGES.keys())
def test_relu_int8(tmp_path, low, high):
    path, graph = _model(tmp_path, True, low, high)
    inp = graph.tensors[graph.ops[0].inputs[0]]
    out = graph.tensors[graph.ops[0].outputs[0]]
    assert inp.dtype.short == "int8" and inp.scale != out.scale
    assert check_against_tflm(path, tmp_path, sets=5).exact
    assert check_inputs(path, tmp_path, [[every_int8(SHAPE)]]).exact


def test_relu_float(tmp_path):
    path, _ = _model(tmp_path, False)
    check_against_tflm(path, tmp_path, sets=5)
    rng = np.random.default_rng(1)
    wide = rng.uniform(-50.0, 50.0, size=SHAPE).astype(np.float32)
    specials = np.resize(np.array([0.0, -0.0, 1e-38, -1e-38, 3e38, -3e38], np.float32), SHAPE)
    assert check_inputs(path, tmp_path, [[wide], [specials]]).exact
