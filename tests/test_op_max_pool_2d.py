"""MAX_POOL_2D, int8 and float32: windows clipped by SAME padding, strides, non-square
windows, and fused activations (hand-built: the converter does not fuse one into a pool)."""

from __future__ import annotations

import numpy as np
import pytest
import tflite_builder as tb
import tfmodels
from harness import check_against_tflm
from opcheck import check_inputs, every_int8, load, write_model

SHAPE = [1, 9, 10, 4]

# name: (pool size, strides, padding)
WINDOWS = {
    "2x2_s2_valid": ((2, 2), (2, 2), "valid"),
    "3x3_s2_same": ((3, 3), (2, 2), "same"),
    # Every output's window clipped on some side, overlapping its neighbours.
    "3x3_s1_same": ((3, 3), (1, 1), "same"),
    "2x3_s1x2_same": ((2, 3), (1, 2), "same"),
    "4x1_s3x1_valid": ((4, 1), (3, 1), "valid"),
}


def _converted(tmp_path, int8, pool, strides, padding):
    import tensorflow as tf

    data = tfmodels.keras(
        lambda x: tf.keras.layers.MaxPooling2D(pool, strides=strides, padding=padding)(x),
        SHAPE,
        int8,
    )
    path = write_model(data, tmp_path)
    graph = load(path)
    assert [op.kind for op in graph.ops] == ["MAX_POOL_2D"]
    assert graph.tensors[graph.ops[0].inputs[0]].dtype.short == ("int8" if int8 else "float32")
    return path


@pytest.mark.parametrize("int8", [True, False], ids=["int8", "float32"])
@pytest.mark.parametrize("pool,strides,padding", WINDOWS.values(), ids=WINDOWS.keys())
def test_max_pool(tmp_path, int8, pool, strides, padding):
    path = _converted(tmp_path, int8, pool, strides, padding)
    result = check_against_tflm(path, tmp_path, sets=3)
    # A maximum is one of its inputs: float32 too must match exactly.
    assert result.exact


def test_max_pool_int8_every_value(tmp_path):
    path = _converted(tmp_path, True, (3, 3), (1, 1), "same")
    shape = tuple(SHAPE)
    descending = every_int8(shape)[..., ::-1].copy()
    assert check_inputs(path, tmp_path, [[every_int8(shape)], [descending]]).exact


ACTIVATIONS = {"relu": tb.ACT.RELU, "relu6": tb.ACT.RELU6, "relu_n1_to_1": tb.ACT.RELU_N1_TO_1}


@pytest.mark.parametrize("activation", ACTIVATIONS.values(), ids=ACTIVATIONS.keys())
def test_max_pool_fused_activation(tmp_path, activation):
    shape = tuple(SHAPE)
    (tmp_path / "int8").mkdir()
    (tmp_path / "float32").mkdir()
    int8_path = write_model(tb.max_pool2d(True, activation, SHAPE), tmp_path, "int8")
    got = check_inputs(int8_path, tmp_path / "int8", [[every_int8(shape)]]).outputs[0][0]
    # q(x) = x / 0.1 - 1: the clamps of RELU, RELU6 and RELU_N1_TO_1.
    low, high = {tb.ACT.RELU: (-1, 127), tb.ACT.RELU6: (-1, 59), tb.ACT.RELU_N1_TO_1: (-11, 9)}[
        activation
    ]
    assert (got.min(), got.max()) == (low, high)
    float_path = write_model(tb.max_pool2d(False, activation, SHAPE), tmp_path, "float32")
    wide = np.random.default_rng(3).uniform(-8.0, 8.0, size=shape).astype(np.float32)
    result = check_inputs(float_path, tmp_path / "float32", [[wide]])
    assert result.exact
    assert result.outputs[0][0].min() == (-1.0 if activation == tb.ACT.RELU_N1_TO_1 else 0.0)


def test_max_pool_int8_channels_not_a_multiple_of_4(tmp_path):
    """Over 4 channels at a time the int8 kernel keeps the maxima in registers; 6 channels take
    its general loop (on cores without Helium), byte for byte all the same."""
    shape = [1, 7, 8, 6]
    path = write_model(tb.max_pool2d(True, tb.ACT.RELU6, shape), tmp_path)
    rng = np.random.default_rng(5)
    sets = [[every_int8(tuple(shape))], [rng.integers(-128, 128, shape).astype(np.int8)]]
    assert check_inputs(path, tmp_path, sets).exact


def test_pools_int16(tmp_path):
    """int16x8: MAX_POOL_2D and AVERAGE_POOL_2D on every window of WINDOWS, one model; the
    average's rounding on sums of both signs."""
    import tensorflow as tf

    def fn(x):
        outs = []
        for pool, strides, padding in WINDOWS.values():
            for layer in (tf.nn.max_pool2d, tf.nn.avg_pool2d):
                outs.append(layer(x, pool, strides, padding.upper()))
        return tuple(outs)

    data = tfmodels.convert(fn, [SHAPE], int8=True, int16x8=True, low=-1.0, high=1.0)
    path = write_model(data, tmp_path)
    graph = load(path)
    kinds = sorted(op.kind for op in graph.ops)
    assert kinds == ["AVERAGE_POOL_2D"] * len(WINDOWS) + ["MAX_POOL_2D"] * len(WINDOWS)
    assert graph.tensors[graph.ops[0].inputs[0]].dtype.short == "int16"
    rng = np.random.default_rng(3)
    ends = rng.choice(np.array([-32768, -32767, 32767, 1, -1, 0], np.int16), SHAPE)
    sets = [[rng.integers(-32768, 32768, SHAPE, dtype=np.int16)], [ends]]
    assert check_inputs(path, tmp_path, sets).exact
