"""SUM, REDUCE_MAX and REDUCE_MIN against TFLite Micro: int8 and float32, one or several
axes, keep_dims both ways, every case an output of one model per dtype."""

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

# (input shape, axes, keep_dims)
CASES = [
    ((1, 5, 7, 8), [1, 2], True),
    ((2, 6, 10), -1, False),
    ((2, 4, 6), [0, 2], True),
    ((1, 3, 5, 6), [-1, 2], False),
    ((2, 3, 4), [0, 1, 2], False),
    ((3, 12), [0], True),
]
OPS = {"SUM": tf.reduce_sum, "REDUCE_MAX": tf.reduce_max, "REDUCE_MIN": tf.reduce_min}


def reductions(*xs):
    return [
        fn(x, axis=axes, keepdims=keep)
        for x, (_, axes, keep) in zip(xs, CASES, strict=True)
        for fn in OPS.values()
    ]


@pytest.fixture(scope="module")
def models(tmp_path_factory):
    """The converted model of each dtype, converted on first use."""
    convert = functools.cache(
        lambda int8: tfmodels.convert(reductions, [c[0] for c in CASES], int8=int8, low=-0.4)
    )
    return lambda int8: write_model(convert(int8), tmp_path_factory.mktemp("reduce"))


@pytest.mark.parametrize("int8", [True, False], ids=["int8", "float32"])
def test_reductions_match_tflm(models, int8, tmp_path):
    path = models(int8)
    graph = load(path)
    assert sorted(op.kind for op in graph.ops) == sorted(list(OPS) * len(CASES))
    assert {bool(op.options["KeepDims"]) for op in graph.ops} == {True, False}
    assert {graph.tensors[op.outputs[0]].dtype.short for op in graph.ops} == {
        "int8" if int8 else "float32"
    }
    result = check_against_tflm(path, tmp_path, sets=3)
    # Floats too: the sums add in TFLM's order.
    assert result.exact


def test_reductions_int8_extremes(models, tmp_path):
    # Every input at one end of the range: SUM saturates, and MAX and MIN return the very
    # values they start from.
    path = models(True)
    sets = [[np.full(c[0], v, np.int8) for c in CASES] for v in (-128, 127)]
    assert check_inputs(path, tmp_path, sets).exact


@pytest.mark.parametrize("kind", ["REDUCE_MAX", "REDUCE_MIN"])
def test_minmax_reject_a_rescaled_int8_output(models, kind):
    graph = load(models(True))
    op = next(op for op in graph.ops if op.kind == kind)
    out = graph.tensors[op.outputs[0]]
    assert out.quant is not None
    out.quant = type(out.quant)((out.scale * 2,), out.quant.zero_points)
    with pytest.raises(CompileError, match=f"{kind}.*input's scale and zero point"):
        lower_op(graph, op)


def test_sum_rejects_an_axis_outside_the_rank(models):
    graph = load(models(False))
    op = next(op for op in graph.ops if op.kind == "SUM")
    axis = graph.tensors[op.inputs[1]]
    assert axis.data is not None
    axis.data = axis.data + 7
    with pytest.raises(CompileError, match="SUM.*outside rank"):
        lower_op(graph, op)
