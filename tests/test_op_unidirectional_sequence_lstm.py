"""UNIDIRECTIONAL_SEQUENCE_LSTM (int8 and int16x8 with an int16 cell state, float32): Keras
LSTMs through the TFLite converter, batch major (two stacked layers) and time major in one
model, six invocations compared with TFLite Micro's one by one, the states carried between
them in the state buffer; reset gives the first results again, and two instances keep their
own states."""

from __future__ import annotations

import functools
import os
import re
import sys
from pathlib import Path

import numpy as np
import opcheck
import pytest
import tflite
import tflite_builder as tb
import tfmodels
from closeness import FLOAT_RTOL, float_error
from harness import REPO, compile_model, split_outputs, tinyaot
from reference import Reference
from test_state import STEPS, build, run, runtime, sequence, tflm_sequence
from tflite_micro.python.tflite_micro import runtime as tflm

sys.path.insert(0, str(Path(__file__).resolve().parent / "cortex_m3"))
import runner as m3  # noqa: E402

__all__ = ["runtime"]  # the fixture the tests take
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
OP = "UNIDIRECTIONAL_SEQUENCE_LSTM"


@functools.cache
def converted(dtype: str, gain: float = 1.0) -> bytes:
    """Two inputs, one build: [2, 5, 37] batch major -> LSTM 22 -> LSTM 3, and [5, 2, 4] time
    major -> LSTM 6, every step returned. The first LSTM's int8 products take the blocks of
    tinyaot_dot4_blocked_s8 and the inputs and units left after them (37 inputs, 22 units).
    Keras 2 (tf_keras): only its LSTM converts to the fused op. int16: int16x8 with int32
    biases, as the converter writes them."""
    import tensorflow as tf
    import tf_keras

    tf_keras.utils.set_random_seed(3)
    # Calibration samples go by input name: as a list, the calibrator's order of the inputs
    # changed once another test had converted a model in the same process.
    named = [("a", [2, 5, 37]), ("b", [5, 2, 4])]
    xs = [tf_keras.Input(batch_shape=s, name=n) for n, s in named]
    y = tf_keras.layers.LSTM(22, return_sequences=True)(xs[0])
    y = tf_keras.layers.LSTM(3, return_sequences=True)(y)
    z = tf_keras.layers.LSTM(6, return_sequences=True, time_major=True)(xs[1])
    model = tf_keras.Model(xs, [y, z])
    rng = np.random.default_rng(1)
    for layer in [k for k in model.layers if isinstance(k, tf_keras.layers.LSTM)]:
        weights = layer.get_weights()
        if dtype == "int16":
            # Biases of many values, not Keras's zeros and ones, for the int64 sums to carry.
            weights[2] = rng.uniform(-0.5, 0.5, weights[2].shape).astype(np.float32)
        layer.set_weights([w * np.float32(gain) for w in weights])
    converter = tf.lite.TFLiteConverter.from_keras_model(model)
    if dtype == "float32":
        return converter.convert()
    rng = np.random.default_rng(0)

    def representative() -> object:
        for _ in range(64):
            yield {n: rng.uniform(-1.0, 1.0, size=s).astype(np.float32) for n, s in named}

    converter.optimizations = [tf.lite.Optimize.DEFAULT]
    converter.representative_dataset = representative
    if dtype == "int8":
        converter.target_spec.supported_ops = [tf.lite.OpsSet.TFLITE_BUILTINS_INT8]
        converter.inference_input_type = tf.int8
        converter.inference_output_type = tf.int8
        return converter.convert()
    # The 16x8 mode quantises with the converter's old quantiser, which refuses this op
    # ("Quantization to 16x8-bit not yet supported"); its MLIR quantiser takes it at int16.
    from tensorflow.lite.python import convert
    from tensorflow.lite.toco import types_pb2

    int16x8 = tf.lite.OpsSet.EXPERIMENTAL_TFLITE_BUILTINS_ACTIVATIONS_INT16_WEIGHTS_INT8
    converter.target_spec.supported_ops = [int16x8]
    converter._experimental_calibrate_only = True
    return convert.mlir_quantize(
        converter.convert(),
        fully_quantize=True,
        inference_type=types_pb2.QUANTIZED_INT16,
        input_data_type=tf.int16,
        output_data_type=tf.int16,
    )


def widen_biases(model: bytes) -> bytes:
    """The LSTMs' int32 biases as int64 of the same values, each in a buffer of its own:
    TFLite Micro reads int16x8 biases as int64 (the MLIR quantiser writes int32)."""
    from tensorflow.lite.python import schema_py_generated as schema
    from tensorflow.lite.tools import flatbuffer_utils

    obj = flatbuffer_utils.convert_bytearray_to_object(bytearray(model))
    sg = obj.subgraphs[0]
    for op in sg.operators:
        for slot in (12, 13, 14, 15):
            t = sg.tensors[op.inputs[slot]]
            if t.type == schema.TensorType.INT32:
                values = np.frombuffer(bytes(obj.buffers[t.buffer].data), "<i4")
                buffer = schema.BufferT()
                buffer.data = values.astype("<i8").view(np.uint8)
                obj.buffers.append(buffer)
                t.buffer, t.type = len(obj.buffers) - 1, schema.TensorType.INT64
    return bytes(flatbuffer_utils.convert_object_to_bytearray(obj))


def lstm_model(dtype: str, gain: float = 1.0) -> bytes:
    """converted(dtype, gain), its int16x8 biases widened."""
    model = converted(dtype, gain)
    return widen_biases(model) if dtype == "int16" else model


def check_sequence(raw: bytes, want: list[list[np.ndarray]]) -> None:
    """int8 byte for byte, float32 within FLOAT_RTOL, invocation by invocation."""
    flat = [w for ws in want for w in ws]
    for k, (g, w) in enumerate(zip(split_outputs(raw, flat), flat, strict=True)):
        if w.dtype.kind == "f":
            assert float_error(g, w) <= FLOAT_RTOL, f"invocation {k}: {g.ravel()} != {w.ravel()}"
        else:
            assert g.tobytes() == w.tobytes(), f"invocation {k}: {g.ravel()} != {w.ravel()}"


@pytest.mark.parametrize("dtype", ["int8", "int16", "float32"])
def test_lstm_sequence_matches_tflm(dtype, tmp_path, runtime):
    path = tmp_path / "lstm.tflite"
    path.write_bytes(lstm_model(dtype))
    graph = opcheck.load(path)
    assert [op.kind for op in graph.ops] == [OP] * 3
    assert {graph.tensor(op.inputs[0]).dtype.short for op in graph.ops} == {dtype}
    if dtype == "int16":
        biases = {graph.tensor(i).dtype.short for op in graph.ops for i in op.inputs[12:16]}
        assert biases == {"int64"}
    assert sorted(bool(op.options["TimeMajor"]) for op in graph.ops) == [False, False, True]
    exe = build(tmp_path, runtime, path)
    inputs = sequence(path, STEPS, 5)
    inputs[1] = inputs[0]  # the same inputs again: only the states can change the outputs
    want = tflm_sequence(path, inputs)
    for k in range(2):
        assert want[0][k].tobytes() != want[1][k].tobytes(), "a state does not reach its output"
        if dtype != "float32":
            assert len(np.unique(np.concatenate([w[k].ravel() for w in want]))) > 20
    check_sequence(run(exe, "invoke", STEPS, inputs), want)
    check_sequence(run(exe, "reset", 2 * STEPS, inputs + inputs), want + want)
    # Two instances, each its own states, interleaved invocation by invocation.
    other = sequence(path, STEPS, 6)
    want_other = tflm_sequence(path, other)
    both = [x for pair in zip(other, inputs, strict=True) for x in pair]
    check_sequence(
        run(exe, "two", STEPS, both),
        [w for pair in zip(want_other, want, strict=True) for w in pair],
    )
    # Every layer's hidden and cell states are in the state buffer, not the arena.
    header = (tmp_path / "m" / "m.h").read_text()
    hidden, cell = {"int8": (1, 2), "int16": (2, 2), "float32": (4, 4)}[dtype]
    state = sum(-(-2 * u * (hidden + cell) // 4) * 4 for u in (22, 3, 6))
    assert int(header.split("M_STATE_SIZE")[1].split()[0]) >= state


def test_lstm_int8_cell_state_is_refused(tmp_path: Path):
    model = lstm_model("int8")
    path = tmp_path / "lstm.tflite"
    path.write_bytes(model)
    cell = opcheck.load(path).ops[0].inputs[19]
    assert cell is not None
    path.write_bytes(tfmodels.retype_tensor(model, cell, "INT8"))
    done = tinyaot("compile", str(path), "--name", "m", "--output-dir", str(tmp_path / "o"))
    assert done.returncode == 2 and done.stderr.count("\n") == 1, done.stderr
    assert f"op 0 ({OP}), tensor {cell} " in done.stderr
    assert "the cell state must be int16" in done.stderr


def test_lstm_int16_with_int32_biases_is_refused(tmp_path: Path):
    """TFLite Micro would read the int32 biases as int64, past their end."""
    path = tmp_path / "lstm.tflite"
    path.write_bytes(converted("int16"))
    bias = opcheck.load(path).ops[0].inputs[12]
    done = tinyaot("compile", str(path), "--name", "m", "--output-dir", str(tmp_path / "o"))
    assert done.returncode == 2 and done.stderr.count("\n") == 1, done.stderr
    assert f"op 0 ({OP}), tensor {bias} " in done.stderr
    assert "input 12 must be a constant int64 tensor" in done.stderr


def tflm_tanh16(x: np.ndarray, scale: float) -> np.ndarray:
    """TFLite Micro's int16 TANH (output scale 2^-15) on x."""
    int16 = tflite.TensorType.INT16
    tensors = [
        tb.Tensor("x", [x.size], int16, 0, [scale]),
        tb.Tensor("y", [x.size], int16, 0, [2**-15]),
    ]
    graph = tb.SubGraph(tensors, [tb.Operator(0, [0], [1])], inputs=[0], outputs=[1])
    model = tb.Model(subgraphs=[graph], opcodes=[tb.OpCode(tb.OPS.TANH)])
    interp = tflm.Interpreter.from_bytes(tb.build(model), arena_size=1 << 16)
    interp.set_input(x.astype(np.int16), 0)
    interp.invoke()
    return np.array(interp.get_output(0)).astype(int)


def test_sigmoid_table_is_tflites():
    """The kernel's table against TFLite Micro's int16 TANH, which reads entry i at input
    256 i (Q3.12 x 3): input scale 1/48 puts input i there, at no fraction, where tanh gives
    the entry less 32768. The last entry shows as the step at the top of interval 254."""
    source = (REPO / "crt" / "src" / "logistic.c").read_text()
    body = source.split("tinyaot_sigmoid_table[256] = {")[1].split("}")[0]
    table = [int(v) for v in re.findall(r"\d+", body)]
    want = list(tflm_tanh16(np.arange(255), 1 / 48) + 32768)
    want += list(tflm_tanh16(np.array([32639]), 1 / (48 * 128)) + 32768)
    assert table == want


# (dtype, board, gain): every core's dot products; on the Cortex-M55 also weights eight times
# Keras's, whose pre-activations reach the activations' saturated ends, where the Helium lanes
# leave the table for its constant.
CORTEX_M = [(d, b, 1.0) for d in ("int8", "int16") for b in ("mps2-an385", "mps2-an386")]
CORTEX_M += [(d, "mps3-an547", g) for d in ("int8", "int16") for g in (1.0, 8.0)]


@pytest.mark.skipif(bool(m3.missing_tools()), reason="needs arm-none-eabi-gcc and qemu")
@pytest.mark.parametrize(("dtype", "board", "gain"), CORTEX_M)
def test_lstm_cortex_m_matches_tflm(dtype, board, gain, tmp_path):
    """The gates' blocked dot products (Thumb-2, SMLAD, VMLADAVA), and on the Cortex-M55 the
    Helium requantisations, activations and cell and hidden updates (four units a vector, the
    last vector predicated): six invocations of one firmware, its states carried, the last
    two at both ends of the input type, byte for byte with TFLite Micro's."""
    path = tmp_path / "lstm.tflite"
    path.write_bytes(lstm_model(dtype, gain))
    ref = Reference(path)
    rng = np.random.default_rng(11)
    sets = [ref.random_inputs(rng) for _ in range(STEPS - 2)]
    # Both ends of the input type, which drive the gates and the cell towards saturation.
    sets += [[np.full(x.shape, np.iinfo(x.dtype).min, x.dtype) for x in sets[0]]]
    sets += [[np.full(x.shape, np.iinfo(x.dtype).max, x.dtype) for x in sets[0]]]
    want = ref.run_sequence(sets)
    result = m3.build_and_run(
        compile_model(path, tmp_path / "gen", "m", "--quiet"),
        "m",
        [[x.tobytes() for x in s] for s in sets],
        board=board,
        opt="-O2",
        workdir=tmp_path / "build",
        jobs=1,
    )
    assert len(np.unique(np.concatenate([w[0].ravel() for w in want]))) > 20
    for k, (got, w) in enumerate(zip(result.outputs, want, strict=True)):
        assert got == [x.tobytes() for x in w], f"invocation {k} on {board}"
