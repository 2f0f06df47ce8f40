"""BATCH_MATMUL against TFLite Micro: int8, int16 and float32, adj flags, broadcast batch dims and a
constant operand, every case an output of one model per dtype."""

from __future__ import annotations

import functools

import numpy as np
import pytest
import tensorflow as tf
import tfmodels
from harness import check_against_tflm
from opcheck import load, write_model
from tinyaot.compiler import lower_op
from tinyaot.errors import CompileError

CONST = np.linspace(-1.0, 1.5, 2 * 4 * 3, dtype=np.float32).reshape(2, 4, 3)

# (lhs shape, rhs shape or None for CONST, adj_x, adj_y)
CASES = [
    ((2, 3, 4), (2, 4, 5), False, False),
    ((2, 4, 3), (2, 4, 5), True, False),
    ((3, 5), (2, 6, 5), False, True),  # rank 2 against rank 3
    ((2, 5, 3), (6, 5), True, True),
    ((2, 1, 3, 4), (1, 3, 4, 2), False, False),  # both operands broadcast
    ((2, 1, 2, 3, 7), (1, 2, 1, 7, 3), False, False),  # rank 5
    ((2, 3, 4), None, False, False),  # constant rhs
]
SHAPES = [s for lhs, rhs, _, _ in CASES for s in (lhs, rhs) if s is not None]


def matmuls(*xs):
    it = iter(xs)
    outs = []
    for _, rhs, adj_x, adj_y in CASES:
        a = next(it)
        b = next(it) if rhs is not None else CONST
        outs.append(tf.matmul(a, b, adjoint_a=adj_x, adjoint_b=adj_y))
    return outs


@pytest.fixture(scope="module")
def models(tmp_path_factory):
    """The converted model of each variant, converted on first use."""
    # An input range off centre gives the int8 operands nonzero zero points.
    convert = functools.cache(
        lambda dtype: tfmodels.convert(
            matmuls, SHAPES, dtype != "float32", low=-0.5, high=2.0, int16x8=dtype == "int16"
        )
    )
    return lambda dtype: write_model(convert(dtype), tmp_path_factory.mktemp("batch_matmul"))


@pytest.mark.parametrize("dtype", ["int8", "int16", "float32"])
def test_batch_matmul_matches_tflm(models, dtype, tmp_path):
    path = models(dtype)
    graph = load(path)
    assert {graph.tensors[i].dtype.short for op in graph.ops for i in op.inputs} == {dtype}
    assert [op.kind for op in graph.ops] == ["BATCH_MATMUL"] * len(CASES)
    # The converter may order the ops its own way.
    assert sorted((op.options["AdjX"], op.options["AdjY"]) for op in graph.ops) == sorted(
        (c[2], c[3]) for c in CASES
    )
    assert sum(graph.tensors[op.inputs[1]].is_const for op in graph.ops) == 1
    if dtype == "int8":
        assert any(graph.tensors[op.inputs[0]].zero_point != 0 for op in graph.ops)
    result = check_against_tflm(path, tmp_path, sets=3)
    # Floats too: each output sums in TFLM's order.
    assert result.exact


def test_batch_matmul_rejects_unbroadcastable_batches(models):
    graph = load(models("float32"))
    op = graph.ops[0]
    graph.tensors[op.inputs[0]].shape = (3, 3, 4)
    with pytest.raises(CompileError, match="BATCH_MATMUL.*do not broadcast"):
        lower_op(graph, op)


def test_batch_matmul_int16_rejects_a_zero_point(models):
    graph = load(models("int16"))
    op = graph.ops[0]
    out = graph.tensors[op.outputs[0]]
    assert out.quant is not None
    out.quant = type(out.quant)(out.quant.scales, (3,), 0)
    with pytest.raises(CompileError, match="BATCH_MATMUL.*zero point 0, not 3"):
        lower_op(graph, op)
