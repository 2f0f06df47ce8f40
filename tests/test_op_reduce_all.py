"""REDUCE_ALL on bool, hand-built (one REDUCE_ALL per axes case in one model): inner, outer,
split and all axes, keep_dims both ways; a constant input folds."""

from __future__ import annotations

import numpy as np
import pytest
import tflite_builder as tb
from harness import check_against_tflm
from opcheck import check_inputs, load, op_kinds, write_model
from tinyaot.compiler import lower_op
from tinyaot.errors import CompileError

BOOL = tb.tflite.TensorType.BOOL
SHAPE = [2, 3, 4]
# (axes, keep_dims)
CASES = [([2], False), ([0, 2], True), ([-3], False), ([0, 1, 2], False)]


def _out_shape(axes: list[int], keep: bool) -> list[int]:
    dims = {a % len(SHAPE) for a in axes}
    return [1 if d in dims else s for d, s in enumerate(SHAPE) if keep or d not in dims]


def _model(const_axes: bool = True) -> bytes:
    n = len(CASES)
    inp = tb.Tensor("input", SHAPE, BOOL)
    axes = [
        tb.Tensor(f"axes{i}", [len(a)], tb.INT32, i + 1 if const_axes else 0)
        for i, (a, _) in enumerate(CASES)
    ]
    outs = [tb.Tensor(f"out{i}", _out_shape(a, k), BOOL) for i, (a, k) in enumerate(CASES)]
    ops = [
        tb.Operator(0, [0, 1 + i], [1 + n + i], "ReducerOptions", {"KeepDims": k})
        for i, (_, k) in enumerate(CASES)
    ]
    buffers = [tb.Buffer()] + [tb.Buffer(tb.int32_bytes(a)) for a, _ in CASES]
    inputs = [0] if const_axes else list(range(n + 1))
    return tb.build(
        tb.Model(
            subgraphs=[
                tb.SubGraph(
                    tensors=[inp, *axes, *outs],
                    operators=ops,
                    inputs=inputs,
                    outputs=list(range(1 + n, 1 + 2 * n)),
                )
            ],
            opcodes=[tb.OpCode(tb.OPS.REDUCE_ALL)],
            buffers=buffers,
        )
    )


def _chosen() -> np.ndarray:
    """True but for two elements, so that some reductions see a false and some do not."""
    x = np.ones(SHAPE, bool)
    x[0, 1, 2] = x[1, 2, 0] = False
    return x


def _want(x: np.ndarray) -> list[np.ndarray]:
    return [np.all(x, axis=tuple(a), keepdims=k).reshape(_out_shape(a, k)) for a, k in CASES]


def test_reduce_all(tmp_path):
    path = write_model(_model(), tmp_path)
    assert op_kinds(path) == ["REDUCE_ALL"] * len(CASES)
    check_against_tflm(path, tmp_path, sets=2)
    x = _chosen()
    got = check_inputs(path, tmp_path, [[x], [np.ones(SHAPE, bool)]]).outputs
    for g, w in zip(got[0], _want(x), strict=True):
        np.testing.assert_array_equal(g, w)
    assert all(g.all() for g in got[1])


def test_reduce_all_folds(tmp_path):
    x = _chosen()
    graph = load(write_model(_model(), tmp_path))
    # The input made a constant after loading: a model of constants alone has no inputs.
    graph.tensors[0].data = x
    for op, want in zip(graph.ops, _want(x), strict=True):
        assert lower_op(graph, op) is None
        np.testing.assert_array_equal(graph.tensor(op.outputs[0]).data, want)


def test_reduce_all_rejects_runtime_axes(tmp_path):
    graph = load(write_model(_model(const_axes=False), tmp_path))
    with pytest.raises(CompileError, match="REDUCE_ALL.*axis must be a constant"):
        lower_op(graph, graph.ops[0])
