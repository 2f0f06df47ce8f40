"""LOG_SOFTMAX against TFLite Micro: int8 and float32 over the last dim, every case an output
of one model per dtype."""

from __future__ import annotations

import functools

import numpy as np
import pytest
import tensorflow as tf
import tfmodels
from harness import check_against_tflm
from opcheck import check_inputs, load, write_model
from tinyaot.compiler import lower_op
from tinyaot.errors import CompileError

SHAPES = [(1, 10), (2, 3, 16), (1, 2, 2, 5), (4, 300)]


def log_softmax_all(*xs):
    return [tf.nn.log_softmax(x) for x in xs]


@pytest.fixture(scope="module")
def models(tmp_path_factory):
    """The converted model of each dtype, converted on first use."""

    # A wide int8 input range: many differences fall below diff_min and map to -128.
    cached = functools.cache(
        lambda int8: tfmodels.convert(log_softmax_all, SHAPES, int8=int8, low=-20.0, high=20.0)
    )
    return lambda int8: write_model(cached(int8), tmp_path_factory.mktemp("log_softmax"))


@pytest.mark.parametrize("int8", [True, False], ids=["int8", "float32"])
def test_log_softmax_matches_tflm(models, int8, tmp_path):
    path = models(int8)
    graph = load(path)
    assert [op.kind for op in graph.ops] == ["LOG_SOFTMAX"] * len(SHAPES)
    if int8:
        out = graph.tensors[graph.ops[0].outputs[0]]
        assert (out.scale, out.zero_point) == (16.0 / 256, 127)
    result = check_against_tflm(path, tmp_path, sets=4)
    assert result.exact or (not int8 and result.max_rel_error <= 1e-5)


@pytest.mark.parametrize("int8", [True, False], ids=["int8", "float32"])
def test_log_softmax_chosen_rows(models, int8, tmp_path):
    path = models(int8)
    dtype = np.int8 if int8 else np.float32
    big = 127 if int8 else 30.0
    low = -128 if int8 else -30.0
    sets = [
        # Equal values: log(1/depth) everywhere.
        [np.zeros(s, dtype) for s in SHAPES],
        # One dominant value per row, the rest far below it.
        [
            np.where(np.arange(s[-1]) == 1, big, low).astype(dtype) * np.ones(s, dtype)
            for s in SHAPES
        ],
    ]
    if int8:
        sets.append([np.resize(np.arange(-128, 128, dtype=np.int8), s) for s in SHAPES])
    result = check_inputs(path, tmp_path, sets)
    assert result.exact or (not int8 and result.max_rel_error <= 1e-5)


def test_log_softmax_rejects_another_output_scale(models):
    graph = load(models(True))
    op = graph.ops[0]
    out = graph.tensors[op.outputs[0]]
    assert out.quant is not None
    out.quant = type(out.quant)((1.0 / 256,), (-128,))
    with pytest.raises(CompileError, match="LOG_SOFTMAX.*scale 16/256 and zero point 127"):
        lower_op(graph, op)
