"""SOFTMAX from int8 to int16 (output scale 1/65536, zero point -32768), as the int16 SVDF
keyword model ends: TFLite Micro's int8 steps with 16 output bits. (int8 and float32 SOFTMAX
run in the corpus models.)"""

from __future__ import annotations

import numpy as np
import pytest
import tflite_builder as tb
from opcheck import check_inputs, every_int8, load, write_model
from tinyaot.compiler import lower_op
from tinyaot.errors import CompileError

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


def test_softmax_int16_output_quantisation_is_checked(tmp_path):
    path = write_model(softmax_model({"scale": [1 / 32768], "zero_point": [0]}), tmp_path)
    graph = load(path)
    with pytest.raises(CompileError, match="scale 1/65536 and zero point -32768"):
        lower_op(graph, graph.ops[0])
