"""PAD and PADV2 against TFLite Micro: int8 and float32, borders on several axes."""

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

# name: (input shape, paddings, constant value or None)
CASES = {
    "image_hw": ((1, 4, 5, 3), [[0, 0], [1, 2], [2, 1], [0, 0]], None),
    "all_axes": ((2, 3, 4, 2), [[1, 0], [0, 2], [1, 1], [2, 1]], None),
    "last_axis_3d": ((2, 5, 6), [[0, 0], [0, 0], [3, 1]], None),
    "2d": ((3, 7), [[2, 0], [1, 3]], None),
    "5d": ((2, 3, 2, 4, 3), [[0, 1], [1, 0], [0, 0], [2, 1], [0, 1]], None),
    "v2_channels": ((1, 4, 5, 3), [[0, 0], [1, 2], [2, 1], [1, 0]], 0.5),
    "v2_3d": ((2, 5, 6), [[1, 1], [0, 2], [0, 0]], -0.25),
}


def build(tmp_path, name, int8):
    shape, paddings, value = CASES[name]
    if value is None:

        def fn(x):
            return tf.pad(x, paddings)
    else:

        def fn(x):
            return tf.pad(x, paddings, constant_values=value)

    # An asymmetric range gives a non-zero output zero point, the int8 pad value.
    data = tfmodels.convert(fn, [shape], int8=int8, low=-0.3, high=1.0)
    path = tmp_path / f"{name}.tflite"
    path.write_bytes(data)
    graph = frontend.load(path)
    assert [op.kind for op in graph.ops] == ["PADV2" if value is not None else "PAD"]
    return path, graph


@pytest.mark.parametrize("int8", [False, True], ids=["float32", "int8"])
@pytest.mark.parametrize("name", list(CASES))
def test_pad_matches_tflm(name, int8, tmp_path):
    path, graph = build(tmp_path, name, int8)
    out = graph.tensors[graph.outputs[0]]
    if int8:
        assert out.dtype.short == "int8" and out.zero_point != 0
    result = check_against_tflm(path, tmp_path, sets=5)
    assert result.exact


def int16_pad_values(model: bytes, values: dict[float, int]) -> bytes:
    """The converter leaves an int16x8 PADV2's pad value float32, which TFLite Micro refuses:
    each float32 scalar constant becomes the int16 value `values` maps it to."""
    from tensorflow.lite.python import schema_py_generated as schema
    from tensorflow.lite.tools import flatbuffer_utils

    obj = flatbuffer_utils.convert_bytearray_to_object(bytearray(model))
    for t in obj.subgraphs[0].tensors:
        buf = obj.buffers[t.buffer]
        if t.type == schema.TensorType.FLOAT32 and buf.data is not None and len(buf.data) == 4:
            t.type = schema.TensorType.INT16
            value = float(np.frombuffer(bytes(buf.data), np.float32)[0])
            buf.data = np.int16(values[value]).tobytes()
    return bytes(flatbuffer_utils.convert_object_to_bytearray(obj))


def test_pad_int16_matches_tflm(tmp_path):
    """int16x8: PAD fills with 0, PADV2 with its stored value as it stands; four cases, one
    model."""

    def fn(x):
        y = tf.reshape(x, (2, 3, 4, 2))
        return (
            tf.pad(x, [[0, 0], [1, 2], [2, 1], [0, 0]]),
            tf.pad(y, [[1, 0], [0, 2], [1, 1], [2, 1]]),
            tf.pad(x, [[0, 0], [1, 2], [2, 1], [1, 0]], constant_values=0.5),
            tf.pad(y, [[1, 1], [0, 2], [0, 0], [0, 0]], constant_values=-0.25),
        )

    data = tfmodels.convert(fn, [(1, 4, 4, 3)], int8=True, int16x8=True, low=-0.3, high=1.0)
    path = tmp_path / "pad_int16.tflite"
    path.write_bytes(int16_pad_values(data, {0.5: 12345, -0.25: -32768}))
    graph = frontend.load(path)
    kinds = [op.kind for op in graph.ops if op.kind != "RESHAPE"]
    assert sorted(kinds) == ["PAD", "PAD", "PADV2", "PADV2"]
    assert {graph.tensors[o].dtype.short for o in graph.outputs} == {"int16"}
    assert check_against_tflm(path, tmp_path, sets=3).exact


def test_int8_pad_value_must_share_output_quantisation(tmp_path):
    _, graph = build(tmp_path, "v2_channels", True)
    value = graph.tensors[graph.ops[0].inputs[2]]
    assert value.quant is not None
    value.quant = dataclasses.replace(value.quant, zero_points=(value.zero_point + 1,))
    with pytest.raises(CompileError, match="pad value must have the output's scale"):
        compile_graph(graph, Options("m"), "m.tflite")


def test_negative_paddings_are_rejected(tmp_path):
    _, graph = build(tmp_path, "2d", False)
    paddings = graph.tensors[graph.ops[0].inputs[1]]
    paddings.data = np.array([[2, 0], [1, -1]], dtype=np.int32)
    graph.tensors[graph.outputs[0]].shape = (5, 7)
    with pytest.raises(CompileError, match="negative paddings"):
        compile_graph(graph, Options("m"), "m.tflite")


def test_output_shape_must_match_paddings(tmp_path):
    _, graph = build(tmp_path, "2d", False)
    graph.tensors[graph.outputs[0]].shape = (5, 10)
    with pytest.raises(CompileError, match="is not input"):
        compile_graph(graph, Options("m"), "m.tflite")
