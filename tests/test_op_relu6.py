"""RELU6, int8 and float32, with inputs wide enough to clip at both ends."""

from __future__ import annotations

import numpy as np
import pytest
import tfmodels
from harness import check_against_tflm
from opcheck import check_inputs, every_int8, load, write_model

SHAPE = (1, 8, 8, 4)


def _relu6(x):
    import tensorflow as tf

    return tf.nn.relu6(x)


def _model(tmp_path, int8, low=-1.0, high=1.0):
    data = tfmodels.convert(_relu6, [SHAPE], int8=int8, low=low, high=high)
    path = write_model(data, tmp_path)
    graph = load(path)
    assert [op.kind for op in graph.ops] == ["RELU6"]
    return path, graph


# Clipping at 0 and 6; 6 beyond the int8 range; a nonzero input zero point.
RANGES = {"both_ends": (-10.0, 10.0), "below_six": (-3.0, 3.0), "skewed": (-1.0, 9.0)}


@pytest.mark.parametrize("low,high", RANGES.values(), ids=RANGES.keys())
def test_relu6_int8(tmp_path, low, high):
    path, graph = _model(tmp_path, True, low, high)
    inp = graph.tensors[graph.ops[0].inputs[0]]
    assert inp.dtype.short == "int8"
    assert check_against_tflm(path, tmp_path, sets=5).exact
    assert check_inputs(path, tmp_path, [[every_int8(SHAPE)]]).exact


def test_relu6_int8_clamps_in_input_quantisation(tmp_path):
    """TFLite Micro clamps to [q(0), q(6)] of the input and ignores the output's scale."""
    path, graph = _model(tmp_path, True, -10.0, 10.0)
    inp = graph.tensors[graph.ops[0].inputs[0]]
    out = graph.tensors[graph.ops[0].outputs[0]]
    # The converter gives the output its own range ([0, 6]), which TFLM does not apply.
    assert (out.scale, out.zero_point) != (inp.scale, inp.zero_point)
    six = inp.zero_point + int(np.floor(np.float32(6.0) / np.float32(inp.scale) + 0.5))
    got = check_inputs(path, tmp_path, [[every_int8(SHAPE)]]).outputs[0][0]
    assert got.min() == inp.zero_point and got.max() == six


def test_relu6_float(tmp_path):
    path, _ = _model(tmp_path, False)
    check_against_tflm(path, tmp_path, sets=5)
    rng = np.random.default_rng(1)
    wide = rng.uniform(-10.0, 10.0, size=SHAPE).astype(np.float32)
    specials = np.resize(
        np.array([0.0, -0.0, 6.0, 6.0000005, 5.9999995, -1e-38], np.float32), SHAPE
    )
    assert check_inputs(path, tmp_path, [[wide], [specials]]).exact
