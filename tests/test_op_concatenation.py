"""CONCATENATION against TFLite Micro: int8 and float32, channel and spatial axes."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
import tensorflow as tf
import tfmodels
from harness import check_against_tflm
from tinyaot import frontend
from tinyaot.compiler import Options, compile_graph
from tinyaot.errors import CompileError

CONST = np.linspace(-0.9, 0.9, 1 * 4 * 5 * 2, dtype=np.float32).reshape(1, 4, 5, 2)

# name: (function, input shapes)
CASES = {
    "channels_3": (
        lambda a, b, c: tf.concat([a, b, c], axis=3),
        [(1, 4, 5, 3), (1, 4, 5, 2), (1, 4, 5, 4)],
    ),
    "height_3": (
        lambda a, b, c: tf.concat([a, b, c], axis=1),
        [(1, 2, 5, 3), (1, 4, 5, 3), (1, 1, 5, 3)],
    ),
    "width_negative_axis_3": (
        lambda a, b, c: tf.concat([a, b, c], axis=-2),
        [(2, 3, 1, 2), (2, 3, 4, 2), (2, 3, 2, 2)],
    ),
    "batch_2": (lambda a, b: tf.concat([a, b], axis=0), [(2, 6), (3, 6)]),
    "last_axis_2d_4": (
        lambda a, b, c, d: tf.concat([a, b, c, d], axis=1),
        [(3, 1), (3, 5), (3, 2), (3, 3)],
    ),
    # A constant input is read from flash; the converter folds it only when all are.
    "with_constant": (lambda a: tf.concat([a, tf.constant(CONST)], axis=3), [(1, 4, 5, 3)]),
}


def build(tmp_path, name, int8):
    fn, shapes = CASES[name]
    data = tfmodels.convert(fn, shapes, int8=int8)
    path = tmp_path / f"{name}.tflite"
    path.write_bytes(data)
    graph = frontend.load(path)
    assert [op.kind for op in graph.ops] == ["CONCATENATION"]
    return path, graph


@pytest.mark.parametrize("int8", [False, True], ids=["float32", "int8"])
@pytest.mark.parametrize("name", list(CASES))
def test_concatenation_matches_tflm(name, int8, tmp_path):
    path, graph = build(tmp_path, name, int8)
    op = graph.ops[0]
    assert len(op.inputs) == max(2, len(CASES[name][1]))
    assert any(graph.tensors[i].is_const for i in op.inputs) == (name == "with_constant")
    result = check_against_tflm(path, tmp_path, sets=5)
    assert result.exact


def test_int8_inputs_with_another_scale_are_rejected(tmp_path):
    _, graph = build(tmp_path, "channels_3", True)
    t = graph.tensors[graph.ops[0].inputs[1]]
    assert t.quant is not None
    t.quant = dataclasses.replace(t.quant, scales=(t.scale * 2,))
    with pytest.raises(CompileError, match="int8 inputs must have the output's scale"):
        compile_graph(graph, Options("m"), "m.tflite")


def test_int8_inputs_with_another_zero_point_are_rejected(tmp_path):
    _, graph = build(tmp_path, "height_3", True)
    t = graph.tensors[graph.ops[0].inputs[2]]
    assert t.quant is not None
    t.quant = dataclasses.replace(t.quant, zero_points=(t.zero_point + 3,))
    with pytest.raises(CompileError, match="zero point"):
        compile_graph(graph, Options("m"), "m.tflite")


def test_mismatched_shapes_are_rejected(tmp_path):
    _, graph = build(tmp_path, "channels_3", False)
    graph.tensors[graph.ops[0].inputs[0]].shape = (1, 4, 6, 3)
    with pytest.raises(CompileError, match="does not fit output"):
        compile_graph(graph, Options("m"), "m.tflite")


def test_more_than_ten_inputs_are_rejected(tmp_path):
    data = tfmodels.convert(lambda *xs: tf.concat(list(xs), axis=1), [(1, 2)] * 11, int8=False)
    path = tmp_path / "m.tflite"
    path.write_bytes(data)
    with pytest.raises(CompileError, match="11 inputs and 1 outputs; supported: 1 to 10 inputs"):
        compile_graph(frontend.load(path), Options("m"), "m.tflite")


def test_concatenation_int16_matches_tflm(tmp_path):
    """int16x8: channel, spatial and batch axes and a constant input, one model."""

    def fn(a, b, c):
        return (
            tf.concat([a, b, c], axis=3),
            tf.concat([c, a], axis=1),
            tf.concat([b, a, c], axis=-2),
            tf.concat([a, tf.constant(CONST[:, :, :, :1] + np.zeros((1, 4, 5, 3), np.float32))], 0),
        )

    shapes = [(1, 4, 5, 3)] * 3
    data = tfmodels.convert(fn, shapes, int8=True, int16x8=True)
    path = tmp_path / "int16.tflite"
    path.write_bytes(data)
    graph = frontend.load(path)
    kinds = [op.kind for op in graph.ops]
    assert kinds.count("CONCATENATION") == 4 and set(kinds) <= {"CONCATENATION", "QUANTIZE"}
    assert {graph.tensors[o].dtype.short for o in graph.outputs} == {"int16"}
    assert check_against_tflm(path, tmp_path, sets=3).exact
