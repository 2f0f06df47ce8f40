"""L2_NORMALIZATION against TFLite Micro: int8 and float32 over the last dim, every case an
output of one model per dtype."""

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

SHAPES = [(1, 10), (2, 3, 16), (1, 4, 4, 8), (5,), (3, 300)]


def normalize_all(*xs):
    return [tf.math.l2_normalize(x, axis=-1) for x in xs]


@pytest.fixture(scope="module")
def models(tmp_path_factory):
    """The converted model of each dtype, converted on first use."""
    convert = functools.cache(
        lambda int8: tfmodels.convert(normalize_all, SHAPES, int8=int8, low=-0.5, high=1.0)
    )
    return lambda int8: write_model(convert(int8), tmp_path_factory.mktemp("l2_normalization"))


@pytest.mark.parametrize("int8", [True, False], ids=["int8", "float32"])
def test_l2_normalization_matches_tflm(models, int8, tmp_path):
    path = models(int8)
    graph = load(path)
    assert [op.kind for op in graph.ops] == ["L2_NORMALIZATION"] * len(SHAPES)
    if int8:
        assert any(graph.tensors[op.inputs[0]].zero_point != 0 for op in graph.ops)
    assert check_against_tflm(path, tmp_path, sets=4).max_rel_error <= 1e-6


@pytest.mark.parametrize("int8", [True, False], ids=["int8", "float32"])
def test_l2_normalization_chosen_rows(models, int8, tmp_path):
    path = models(int8)
    graph = load(path)
    sets = []
    if int8:
        # Rows at the zero point (a sum of 0: the inverse square root's special case), one
        # step from it (a sum of 1), at either end of the range (the largest sums).
        zps = [graph.tensors[i].zero_point for i in graph.inputs]
        for delta in (0, 1, None, 127):
            row = []
            for shape, zp in zip(SHAPES, zps, strict=True):
                v = np.full(shape, -128 if delta is None else min(zp + delta, 127), np.int8)
                if delta == 1:
                    v[..., 1:] = zp
                row.append(v)
            sets.append(row)
    else:
        # All zeros (the 1e-6 floor), tiny values and a large one.
        sets = [
            [np.zeros(s, np.float32) for s in SHAPES],
            [np.full(s, 1e-30, np.float32) for s in SHAPES],
            [np.resize(np.array([3e18, -1.0, 1e-3], np.float32), s) for s in SHAPES],
        ]
    assert check_inputs(path, tmp_path, sets).max_rel_error <= 1e-6


def test_l2_normalization_rejects_a_fused_activation(models):
    graph = load(models(False))
    op = graph.ops[0]
    op.options["FusedActivationFunction"] = 1
    with pytest.raises(CompileError, match="L2_NORMALIZATION.*fused activation"):
        lower_op(graph, op)
