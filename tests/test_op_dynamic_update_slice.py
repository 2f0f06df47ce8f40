"""DYNAMIC_UPDATE_SLICE, hand-built: float32, int8, int16 and int32 operands, int32 and int64
start indices given at run time, inside the operand and clamped at either end. One model
holds one op per dtype, so one build covers them."""

from __future__ import annotations

import numpy as np
import pytest
import tflite_builder as tb
from harness import check_against_tflm
from opcheck import check_inputs, load, op_kinds, write_model
from tinyaot.compiler import lower_op
from tinyaot.errors import CompileError

TT = tb.tflite.TensorType
OPERAND, UPDATE = [3, 4, 5], [2, 2, 3]
# (operand dtype, NumPy dtype, start indices int64)
CASES = [
    (TT.FLOAT32, np.float32, False),
    (TT.INT8, np.int8, True),
    (TT.INT16, np.int16, False),
    (TT.INT32, np.int32, True),
]


def _model(update_shape: list[int] = UPDATE) -> bytes:
    quant = ([0.1], [0])
    tensors = [tb.Tensor("start32", [3], TT.INT32), tb.Tensor("start64", [3], TT.INT64)]
    ops, outputs = [], []
    for i, (dtype, _, wide) in enumerate(CASES):
        q = quant if dtype == TT.INT8 else (None, None)
        base = len(tensors)
        tensors += [
            tb.Tensor(f"operand{i}", OPERAND, dtype, 0, *q),
            tb.Tensor(f"update{i}", update_shape, dtype, 0, *q),
            tb.Tensor(f"out{i}", OPERAND, dtype, 0, *q),
        ]
        ops.append(tb.Operator(0, [base, base + 1, int(wide)], [base + 2]))
        outputs.append(base + 2)
    inputs = [t for t in range(len(tensors)) if t not in outputs]
    return tb.build(
        tb.Model(
            subgraphs=[tb.SubGraph(tensors=tensors, operators=ops, inputs=inputs, outputs=outputs)],
            opcodes=[tb.OpCode(tb.OPS.DYNAMIC_UPDATE_SLICE)],
        )
    )


def _inputs(start: list[int]) -> list[np.ndarray]:
    rng = np.random.default_rng(1)
    out = [np.array(start, np.int32), np.array(start, np.int64)]
    for _, np_dtype, _ in CASES:
        out.append(rng.integers(-100, 100, OPERAND).astype(np_dtype))
        out.append(rng.integers(-100, 100, UPDATE).astype(np_dtype))
    return out


def _want(inputs: list[np.ndarray], start: list[int]) -> list[np.ndarray]:
    first = [min(max(0, s), o - u) for s, o, u in zip(start, OPERAND, UPDATE, strict=True)]
    block = tuple(slice(f, f + u) for f, u in zip(first, UPDATE, strict=True))
    want = []
    for i in range(len(CASES)):
        x = inputs[2 + 2 * i].copy()
        x[block] = inputs[3 + 2 * i]
        want.append(x)
    return want


# Inside, at the top corner, and past both ends (clamped to 0 and to dim - update dim).
STARTS = [[1, 1, 2], [1, 2, 2], [-3, 9, 1], [-(2**31), 2**31 - 1, -1]]


def test_dynamic_update_slice(tmp_path):
    path = write_model(_model(), tmp_path)
    assert op_kinds(path) == ["DYNAMIC_UPDATE_SLICE"] * len(CASES)
    check_against_tflm(path, tmp_path, sets=2)
    sets = [_inputs(s) for s in STARTS]
    got = check_inputs(path, tmp_path, sets).outputs
    for inputs, start, outs in zip(sets, STARTS, got, strict=True):
        for g, w in zip(outs, _want(inputs, start), strict=True):
            np.testing.assert_array_equal(g, w)


def test_dynamic_update_slice_rejects_a_larger_update(tmp_path):
    graph = load(write_model(_model([2, 5, 3]), tmp_path))
    with pytest.raises(CompileError, match="DYNAMIC_UPDATE_SLICE.*does not fit operand"):
        lower_op(graph, graph.ops[0])
