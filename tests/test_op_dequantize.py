"""DEQUANTIZE: int8 and uint8 -> float32, bit for bit as TFLite Micro computes it."""

from __future__ import annotations

import numpy as np
import pytest
import tfmodels
from harness import check_against_tflm
from opcheck import check_inputs, every_int8, load, write_model
from tinyaot.compiler import lower_op
from tinyaot.errors import CompileError
from tinyaot.ir import DType, Graph, Op, Quant, Tensor

SHAPE = (1, 16, 16)


def _reshape(x):
    import tensorflow as tf

    return tf.reshape(x, (1, 256))


def _relu(x):
    import tensorflow as tf

    return tf.nn.relu(x)


@pytest.mark.parametrize("low,high", [(-1.0, 1.0), (-0.2, 3.0)], ids=["symmetric", "asymmetric"])
def test_dequantize_int8_to_float(tmp_path, low, high):
    data = tfmodels.convert(_reshape, [SHAPE], int8=True, low=low, high=high, float_output=True)
    path = write_model(data, tmp_path)
    graph = load(path)
    kinds = [op.kind for op in graph.ops]
    assert kinds.count("DEQUANTIZE") == 1 and set(kinds) <= {"DEQUANTIZE", "RESHAPE"}
    op = graph.ops[kinds.index("DEQUANTIZE")]
    assert graph.tensors[op.inputs[0]].dtype == DType.INT8
    assert graph.tensors[op.outputs[0]].dtype == DType.FLOAT32
    # The product is rounded to float once, as TFLite's double product is: exact.
    assert check_against_tflm(path, tmp_path, sets=5).exact
    assert check_inputs(path, tmp_path, [[every_int8(SHAPE)]]).exact


def test_dequantize_uint8_to_float(tmp_path):
    """A uint8 input through RESHAPE into DEQUANTIZE, every byte value, two zero points."""
    data = tfmodels.convert(_reshape, [SHAPE], int8=True, low=-0.2, high=3.0, float_output=True)
    graph = load(write_model(data, tmp_path, "int8"))
    assert [op.kind for op in graph.ops] == ["RESHAPE", "DEQUANTIZE"]
    every = np.resize(np.arange(256, dtype=np.uint8), SHAPE)
    scale = graph.tensors[graph.inputs[0]].scale
    for zero_point in (0, 131):
        retyped = data
        for t in (graph.inputs[0], graph.ops[1].inputs[0]):
            retyped = tfmodels.retype_tensor(retyped, t, "UINT8", (scale, zero_point))
        path = write_model(retyped, tmp_path, f"uint8_{zero_point}")
        t = load(path).tensors[graph.ops[1].inputs[0]]
        assert (t.dtype, t.zero_point) == (DType.UINT8, zero_point)
        assert check_inputs(path, tmp_path, [[every]]).exact


def test_quantize_int8_body_dequantize(tmp_path):
    """Float in and out around an int8 RELU: QUANTIZE, RELU, DEQUANTIZE."""
    data = tfmodels.convert(_relu, [(1, 4, 4, 3)], int8=True, float_input=True, float_output=True)
    path = write_model(data, tmp_path)
    assert [op.kind for op in load(path).ops] == ["QUANTIZE", "RELU", "DEQUANTIZE"]
    assert check_against_tflm(path, tmp_path, sets=5).exact


def test_dequantize_rejects_float_input():
    graph = Graph(
        tensors=[
            Tensor(0, "in", DType.FLOAT32, (4,)),
            Tensor(1, "out", DType.FLOAT32, (4,), Quant((0.1,), (0,))),
        ],
        ops=[Op(0, "DEQUANTIZE", [0], [1])],
        inputs=[0],
        outputs=[1],
    )
    with pytest.raises(CompileError, match="float32 -> float32 is not supported"):
        lower_op(graph, graph.ops[0])


def test_every_int8_covers_the_range():
    assert np.unique(every_int8(SHAPE)).size == 256
