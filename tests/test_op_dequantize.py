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
from tinyaot.lowering import ByFpu
from tinyaot.ops.lut_common import FLOAT_TABLE_MIN_ELEMENTS

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


@pytest.mark.parametrize("elements", [256, 16], ids=["table", "product"])
def test_dequantize_table_where_no_fpu(tmp_path, elements):
    """From FLOAT_TABLE_MIN_ELEMENTS int8 elements on, cores without an FPU (the host among them)
    look each byte's float up; every byte value, exact against TFLite Micro either way."""
    shape = (1, elements)
    data = tfmodels.convert(
        lambda x: _relu(x) + 0.0, [shape], int8=True, low=-0.7, high=2.3, float_output=True
    )
    path = write_model(data, tmp_path)
    graph = load(path)
    op = next(op for op in graph.ops if op.kind == "DEQUANTIZE")
    inp = graph.tensors[op.inputs[0]]
    table = lower_op(graph, op).params["table"]
    if elements < FLOAT_TABLE_MIN_ELEMENTS:
        assert table is None
    else:
        assert isinstance(table, ByFpu) and table.fpu is None
        floats = table.soft.values
        assert floats.dtype == np.float32 and floats.shape == (256,)
        # Byte 0x80 is int8 -128, byte 0x7f is 127.
        signed = np.arange(256).astype(np.uint8).view(np.int8).astype(np.int64)
        expect = np.float32(inp.scale) * (signed - inp.zero_point).astype(np.float32)
        np.testing.assert_array_equal(floats, expect)
        assert floats[0x80] == np.float32(inp.scale) * np.float32(-128 - inp.zero_point)
    every = np.resize(np.arange(-128, 128, dtype=np.int8), shape)
    assert check_inputs(path, tmp_path, [[every]]).exact
    assert check_against_tflm(path, tmp_path, sets=3).exact
