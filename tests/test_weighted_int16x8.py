"""int16x8 CONV_2D, DEPTHWISE_CONV_2D and FULLY_CONNECTED against TFLite Micro: int16
activations, int8 weights per channel, int64 bias, as the converter's 16x8 mode makes them.

One model holds every case as its own output, so one conversion and one build cover them
all. TRANSPOSE_CONV's int16x8 case is in test_op_transpose_conv.py, and TFLite Micro's own
int16x8 layer models in test_seanet.py.
"""

from __future__ import annotations

import numpy as np
import pytest
import tensorflow as tf
import tfmodels
from harness import check_against_tflm
from opcheck import load, write_model
from tinyaot.compiler import lower_op
from tinyaot.errors import CompileError
from tinyaot.ir import DType

IMAGE, VECTOR = (1, 9, 8, 3), (2, 20)
ACT = {"relu": tf.nn.relu, "relu6": tf.nn.relu6, None: lambda v: v}


def weights(rng: np.random.Generator, shape: tuple[int, ...], axis: int) -> np.ndarray:
    """Random weights whose output channels (along axis) differ in magnitude, so that the
    per-channel scales differ."""
    w = rng.uniform(-1, 1, shape).astype(np.float32)
    scale = np.geomspace(0.05, 1.0, shape[axis], dtype=np.float32)
    return w * scale.reshape([-1 if d == axis % len(shape) else 1 for d in range(len(shape))])


def cases(image, vector):
    rng = np.random.default_rng(0)
    out = []
    # CONV_2D: (filters, kernel, stride, padding, activation)
    for oc, (kh, kw), s, pad, act in [
        (8, (3, 3), 1, "SAME", "relu"),
        (4, (5, 3), 2, "VALID", "relu6"),
        (6, (1, 1), 1, "SAME", None),
    ]:
        f = weights(rng, (kh, kw, image.shape[3], oc), 3)
        y = tf.nn.conv2d(image, f, s, pad) + rng.uniform(-0.5, 0.5, oc).astype(np.float32)
        out.append(ACT[act](y))
    # DEPTHWISE_CONV_2D: (multiplier, kernel, stride, padding, activation)
    for mult, (kh, kw), s, pad, act in [
        (2, (3, 3), 1, "SAME", "relu"),
        (1, (3, 2), 2, "VALID", None),
    ]:
        f = weights(rng, (kh, kw, image.shape[3], mult), 3)
        y = tf.nn.depthwise_conv2d(image, f, (1, s, s, 1), pad)
        out.append(ACT[act](y + rng.uniform(-0.5, 0.5, 3 * mult).astype(np.float32)))
    # A chain, whose intermediates the planner may overlap: the kernels then run in reverse.
    y = tf.nn.relu(tf.nn.conv2d(image, weights(rng, (3, 3, 3, 4), 3), 1, "SAME"))
    y = tf.nn.conv2d(y, weights(rng, (1, 1, 4, 8), 3), 2, "VALID")
    y = tf.nn.depthwise_conv2d(y, weights(rng, (3, 3, 8, 1), 2), (1, 1, 1, 1), "SAME")
    out.append(tf.nn.conv2d(y, weights(rng, (1, 1, 8, 4), 3), 1, "SAME"))
    # FULLY_CONNECTED: (units, activation)
    for units, act in [(6, None), (5, "relu")]:
        w = weights(rng, (vector.shape[1], units), 1)
        out.append(ACT[act](tf.matmul(vector, w) + rng.uniform(-0.5, 0.5, units).astype("f4")))
    return out


KINDS = ["CONV_2D"] * 6 + ["DEPTHWISE_CONV_2D"] * 3 + ["FULLY_CONNECTED"] * 2


def int32_cases(image, vector):
    """What the converter makes with int32 biases: TFLM sums those in int32."""
    rng = np.random.default_rng(1)
    out = []
    for oc, s, act in [(8, 1, "relu"), (5, 2, None)]:
        y = tf.nn.conv2d(image, weights(rng, (3, 3, image.shape[3], oc), 3), s, "SAME")
        out.append(ACT[act](y + rng.uniform(-0.5, 0.5, oc).astype(np.float32)))
    for units, act in [(6, None), (5, "relu"), (4, None)]:
        w = weights(rng, (vector.shape[1], units), 1)
        out.append(ACT[act](tf.matmul(vector, w) + rng.uniform(-0.5, 0.5, units).astype("f4")))
    return out


def without_bias(model: bytes, op_index: int) -> bytes:
    """The model with op `op_index`'s bias input absent."""
    from tensorflow.lite.tools import flatbuffer_utils

    obj = flatbuffer_utils.convert_bytearray_to_object(bytearray(model))
    obj.subgraphs[0].operators[op_index].inputs[2] = -1
    return bytes(flatbuffer_utils.convert_object_to_bytearray(obj))


@pytest.fixture(scope="module")
def model(tmp_path_factory):
    data = tfmodels.convert(cases, [IMAGE, VECTOR], int8=True, int16x8=True)
    return write_model(data, tmp_path_factory.mktemp("int16x8"))


@pytest.fixture(scope="module")
def int32_model(tmp_path_factory):
    flags = {"_experimental_full_integer_quantization_bias_type": tf.int32}
    data = tfmodels.convert(int32_cases, [IMAGE, VECTOR], True, int16x8=True, flags=flags)
    graph = load(write_model(data, tmp_path_factory.mktemp("int32_bias")))
    last_fc = max(op.index for op in graph.ops if op.kind == "FULLY_CONNECTED")
    return write_model(without_bias(data, last_fc), tmp_path_factory.mktemp("int32_bias"))


def test_weighted_int16x8_matches_tflm(model, tmp_path):
    graph = load(model)
    assert sorted(op.kind for op in graph.ops) == sorted(KINDS)
    for op in graph.ops:
        inp, filt, bias, out = (graph.tensors[i] for i in (*op.inputs[:3], op.outputs[0]))
        assert (inp.dtype.short, filt.dtype.short, bias.dtype.short, out.dtype.short) == (
            "int16",
            "int8",
            "int64",
            "int16",
        ), op.describe()
    acts = sorted(op.options["FusedActivationFunction"] for op in graph.ops)
    assert acts == [0] * 6 + [1] * 4 + [3], "the activations must be fused"
    assert check_against_tflm(model, tmp_path, sets=3).exact
    code = (tmp_path / "gen" / "m.c").read_text()
    assert "reverse = 1" in code, "no kernel ran in reverse over its input"


def test_int32_bias_matches_tflm(int32_model, tmp_path):
    """int32 biases, and a FULLY_CONNECTED without bias under QuantizedBiasType INT32: TFLM
    sums in int32 and requantises with two roundings."""
    graph = load(int32_model)
    assert sorted(op.kind for op in graph.ops) == ["CONV_2D"] * 2 + ["FULLY_CONNECTED"] * 3
    biases = [op.inputs[2] for op in graph.ops]
    kinds = sorted(graph.tensors[i].dtype.short if i is not None else "absent" for i in biases)
    assert kinds == ["absent"] + ["int32"] * 4
    assert {op.options.get("QuantizedBiasType") for op in graph.ops} == {2}
    assert check_against_tflm(int32_model, tmp_path, sets=3).exact
    assert (tmp_path / "gen" / "m.c").read_text().count("int32_sum = 1") == 5


def test_int16_zero_point_rejected(model):
    graph = load(model)
    for op in graph.ops:
        out = graph.tensors[op.outputs[0]]
        assert out.quant is not None
        out.quant = type(out.quant)(out.quant.scales, (5,), 0)
        with pytest.raises(CompileError, match=f"{op.kind}.*zero point 0, not 5"):
            lower_op(graph, op)


def test_int16_bias_dtypes(model):
    """DEPTHWISE_CONV_2D's int16 kernel in TFLM reads its bias as int64 whatever it is; CONV_2D
    and FULLY_CONNECTED take int32 as well."""
    graph = load(model)
    for kind, allowed in [("DEPTHWISE_CONV_2D", "int64"), ("CONV_2D", "int64 or int32")]:
        op = next(op for op in graph.ops if op.kind == kind)
        bias = graph.tensors[op.inputs[2]]
        assert bias.data is not None
        bias.dtype, bias.data = DType.INT16, bias.data.astype(np.int16)
        why = f"{kind}.*bias must be {bias.num_elements} values of {allowed} under"
        with pytest.raises(CompileError, match=why):
            lower_op(graph, op)
