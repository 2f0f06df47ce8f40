"""LOGISTIC, int8 (gemmlowp fixed point, saturating), int16 (TFLite's interpolated table) and
float32 (past both cut-offs)."""

from __future__ import annotations

import numpy as np
import pytest
import tflite_builder as tb
import tfmodels
from harness import check_against_tflm
from opcheck import (
    check_every_int16,
    check_inputs,
    every_int8,
    int16_unary_model,
    load,
    write_model,
)
from tinyaot.compiler import lower_op
from tinyaot.errors import CompileError
from tinyaot.ir import DType, Graph, Op, Quant, Tensor

SHAPE = (1, 8, 8, 4)


def _sigmoid(x):
    import tensorflow as tf

    return tf.sigmoid(x)


def _model(tmp_path, int8, low=-1.0, high=1.0):
    data = tfmodels.convert(_sigmoid, [SHAPE], int8=int8, low=low, high=high)
    path = write_model(data, tmp_path)
    graph = load(path)
    assert [op.kind for op in graph.ops] == ["LOGISTIC"]
    return path, graph


# Narrow (no saturation), saturating at both ends, skewed (nonzero zero point), and
# so wide that the saturation radius is a handful of steps.
RANGES = {
    "narrow": (-1.0, 1.0),
    "saturating": (-12.0, 12.0),
    "skewed": (-3.0, 14.0),
    "wide": (-300.0, 300.0),
    "tiny": (-0.01, 0.01),
}


@pytest.mark.parametrize("low,high", RANGES.values(), ids=RANGES.keys())
def test_logistic_int8(tmp_path, low, high):
    path, graph = _model(tmp_path, True, low, high)
    out = graph.tensors[graph.ops[0].outputs[0]]
    assert out.dtype.short == "int8" and out.zero_point == -128
    assert check_against_tflm(path, tmp_path, sets=5).exact
    assert check_inputs(path, tmp_path, [[every_int8(SHAPE)]]).exact


def test_logistic_int8_saturates(tmp_path):
    path, _ = _model(tmp_path, True, -12.0, 12.0)
    got = check_inputs(path, tmp_path, [[every_int8(SHAPE)]]).outputs[0][0]
    assert got.min() == -128 and got.max() == 127


def test_logistic_float(tmp_path):
    path, _ = _model(tmp_path, False)
    check_against_tflm(path, tmp_path, sets=5)
    # Past the lower cut-off (-9, e^x) and the upper one (16.62, exactly 1).
    wide = np.linspace(-30.0, 30.0, int(np.prod(SHAPE)), dtype=np.float32).reshape(SHAPE)
    edges = np.resize(
        np.array([-9.0, -9.0000005, 16.619047, 16.61905, 0.0, -0.0, -88.0, 88.0], np.float32),
        SHAPE,
    )
    check_inputs(path, tmp_path, [[wide], [edges]])


REFUSALS = {
    "int8_zero_point": (DType.INT8, (0.1,), "zero point -128"),
    "int16_scale": (DType.INT16, (2**-12,), "int16 output must have scale 1/32768"),
}


@pytest.mark.parametrize("dtype,in_scale,match", REFUSALS.values(), ids=REFUSALS.keys())
def test_logistic_refuses_output_quantisation(dtype, in_scale, match):
    """int8 needs output zero point -128, int16 output scale 1/32768 (both given 1/256, 0)."""
    graph = Graph(
        tensors=[
            Tensor(0, "in", dtype, (4,), Quant(in_scale, (0,))),
            Tensor(1, "out", dtype, (4,), Quant((1 / 256,), (0,))),
        ],
        ops=[Op(0, "LOGISTIC", [0], [1])],
        inputs=[0],
        outputs=[1],
    )
    with pytest.raises(CompileError, match=match):
        lower_op(graph, graph.ops[0])


def test_float_io_around_int8_mul_logistic(tmp_path):
    """QUANTIZE both float inputs, MUL (RELU6 fused), LOGISTIC, DEQUANTIZE the result."""
    import tensorflow as tf

    data = tfmodels.convert(
        lambda a, b: tf.sigmoid(tf.nn.relu6(a * b)),
        [(1, 4, 4, 3), (1, 1, 1, 3)],
        int8=True,
        low=-4.0,
        high=4.0,
        float_input=True,
        float_output=True,
    )
    path = write_model(data, tmp_path)
    graph = load(path)
    assert [op.kind for op in graph.ops] == [
        "QUANTIZE",
        "QUANTIZE",
        "MUL",
        "LOGISTIC",
        "DEQUANTIZE",
    ]
    assert graph.ops[2].options["FusedActivationFunction"] == 3
    # Every step is int8 and the last is exact, so the float output is too.
    assert check_against_tflm(path, tmp_path, sets=5).exact


# 2^-12 is TFLite's power-of-two case (the input times 3); the others take the multiplier its
# doubling loop finds: a converter's scale for [-8, 8], 2^-11, one so fine that the loop runs
# long, and one so coarse that the table saturates for most values.
INT16_SCALES = [2**-12, 8 / 32767, 2**-11, 1e-6, 2e-3]
INT16_SHAPE = (256, 256)


def test_logistic_int16(tmp_path):
    path = write_model(int16_unary_model(tb.OPS.LOGISTIC, INT16_SCALES, INT16_SHAPE), tmp_path)
    assert [op.kind for op in load(path).ops] == ["LOGISTIC"] * len(INT16_SCALES)
    got = check_every_int16(path, tmp_path, INT16_SHAPE, len(INT16_SCALES))
    assert got.exact
    # The coarse scale saturates both ways: TFLite's table ends at 1, not 0.
    assert got.outputs[0][-1].min() == 1 and got.outputs[0][-1].max() == 32767
