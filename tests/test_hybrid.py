"""Hybrid float models (float32 activations, int8 weights, from dynamic-range quantisation):
FULLY_CONNECTED, CONV_2D, DEPTHWISE_CONV_2D and BATCH_MATMUL in one model, with per-channel
and with per-tensor weights.

TFLite Micro refuses these models; LiteRT runs them, quantising the input to int8 on the
fly, which tinyaot does not (README, "Hybrid float"). So the outputs are checked twice:
within HYBRID_TOL of LiteRT's, and within FLOAT_RTOL of TFLite Micro running the float
model whose weights are the hybrid model's dequantised, which is what tinyaot computes.
"""

from __future__ import annotations

import numpy as np
import pytest
import tensorflow as tf
import tfmodels
from closeness import float_error
from harness import check_against_tflm, compile_model, split_outputs
from host import runner
from opcheck import load, write_model
from tinyaot.compiler import lower_op
from tinyaot.errors import CompileError

# Largest |tinyaot - LiteRT| over the largest |LiteRT| of an output: LiteRT's int8 input
# rounding (half a step of the input's range over 255, asymmetric) summed over the depth.
# Measured: at most 0.0062 here (printed with -s).
HYBRID_TOL = 0.01

SHAPES = [(1, 6, 6, 16), (3, 64), (2, 5, 32)]
RNG = np.random.default_rng(7)
# The converter keeps weights of fewer than 1024 elements float.
CONV_W = RNG.normal(size=(3, 3, 16, 16)).astype(np.float32)
DW_W = RNG.normal(size=(3, 3, 16, 8)).astype(np.float32)
FC_W = RNG.normal(size=(64, 32)).astype(np.float32)
BMM_W = RNG.normal(size=(2, 32, 40)).astype(np.float32)
CONV_B = np.linspace(-0.5, 0.5, 16, dtype=np.float32)
FC_B = np.linspace(-1.0, 1.0, 32, dtype=np.float32)


def layers(weights):
    conv_w, dw_w, fc_w, bmm_w = weights

    def fn(x, y, z):
        a = tf.nn.relu(tf.nn.conv2d(x, conv_w, [1, 2, 2, 1], "SAME") + CONV_B)
        b = tf.nn.depthwise_conv2d(x, dw_w, [1, 1, 1, 1], "VALID")
        c = tf.matmul(y, fc_w) + FC_B
        d = tf.matmul(z, bmm_w)
        return a, b, c, d

    return fn


def dequantised(path) -> list[np.ndarray]:
    """The hybrid model's weights as float, in TensorFlow's layouts."""
    graph = load(path)
    found = {}
    for op in graph.ops:
        w = graph.tensors[op.inputs[1]]
        assert w.dtype.short == "int8" and w.quant is not None, op.describe()
        scales = np.asarray(w.quant.scales, np.float32)
        shape = [1] * len(w.shape)
        if scales.size > 1:
            shape[w.quant.axis] = scales.size
        found[op.kind] = w.data.astype(np.float32) * scales.reshape(shape)
    conv = found["CONV_2D"].transpose(1, 2, 3, 0)  # OHWI -> HWIO
    dw = found["DEPTHWISE_CONV_2D"].reshape(3, 3, 16, 8)  # 1HW(C*M) -> HWCM
    return [conv, dw, found["FULLY_CONNECTED"].T, found["BATCH_MATMUL"]]


def litert(path, inputs: list[np.ndarray]) -> list[np.ndarray]:
    from ai_edge_litert.interpreter import Interpreter

    interp = Interpreter(model_path=str(path))
    interp.allocate_tensors()
    for d, x in zip(interp.get_input_details(), inputs, strict=True):
        interp.set_tensor(d["index"], x)
    interp.invoke()
    return [interp.get_tensor(d["index"]) for d in interp.get_output_details()]


FLAGS = {
    "per-channel": {},
    "per-tensor": {
        "_experimental_disable_per_channel": True,
        "_experimental_disable_per_channel_quantization_for_dense_layers": True,
    },
}


@pytest.mark.parametrize("variant", list(FLAGS))
def test_hybrid_matches_litert_and_the_dequantised_float_model(variant, tmp_path):
    model = tfmodels.convert(
        layers((CONV_W, DW_W, FC_W, BMM_W)),
        SHAPES,
        False,
        flags={"optimizations": [tf.lite.Optimize.DEFAULT], **FLAGS[variant]},
    )
    path = write_model(model, tmp_path, "hybrid")
    graph = load(path)
    kinds = sorted(op.kind for op in graph.ops)
    assert kinds == ["BATCH_MATMUL", "CONV_2D", "DEPTHWISE_CONV_2D", "FULLY_CONNECTED"]
    per_channel = {op.kind: graph.tensors[op.inputs[1]].quant.per_channel for op in graph.ops}
    want_pc = variant == "per-channel"
    assert per_channel == {k: want_pc and k != "BATCH_MATMUL" for k in kinds}

    exe = runner.build(compile_model(path, tmp_path / "gen"), "m", tmp_path)
    rng = np.random.default_rng(1)
    worst = 0.0
    for _ in range(3):
        inputs = [rng.uniform(-1.0, 1.0, s).astype(np.float32) for s in SHAPES]
        want = litert(path, inputs)
        got = split_outputs(runner.run(exe, [x.tobytes() for x in inputs]), want)
        for i, (g, w) in enumerate(zip(got, want, strict=True)):
            # LiteRT 2.3.0's per-tensor hybrid DEPTHWISE_CONV_2D writes zeros and denormals
            # (it reads per-channel scales past the one there is); the float model below
            # checks that output.
            if not (variant == "per-tensor" and i == 1):
                worst = max(worst, float_error(g, w))
    assert 0.0 < worst <= HYBRID_TOL, worst
    print(f"{variant}: largest error against LiteRT {worst:.4f} of the output's range")

    # The float model with the dequantised weights, on TFLite Micro: what tinyaot computes,
    # each sum scaled once rather than weight by weight.
    float_model = tfmodels.convert(layers(dequantised(path)), SHAPES, False)
    assert check_against_tflm(write_model(float_model, tmp_path, "float"), tmp_path / "f", sets=2)


def test_hybrid_refuses_asymmetric_weights_and_other_weight_dtypes(tmp_path):
    model = tfmodels.convert(
        layers((CONV_W, DW_W, FC_W, BMM_W)),
        SHAPES,
        False,
        flags={"optimizations": [tf.lite.Optimize.DEFAULT]},
    )
    graph = load(write_model(model, tmp_path, "hybrid"))
    fc = next(op for op in graph.ops if op.kind == "FULLY_CONNECTED")
    w = graph.tensors[fc.inputs[1]]
    w.quant = type(w.quant)(w.quant.scales, (3,) * len(w.quant.scales), w.quant.axis)
    with pytest.raises(CompileError, match="FULLY_CONNECTED.*must be symmetric"):
        lower_op(graph, fc)
    bmm = next(op for op in graph.ops if op.kind == "BATCH_MATMUL")
    graph.tensors[bmm.inputs[1]].dtype = type(w.dtype).INT16
    with pytest.raises(CompileError, match="BATCH_MATMUL.*weights dtype int16"):
        lower_op(graph, bmm)
