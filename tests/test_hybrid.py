"""Hybrid float models (float32 activations, int8 weights, from dynamic-range quantisation):
FULLY_CONNECTED, CONV_2D, DEPTHWISE_CONV_2D (dilated) and BATCH_MATMUL in one model, with
per-channel and with per-tensor weights; a Keras LSTM and an SVDF (built with tflite_builder: the
converter makes no SVDF from Keras) over six invocations, their states carried between them.

TFLite Micro refuses these models; LiteRT runs them, quantising the input to int8 on the
fly, which tinyaot does not (README, "Hybrid float"). So the outputs are checked twice:
within HYBRID_TOL of LiteRT's, and within FLOAT_RTOL of TFLite Micro running the float
model whose weights are the hybrid model's dequantised, which is what tinyaot computes.
"""

from __future__ import annotations

import numpy as np
import pytest
import tensorflow as tf
import tflite
import tfmodels
from closeness import FLOAT_RTOL, float_error
from harness import compile_model, split_outputs, tinyaot
from host import runner
from opcheck import load, write_model
from reference import Reference
from test_op_svdf import float_svdf_model
from test_state import STEPS, build, run, runtime, tflm_sequence
from tinyaot.compiler import lower_op
from tinyaot.errors import CompileError

__all__ = ["runtime"]  # the fixture the tests take (crt/src compiled once)

# Largest |tinyaot - LiteRT| over the largest |LiteRT| of an output: LiteRT's int8 input
# rounding (half a step of the input's range over 255, asymmetric) summed over the depth.
# Measured: at most 0.0066 here (printed with -s).
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
        b = tf.nn.depthwise_conv2d(x, dw_w, [1, 1, 1, 1], "VALID", dilations=[1, 2])
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


def litert_interpreter(path):
    """LiteRT's builtin kernels, its hybrid ones among them: the default XNNPACK delegate
    would take some of the ops with its own arithmetic."""
    from ai_edge_litert.interpreter import Interpreter, OpResolverType

    resolver = OpResolverType.BUILTIN_WITHOUT_DEFAULT_DELEGATES
    interp = Interpreter(model_path=str(path), experimental_op_resolver_type=resolver)
    interp.allocate_tensors()
    return interp


def litert(path, inputs: list[np.ndarray]) -> list[np.ndarray]:
    interp = litert_interpreter(path)
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
def test_hybrid_matches_litert_and_the_dequantised_float_model(variant, tmp_path, runtime):
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

    exe = runner.build(compile_model(path, tmp_path / "gen"), "m", tmp_path, runtime=runtime)
    # The float model with the dequantised weights, on TFLite Micro: what tinyaot computes,
    # each sum scaled once rather than weight by weight.
    float_model = tfmodels.convert(layers(dequantised(path)), SHAPES, False)
    exact = Reference(write_model(float_model, tmp_path, "float"))
    rng = np.random.default_rng(1)
    worst = 0.0
    for _ in range(3):
        inputs = [rng.uniform(-1.0, 1.0, s).astype(np.float32) for s in SHAPES]
        want = litert(path, inputs)
        got = split_outputs(runner.run(exe, [x.tobytes() for x in inputs]), want)
        for g, w in zip(got, exact.run(inputs), strict=True):
            assert float_error(g, w) <= FLOAT_RTOL, float_error(g, w)
        for i, (g, w) in enumerate(zip(got, want, strict=True)):
            # LiteRT 2.3.0's per-tensor hybrid DEPTHWISE_CONV_2D writes zeros and denormals
            # (it reads per-channel scales past the one there is); the float model
            # checks that output.
            if not (variant == "per-tensor" and i == 1):
                worst = max(worst, float_error(g, w))
    assert 0.0 < worst <= HYBRID_TOL, worst
    print(f"{variant}: largest error against LiteRT {worst:.4f} of the output's range")


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


def lstm_model(weights: list[np.ndarray] | None) -> bytes:
    """A batch-major Keras 2 LSTM (two sequences), hybrid as converted, or float32 with
    `weights` (Keras's kernel, recurrent kernel and bias)."""
    import tf_keras

    tf_keras.utils.set_random_seed(5)
    x = tf_keras.Input(batch_shape=(2, 4, 40))
    layer = tf_keras.layers.LSTM(32, return_sequences=True)
    model = tf_keras.Model(x, layer(x))
    converter = tf.lite.TFLiteConverter.from_keras_model(model)
    if weights is None:
        converter.optimizations = [tf.lite.Optimize.DEFAULT]
    else:
        layer.set_weights(weights)
    return converter.convert()


def lstm_dequantised(path) -> list[np.ndarray]:
    """The hybrid LSTM's gate weights as float, in Keras's layout (gates i, f, c, o)."""
    graph = load(path)
    (op,) = graph.ops
    gates = [graph.tensors[op.inputs[i]] for i in range(1, 9)]
    assert all(w.dtype.short == "int8" and not w.quant.per_channel for w in gates)
    floats = [w.data.astype(np.float32) * np.float32(w.quant.scales[0]) for w in gates]
    bias = np.concatenate([graph.tensors[op.inputs[i]].data for i in range(12, 16)])
    return [
        np.concatenate([w.T for w in floats[:4]], 1),
        np.concatenate([w.T for w in floats[4:]], 1),
        bias,
    ]


def litert_sequence(path, inputs: list[list[np.ndarray]]) -> list[list[np.ndarray]]:
    """LiteRT on the inputs one invocation after the other, its variable tensors kept."""
    interp = litert_interpreter(path)
    out = []
    for xs in inputs:
        for d, x in zip(interp.get_input_details(), xs, strict=True):
            interp.set_tensor(d["index"], x)
        interp.invoke()
        out.append([interp.get_tensor(d["index"]) for d in interp.get_output_details()])
    return out


def test_hybrid_lstm_sequence(tmp_path, runtime):
    path = write_model(lstm_model(None), tmp_path, "lstm")
    assert [op.kind for op in load(path).ops] == ["UNIDIRECTIONAL_SEQUENCE_LSTM"]
    exe = build(tmp_path, runtime, path)
    rng = np.random.default_rng(2)
    inputs = [[rng.uniform(-1.0, 1.0, (2, 4, 40)).astype(np.float32)] for _ in range(STEPS)]
    want = [w for ws in litert_sequence(path, inputs) for w in ws]
    got = split_outputs(run(exe, "invoke", STEPS, inputs), want)
    worst = max(float_error(g, w) for g, w in zip(got, want, strict=True))
    assert 0.0 < worst <= HYBRID_TOL, worst
    print(f"LSTM: largest error against LiteRT {worst:.4f} of the output's range")
    assert float_error(want[0], want[1]) > 0.01  # the states reach the outputs

    float_path = write_model(lstm_model(lstm_dequantised(path)), tmp_path, "lstm_float")
    exact = [w for ws in tflm_sequence(float_path, inputs) for w in ws]
    again = split_outputs(run(exe, "reset", 2 * STEPS, inputs + inputs), exact + exact)
    for k, (g, w) in enumerate(zip(again, exact + exact, strict=True)):
        assert float_error(g, w) <= FLOAT_RTOL, f"invocation {k}"


def test_hybrid_svdf_sequence(tmp_path, runtime):
    """A hybrid SVDF (rank 2, memory 5, a bias, two batches) over six invocations, its state
    carried: within HYBRID_TOL of LiteRT's hybrid kernel, which rounds each batch of the
    input to int8, and within FLOAT_RTOL of TFLite Micro's float SVDF on the dequantised
    weights (LiteRT's own dequantisation of the time weights, one weight at a time)."""
    path = tmp_path / "svdf.tflite"
    path.write_bytes(float_svdf_model(True))
    graph = load(path)
    assert [op.kind for op in graph.ops] == ["SVDF"]
    assert [graph.tensors[i].dtype.short for i in graph.ops[0].inputs] == [
        "float32",
        "int8",
        "int8",
        "float32",
        "float32",
    ]
    exe = build(tmp_path, runtime, path)
    rng = np.random.default_rng(3)
    inputs = [[rng.uniform(-1.0, 1.0, (2, 16)).astype(np.float32)] for _ in range(STEPS)]
    want = [w for ws in litert_sequence(path, inputs) for w in ws]
    assert float_error(want[0], want[1]) > 0.1  # the state reaches the outputs
    got = split_outputs(run(exe, "invoke", STEPS, inputs), want)
    worst = max(float_error(g, w) for g, w in zip(got, want, strict=True))
    assert 0.0 < worst <= HYBRID_TOL, worst
    print(f"SVDF: largest error against LiteRT {worst:.4f} of the output's range")

    float_path = tmp_path / "svdf_float.tflite"
    float_path.write_bytes(float_svdf_model(False))
    exact = [w for ws in tflm_sequence(float_path, inputs) for w in ws]
    again = split_outputs(run(exe, "reset", 2 * STEPS, inputs + inputs), exact + exact)
    for k, (g, w) in enumerate(zip(again, exact + exact, strict=True)):
        assert float_error(g, w) <= FLOAT_RTOL, f"invocation {k}"


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"feature_zero_point": 3}, "tensor 1 'feature': hybrid int8 weights must be symmetric"),
        ({"time_zero_point": -2}, "tensor 2 'time': hybrid int8 weights must be symmetric"),
        (
            {"time_dtype": tflite.TensorType.INT16},
            "tensor 2 'time': time weights dtype int16 with int8 feature weights; supported: "
            "both float32 or both int8",
        ),
        (
            {"feature_dtype": tflite.TensorType.INT16},
            "tensor 1 'feature': weights dtype int16 under float32 data; supported: float32, int8",
        ),
    ],
    ids=["asymmetric-feature", "asymmetric-time", "int16-time", "int16-feature"],
)
def test_hybrid_svdf_refusals(options, message, tmp_path):
    path = tmp_path / "svdf.tflite"
    path.write_bytes(float_svdf_model(True, **options))
    done = tinyaot("compile", str(path), "--name", "m", "--output-dir", str(tmp_path / "o"))
    assert done.returncode == 2 and done.stderr.count("\n") == 1, done.stderr
    assert done.stderr.startswith("error: op 0 (SVDF), ") and message in done.stderr
