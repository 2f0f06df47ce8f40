"""SOFTMAX int8, with the compiler's table of exps and without; from int8 to int16 (output
scale 1/65536, zero point -32768), as the int16 SVDF keyword model ends: TFLite Micro's int8
steps with 16 output bits; and int16 to int16 as int16x8 models end: TFLite Micro's exp and
reciprocal tables, which the compiler fills. (float32 SOFTMAX runs in the corpus models.)"""

from __future__ import annotations

import numpy as np
import pytest
import tflite_builder as tb
from opcheck import check_inputs, every_int8, load, write_model
from tinyaot.compiler import lower_op
from tinyaot.errors import CompileError
from tinyaot.ops.softmax import softmax_luts

I16 = tb.tflite.TensorType.INT16
OUT_Q = {"scale": [1 / 65536], "zero_point": [-32768]}


def softmax_model(out_q: dict[str, list]) -> bytes:
    """Two SOFTMAX ops on int8 inputs of different scales, zero points, depths and betas."""
    tensors = [
        tb.Tensor("a", [4, 64], tb.INT8, scale=[0.1], zero_point=[3]),
        tb.Tensor("b", [16, 10], tb.INT8, scale=[0.02], zero_point=[-20]),
        tb.Tensor("sa", [4, 64], I16, **out_q),
        tb.Tensor("sb", [16, 10], I16, **out_q),
    ]
    ops = [
        tb.Operator(0, [0], [2], "SoftmaxOptions", {"Beta": 1.0}),
        tb.Operator(0, [1], [3], "SoftmaxOptions", {"Beta": 2.5}),
    ]
    graph = tb.SubGraph(tensors, ops, [0, 1], [2, 3])
    return tb.build(tb.Model([graph], [tb.OpCode(tb.OPS.SOFTMAX)]))


def test_softmax_int8_to_int16(tmp_path):
    path = write_model(softmax_model(OUT_Q), tmp_path)
    assert [op.kind for op in load(path).ops] == ["SOFTMAX", "SOFTMAX"]
    rng = np.random.default_rng(8)
    # Every int8 value in the rows of a; one dominant value per row of b; random rows.
    spike = np.full((16, 10), -128, np.int8)
    spike[np.arange(16), np.arange(16) % 10] = 127
    sets = [
        [every_int8((4, 64)), rng.integers(-128, 128, (16, 10), dtype=np.int8)],
        [rng.integers(-128, 128, (4, 64), dtype=np.int8), spike],
        [np.zeros((4, 64), np.int8), rng.integers(-30, -10, (16, 10), dtype=np.int8)],
    ]
    assert check_inputs(path, tmp_path, sets).exact


# Shapes, input scales and betas of int8 SOFTMAX: a classifier's few outputs (exps computed,
# no table), a detector's many rows of 2 (a table of 249 entries: differences below -248 count
# for nothing), rows of 256 with so coarse a scale that differences below -31 count for nothing
# (a table of 32 entries), and rows of 64.
INT8_CASES = [((1, 4), 0.1, 1.0), ((144, 2), 0.08, 1.0), ((4, 256), 0.5, 1.0), ((8, 64), 0.02, 2.5)]
INT8_OUT_Q = {"scale": [1 / 256], "zero_point": [-128]}


def test_softmax_int8(tmp_path):
    """Every difference to the row maximum, each under and past the cut-off, as TFLite Micro
    computes them; the table where the op computes more exps than it has entries."""
    n = len(INT8_CASES)
    tensors = [
        tb.Tensor(f"x{i}", list(shape), tb.INT8, scale=[scale], zero_point=[-1])
        for i, (shape, scale, _) in enumerate(INT8_CASES)
    ] + [
        tb.Tensor(f"s{i}", list(shape), tb.INT8, **INT8_OUT_Q)
        for i, (shape, _, _) in enumerate(INT8_CASES)
    ]
    ops = [
        tb.Operator(0, [i], [n + i], "SoftmaxOptions", {"Beta": beta})
        for i, (_, _, beta) in enumerate(INT8_CASES)
    ]
    graph = tb.SubGraph(tensors, ops, list(range(n)), list(range(n, 2 * n)))
    path = write_model(tb.build(tb.Model([graph], [tb.OpCode(tb.OPS.SOFTMAX)])), tmp_path)
    graph = load(path)
    tables = [lower_op(graph, op).params["exp_table"] for op in graph.ops]
    assert [None if t is None else len(t.values) for t in tables] == [None, 249, 32, 256]
    rng = np.random.default_rng(10)
    shapes = [shape for shape, _, _ in INT8_CASES]

    def rand(shape, lo=-128, hi=128):
        return rng.integers(lo, hi, shape, dtype=np.int8)

    every = every_int8(shapes[2])
    sets = [
        [rand(shapes[0]), rand(shapes[1]), every, rand(shapes[3])],
        [
            rand(shapes[0], -3, 3),
            rand(shapes[1], -2, 2),
            every[:, ::-1].copy(),
            rand(shapes[3], 100),
        ],
        [
            np.full(shapes[0], 127, np.int8),
            rand(shapes[1]),
            rand(shapes[2], -40, 0),
            every_int8(shapes[3]),
        ],
    ]
    assert check_inputs(path, tmp_path, sets).exact


def test_softmax_int16_output_quantisation_is_checked(tmp_path):
    path = write_model(softmax_model({"scale": [1 / 32768], "zero_point": [0]}), tmp_path)
    graph = load(path)
    with pytest.raises(CompileError, match="scale 1/65536 and zero point -32768"):
        lower_op(graph, graph.ops[0])


Q15 = {"scale": [1 / 32768], "zero_point": [0]}
# Input scales and betas: a difference of 65535 steps is about -10 (beta * scale = 10 / 65535),
# far past it (the exp table saturates), and so fine that whole rows come out nearly uniform.
INT16_CASES = [((512, 128), 1.5e-4, 1.0), ((16, 10), 0.01, 2.5), ((8, 33), 1e-5, 1.0)]


def softmax_int16_model(out_q: dict[str, list]) -> bytes:
    """One int16 SOFTMAX per case of INT16_CASES, side by side in one model."""
    n = len(INT16_CASES)
    tensors = [
        tb.Tensor(f"x{i}", list(shape), I16, scale=[scale], zero_point=[0])
        for i, (shape, scale, _) in enumerate(INT16_CASES)
    ] + [
        tb.Tensor(f"s{i}", list(shape), I16, **out_q) for i, (shape, _, _) in enumerate(INT16_CASES)
    ]
    ops = [
        tb.Operator(0, [i], [n + i], "SoftmaxOptions", {"Beta": beta})
        for i, (_, _, beta) in enumerate(INT16_CASES)
    ]
    graph = tb.SubGraph(tensors, ops, list(range(n)), list(range(n, 2 * n)))
    return tb.build(tb.Model([graph], [tb.OpCode(tb.OPS.SOFTMAX)]))


def test_softmax_int16_tables():
    """The tables as TFLite Micro fills them: exp(0) and 1/(1+0) at the top, 1/2 at the end,
    every entry within one step of the exact function (the bias moves a sample by at most half
    the interpolation's error at the midpoint), and monotonic."""
    exp_lut, recip_lut = softmax_luts()
    assert exp_lut.shape == recip_lut.shape == (513,)
    assert exp_lut[512] == 32767 and recip_lut[0] == 32767
    assert recip_lut[512] == 16384
    x = np.arange(513) / 512
    assert np.abs(exp_lut - np.exp(10 * (x - 1)) * 32767.5).max() <= 1.5
    assert np.abs(recip_lut - 32767.5 / (1 + x)).max() <= 1.5
    assert np.all(np.diff(exp_lut.astype(int)) >= 0) and np.all(np.diff(recip_lut.astype(int)) <= 0)


def test_softmax_int16(tmp_path):
    path = write_model(softmax_int16_model(Q15), tmp_path)
    assert [op.kind for op in load(path).ops] == ["SOFTMAX"] * len(INT16_CASES)
    rng = np.random.default_rng(9)
    shapes = [shape for shape, _, _ in INT16_CASES]
    every = np.arange(-32768, 32768, dtype=np.int16).reshape(shapes[0])
    spike = np.full(shapes[1], -32768, np.int16)
    spike[np.arange(16), np.arange(16) % 10] = 32767

    def rand(shape, lo=-32768, hi=32768):
        return rng.integers(lo, hi, shape, dtype=np.int16)

    sets = [
        # Every int16 value, in rows of consecutive values; and the rows reversed.
        [every, rand(shapes[1]), rand(shapes[2])],
        [every[:, ::-1].copy(), spike, np.zeros(shapes[2], np.int16)],
        [rand(shapes[0]), rand(shapes[1], -300, 300), rand(shapes[2], 32000, 32768)],
        [rand(shapes[0], -2000, 2000), rand(shapes[1], -5, 5), rand(shapes[2], -32768, -32000)],
    ]
    assert check_inputs(path, tmp_path, sets).exact


def test_softmax_int16_quantisation_is_checked(tmp_path):
    path = write_model(softmax_int16_model(OUT_Q), tmp_path)
    graph = load(path)
    with pytest.raises(CompileError, match="scale 1/32768 and zero point 0"):
        lower_op(graph, graph.ops[0])
