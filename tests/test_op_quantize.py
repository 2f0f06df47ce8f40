"""QUANTIZE: float32 -> int8 (rounding halves away from zero, saturation), int8 -> int8, and
uint8 <-> int8 at the edges of a model with uint8 inputs and outputs."""

from __future__ import annotations

import numpy as np
import pytest
import tfmodels
from harness import check_against_tflm
from opcheck import check_inputs, every_int8, load, write_model
from tinyaot.compiler import lower_op
from tinyaot.errors import CompileError
from tinyaot.ir import DType, Graph, Op, Quant, Tensor
from tinyaot.lowering import ByFpu, ConstArray
from tinyaot.ops.quantize import key_floats, quantize_keys

SHAPE = (1, 16, 16)
# Under FLOAT_TABLE_MIN_ELEMENTS: float32 -> int8 divides.
SMALL = (1, 4, 4)


def _reshape(x):
    import tensorflow as tf

    return tf.reshape(x, (1, 256))


def _float_in(tmp_path, low=-1.0, high=1.0, name="model", shape=SHAPE):
    import tensorflow as tf

    def flatten(x):
        return tf.reshape(x, (1, int(np.prod(shape))))

    data = tfmodels.convert(flatten, [shape], int8=True, low=low, high=high, float_input=True)
    path = write_model(data, tmp_path, name)
    graph = load(path)
    assert [op.kind for op in graph.ops] == ["QUANTIZE", "RESHAPE"]
    return path, graph


def _has_keys(graph) -> bool:
    """The float32 -> int8 QUANTIZE takes keys on cores without an FPU and divides on the
    others (no keys in their flash either)."""
    call = lower_op(graph, graph.ops[0])
    assert call.function == "tinyaot_quantize_f32"
    keys = call.params["keys"]
    if keys is None:
        return False
    assert isinstance(keys, ByFpu) and keys.fpu is None
    return isinstance(keys.soft, ConstArray) and keys.soft.values.size == 256


def _quantize_io(graph):
    op = graph.ops[0]
    return graph.tensors[op.inputs[0]], graph.tensors[op.outputs[0]]


def test_quantize_float_to_int8(tmp_path):
    path, graph = _float_in(tmp_path)
    inp, out = _quantize_io(graph)
    assert (inp.dtype, out.dtype) == (DType.FLOAT32, DType.INT8)
    assert check_against_tflm(path, tmp_path, sets=5).exact


def test_quantize_float_saturates(tmp_path):
    # Calibrated on [-0.25, 0.5]: random inputs in [-1, 1] fall off both ends.
    path, graph = _float_in(tmp_path, low=-0.25, high=0.5)
    assert _quantize_io(graph)[1].zero_point != 0
    assert check_against_tflm(path, tmp_path, sets=5).exact


@pytest.mark.parametrize("low,high", [(-1.0, 1.0), (-0.3, 2.0)], ids=["symmetric", "asymmetric"])
@pytest.mark.parametrize("shape,keys", [(SHAPE, True), (SMALL, False)], ids=["keys", "division"])
def test_quantize_float_halfway_values(tmp_path, low, high, shape, keys):
    """Values exactly halfway between two steps round away from zero, as TfLiteRound does,
    by the keys and by the division (every step, a slice of the steps per input set). The host
    has no Arm FPU: it takes the keys where the compiler gives them."""
    path, graph = _float_in(tmp_path, low=low, high=high, shape=shape)
    assert _has_keys(graph) == keys
    scale = np.float32(_quantize_io(graph)[1].scale)
    k = np.arange(-128, 128, dtype=np.float32)
    halves = ((k + np.float32(0.5)) * scale).astype(np.float32)
    steps = (k * scale).astype(np.float32)
    rng = np.random.default_rng(3)
    wide = rng.uniform(-400.0, 400.0, size=shape).astype(np.float32) * scale
    # Quotients past int32 are left out: TFLite's float -> int32 conversion is undefined
    # there (on x86 it gives -128 or 127 by the sign of the zero point); ours saturates.
    specials = np.resize(
        np.array([0.0, -0.0, 1e3, -1e3, 1e-30, -1e-30, 3.0, -3.0], dtype=np.float32), shape
    )
    size = int(np.prod(shape))
    sets = [[wide], [specials]]
    for values in (halves, -halves, steps):
        sets += [[values[i : i + size].reshape(shape)] for i in range(0, values.size, size)]
    assert check_inputs(path, tmp_path, sets).exact


@pytest.mark.parametrize(
    "low,high", [(-1.0, 1.0), (-0.3, 2.0), (-0.25, 0.5)], ids=["symmetric", "asymmetric", "narrow"]
)
def test_quantize_float_keys_at_every_step(tmp_path, low, high):
    """From FLOAT_TABLE_MIN_ELEMENTS on, float32 -> int8 takes the keys where there is no FPU:
    every key's float and the float just below it give TFLite Micro's outputs, so each of the
    255 steps is where the interpreter's is."""
    path, graph = _float_in(tmp_path, low=low, high=high)
    assert _has_keys(graph)
    out = _quantize_io(graph)[1]
    keys = quantize_keys(out.scale, out.zero_point)[1:].astype(np.int64)
    keys = keys[keys != np.iinfo(np.int32).max]
    assert keys.size > 200
    at, below = key_floats(keys), key_floats(keys - 1)
    sets = [[np.resize(at, SHAPE)], [np.resize(below, SHAPE)], [np.resize(-at, SHAPE)]]
    assert check_inputs(path, tmp_path, sets).exact


# (input scale / QUANTIZE output scale, input zero point): shrinking, growing, only the
# zero point moving, and the identity.
REQUANT = {
    "down": (3.7, 5),
    "up": (1 / 2.3, -20),
    "zero_point": (1.0, 17),
    "identity": (1.0, None),
}


@pytest.mark.parametrize("ratio,zero_point", REQUANT.values(), ids=REQUANT.keys())
def test_quantize_int8_to_int8(tmp_path, ratio, zero_point):
    data = tfmodels.convert(_reshape, [SHAPE], int8=True, low=-0.5, high=1.5, float_input=True)
    out = _quantize_io(tfmodels_graph(data))[1]
    zp = out.zero_point if zero_point is None else zero_point
    path = write_model(tfmodels.retype_input(data, out.scale * ratio, zp), tmp_path)
    graph = load(path)
    assert [op.kind for op in graph.ops] == ["QUANTIZE", "RESHAPE"]
    inp, out = _quantize_io(graph)
    assert (inp.dtype, out.dtype) == (DType.INT8, DType.INT8)
    assert (inp.scale, inp.zero_point) != (out.scale, out.zero_point) or zero_point is None
    assert check_against_tflm(path, tmp_path, sets=5).exact
    assert check_inputs(path, tmp_path, [[every_int8(SHAPE)]]).exact


@pytest.mark.parametrize("low,high", [(-1.0, 1.0), (-0.3, 2.0)], ids=["symmetric", "asymmetric"])
def test_quantize_uint8_io(tmp_path, low, high):
    """uint8 -> int8 in front and int8 -> uint8 behind, on every byte value."""
    data = tfmodels.convert(
        lambda x: _reshape(x) * 3.0, [SHAPE], int8=True, low=low, high=high, io="uint8"
    )
    path = write_model(data, tmp_path)
    graph = load(path)
    kinds = [
        (op.kind, graph.tensors[op.inputs[0]].dtype, graph.tensors[op.outputs[0]].dtype)
        for op in graph.ops
    ]
    assert kinds[0] == ("QUANTIZE", DType.UINT8, DType.INT8)
    assert kinds[-1] == ("QUANTIZE", DType.INT8, DType.UINT8)
    every = np.resize(np.arange(256, dtype=np.uint8), SHAPE)
    assert check_inputs(path, tmp_path, [[every], [every[:, ::-1].copy()]]).exact
    assert check_against_tflm(path, tmp_path, sets=3).exact


def test_quantize_float_to_uint8_is_refused_like_tflm(tmp_path):
    """TFLite Micro has no float32 -> uint8 QUANTIZE; the compiler says so instead of
    producing code nothing can check."""
    q = Quant((0.1,), (128,))
    graph = Graph(
        tensors=[Tensor(0, "in", DType.FLOAT32, (4,)), Tensor(1, "out", DType.UINT8, (4,), q)],
        ops=[Op(0, "QUANTIZE", [0], [1])],
        inputs=[0],
        outputs=[1],
    )
    with pytest.raises(CompileError, match="float32 -> uint8 is not supported"):
        lower_op(graph, graph.ops[0])


def tfmodels_graph(data: bytes) -> Graph:
    from tinyaot import frontend

    return frontend.parse(data)


def test_quantize_rejects_int8_to_float():
    q = Quant((0.1,), (0,))
    graph = Graph(
        tensors=[Tensor(0, "in", DType.INT8, (4,), q), Tensor(1, "out", DType.FLOAT32, (4,))],
        ops=[Op(0, "QUANTIZE", [0], [1])],
        inputs=[0],
        outputs=[1],
    )
    with pytest.raises(CompileError, match="int8 -> float32 is not supported"):
        lower_op(graph, graph.ops[0])


def _int16_chains() -> bytes:
    """Every int16 QUANTIZE TFLite Micro has, and DEQUANTIZE int16, in one model: int16 to
    int8, int16 (another scale) and int32, and int32, int8 and float32 to int16."""
    import tflite_builder as tb

    i16, i8, i32, f32 = tb.tflite.TensorType.INT16, tb.INT8, tb.INT32, tb.FLOAT32

    def t(name, dtype, scale=None, zero_point=0):
        q = {} if scale is None else {"scale": [scale], "zero_point": [zero_point]}
        return tb.Tensor(name, [1, 64], dtype, **q)

    tensors = [
        t("in16", i16, 1 / 3000),
        t("in32", i32, 1e-7, 7),
        t("in8", i8, 0.037, -5),
        t("inf", f32),
        t("to8", i8, 0.05, 3),
        t("to16", i16, 1 / 7000),
        t("to32", i32, 1 / 300000, -11),
        t("from32", i16, 1 / 1700),
        t("from8", i16, 1 / 9000),
        t("fromf", i16, 1 / 20000),
        t("deq", f32),
    ]
    chains = [(0, 4), (0, 5), (0, 6), (1, 7), (2, 8), (3, 9)]
    ops = [tb.Operator(0, [a], [b]) for a, b in chains] + [tb.Operator(1, [0], [10])]
    model = tb.Model(
        [tb.SubGraph(tensors, ops, [0, 1, 2, 3], list(range(4, 11)))],
        [tb.OpCode(tb.OPS.QUANTIZE), tb.OpCode(tb.OPS.DEQUANTIZE)],
    )
    return tb.build(model)


def test_quantize_int16_matches_tflm(tmp_path):
    path = write_model(_int16_chains(), tmp_path)
    assert load(path).ops[0].kind == "QUANTIZE"
    # int16 across its range, int32 past what int16 holds, float32 halfway between steps and
    # outside the int16 range (not past int32, where TFLite's conversion is undefined: see
    # test_quantize_float_halfway_values), then random values.
    rng = np.random.default_rng(4)
    int16s = np.arange(-32768, 32768, 1024, dtype=np.int16).reshape(1, 64)
    int32s = rng.integers(-(1 << 31), (1 << 31) - 1, size=(1, 64), dtype=np.int32)
    int8s = np.arange(-128, 128, 4, dtype=np.int8).reshape(1, 64)
    halves = (np.arange(-32, 32, dtype=np.float32) + np.float32(0.5)) / np.float32(20000)
    far = np.resize(np.array([3.0, -3.0, 1e4, -1e4, 0.0, -0.0], dtype=np.float32), (1, 64))
    sets = [
        [int16s, int32s, int8s, halves.reshape(1, 64)],
        [-int16s - 1, int32s // 70000, int8s[:, ::-1].copy(), far],
        [
            rng.integers(-32768, 32767, size=(1, 64), dtype=np.int16),
            rng.integers(-40000000, 40000000, size=(1, 64), dtype=np.int32),
            rng.integers(-128, 127, size=(1, 64), dtype=np.int8),
            rng.uniform(-2.0, 2.0, size=(1, 64)).astype(np.float32),
        ],
    ]
    assert check_inputs(path, tmp_path, sets).exact
