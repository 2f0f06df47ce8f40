"""ARG_MAX and ARG_MIN against TFLite Micro: int8 and float32 inputs, int32 indices, several
axes, ties; every case an output of one model per dtype."""

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
from tinyaot.ir import DType

# (input shape, axis)
CASES = [((2, 5, 7), -1), ((2, 5, 7), 1), ((3, 4), 0), ((1, 4, 4, 10), 3), ((6,), 0)]
OPS = {"ARG_MAX": tf.math.argmax, "ARG_MIN": tf.math.argmin}


def args(*xs):
    return [
        fn(x, axis=axis, output_type=tf.int32)
        for x, (_, axis) in zip(xs, CASES, strict=True)
        for fn in OPS.values()
    ]


@pytest.fixture(scope="module")
def models(tmp_path_factory):
    """The converted model of each input dtype, converted on first use."""
    convert = functools.cache(lambda int8: tfmodels.convert(args, [c[0] for c in CASES], int8))
    return lambda int8: write_model(convert(int8), tmp_path_factory.mktemp("arg_min_max"))


@pytest.mark.parametrize("int8", [True, False], ids=["int8", "float32"])
def test_arg_min_max_match_tflm(models, int8, tmp_path):
    path = models(int8)
    graph = load(path)
    assert sorted(op.kind for op in graph.ops) == sorted(list(OPS) * len(CASES))
    for op in graph.ops:
        assert graph.tensors[op.inputs[0]].dtype.short == ("int8" if int8 else "float32")
        assert graph.tensors[op.outputs[0]].dtype.short == "int32"
    assert check_against_tflm(path, tmp_path, sets=3).exact


@pytest.mark.parametrize("int8", [True, False], ids=["int8", "float32"])
def test_arg_min_max_ties_keep_the_first_index(models, int8, tmp_path):
    path = models(int8)
    dtype = np.int8 if int8 else np.float32
    # All equal, and a few values repeating along every axis.
    sets = [
        [np.zeros(c[0], dtype) for c in CASES],
        [np.resize(np.array([3, -2, 3, 1, -2, 0, 1], dtype), c[0]) for c in CASES],
    ]
    got = check_inputs(path, tmp_path, sets)
    assert got.exact
    assert all(not o.any() for o in got.outputs[0])


def test_arg_max_rejects_a_variable_axis(models):
    graph = load(models(False))
    op = next(op for op in graph.ops if op.kind == "ARG_MAX")
    graph.tensors[op.inputs[1]].data = None
    with pytest.raises(CompileError, match="ARG_MAX.*axis must be a constant"):
        lower_op(graph, op)


def test_arg_min_rejects_int64_indices(models):
    # TFLM's kernel writes only int32 indices.
    graph = load(models(True))
    op = next(op for op in graph.ops if op.kind == "ARG_MIN")
    graph.tensors[op.outputs[0]].dtype = DType.INT64
    with pytest.raises(CompileError, match="ARG_MIN.*int8 -> int64 is not supported"):
        lower_op(graph, op)
