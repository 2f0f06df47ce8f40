"""Element-wise unary ops against TFLite Micro: the int8 tables on every input value at
several scales, the float32 kernels on random, wide, tiny and special inputs (zeros,
infinities, NaN).

Each host build compiles the whole runtime, so ops share models: one float model and one
int8 model per input range hold every op of the family as parallel outputs.
"""

from __future__ import annotations

import numpy as np
import pytest
import tflite
import tflite_builder as tb
import tfmodels
from closeness import float_error
from harness import check_against_tflm
from opcheck import (
    check_every_int16,
    check_inputs,
    every_int8,
    int16_unary_model,
    load,
    op_kinds,
    write_model,
)
from reference import Reference
from tinyaot import frontend
from tinyaot.compiler import lower_op
from tinyaot.errors import CompileError
from tinyaot.ir import DType, Graph, Op, Quant, Tensor
from tinyaot.lowering import Alias

SHAPE = (1, 8, 8, 4)
N = int(np.prod(SHAPE))
T = tflite.TensorType

SPECIALS = np.array(
    [0.0, -0.0, 1e-30, -1e-30, 1e-6, -1e-6, 0.25, -0.25, 0.2499, -0.3751, 1.0, -1.0, 3.0, -3.0]
    + [9.0, -9.0, 9.01, 20.0, -20.0, 44.0, 88.0, 88.72283, 88.72284, 89.0, -87.5, -104.0]
    + [1e4, -1e4, 3e38, -3e38, 1e-40, -1e-40, np.inf, -np.inf, np.nan]
    # Halves and integers around rounding's and floor's edges.
    + [0.5, -0.5, 1.5, -1.5, 2.5, -2.5, -0.3, 0.3, -2.0, 8388607.5, -8388607.5, 8388609.0]
    # Next to multiples of pi/2, where SIN and COS reduce their argument hardest.
    + [0.7853982, 1.5707964, -1.5707964, 3.1415927, 4.712389, 6.2831855, 1e22, 2.3e36],
    np.float32,
)


def _float_sets() -> list[list[np.ndarray]]:
    """Specials, a wide spread, and sets of one magnitude each: the float comparison is
    relative to a set's largest value, so small results are checked in sets of their own."""
    rng = np.random.default_rng(7)
    sets = [np.resize(SPECIALS, SHAPE), rng.uniform(-60.0, 60.0, size=SHAPE)]
    for magnitude in (1e-30, 1e-7, 1e-3, 0.3, 1e6, 1e30):
        signs = np.where(rng.random(N) < 0.5, -1.0, 1.0)
        sets.append((signs * rng.uniform(magnitude, 10 * magnitude, size=N)).reshape(SHAPE))
    return [[s.astype(np.float32)] for s in sets]


def _random_int8() -> np.ndarray:
    return np.random.default_rng(5).integers(-128, 128, size=SHAPE, dtype=np.int8)


def _ops(*kinds: str):
    """A function of one input with one output per op kind, in that order."""

    def fn(x):
        import tensorflow as tf

        ops = {
            "TANH": tf.tanh,
            "HARD_SWISH": tf.keras.activations.hard_swish,
            # A small slope, and a negative one larger than 1.
            "LEAKY_RELU": lambda v: tf.nn.leaky_relu(v, 0.2),
            "LEAKY_RELU_NEGATIVE": lambda v: tf.nn.leaky_relu(v, -1.5),
            "ELU": tf.nn.elu,
            "ABS": tf.abs,
            "NEG": tf.negative,
            "SQRT": tf.sqrt,
            "RSQRT": tf.math.rsqrt,
            "EXP": tf.exp,
            "LOG": tf.math.log,
            "SQUARE": tf.square,
            "FLOOR": tf.floor,
            "CEIL": tf.math.ceil,
            "ROUND": tf.round,
            "SIN": tf.sin,
            "COS": tf.cos,
        }
        return tuple(ops[k](x) for k in kinds)

    fn.kinds = [k.removesuffix("_NEGATIVE") for k in kinds]
    return fn


FLOAT_OPS = _ops(
    "TANH",
    "HARD_SWISH",
    "LEAKY_RELU",
    "LEAKY_RELU_NEGATIVE",
    "ELU",
    "ABS",
    "NEG",
    "SQRT",
    "RSQRT",
    "EXP",
    "LOG",
    "SQUARE",
    "FLOOR",
    "CEIL",
    "ROUND",
    "SIN",
    "COS",
)
# Float ops whose every step is one IEEE operation (or a comparison): bit for bit.
EXACT = {"HARD_SWISH", "LEAKY_RELU", "ABS", "NEG", "SQUARE", "FLOOR", "CEIL", "ROUND"}
# The int8 ops the converter quantises (ELU and RSQRT get their own models).
INT8_OPS = _ops("TANH", "HARD_SWISH", "LEAKY_RELU", "LEAKY_RELU_NEGATIVE", "ABS")


@pytest.fixture(scope="module")
def convert(tmp_path_factory):
    """Converted models by their arguments, each converted once per module."""
    cache = {}

    def make(fn, int8, low=-1.0, high=1.0, io="int8"):
        key = (fn, int8, low, high, io)
        if key not in cache:
            data = tfmodels.convert(fn, [SHAPE], int8=int8, low=low, high=high, io=io)
            path = write_model(data, tmp_path_factory.mktemp("model"))
            kinds = fn.kinds if io == "int8" else ["QUANTIZE"] * (1 + len(fn.kinds)) + fn.kinds
            assert sorted(op_kinds(path)) == sorted(kinds)
            cache[key] = path
        return cache[key]

    return make


def build_one(tmp_path, opcode, in_tensor, out_tensor, options_name=None, options=None):
    """A model of one op from a Tensor in to a Tensor out, as the converter will not make it."""
    model = tb.Model(
        subgraphs=[
            tb.SubGraph(
                tensors=[in_tensor, out_tensor],
                operators=[tb.Operator(0, [0], [1], options_name, options or {})],
                inputs=[0],
                outputs=[1],
            )
        ],
        opcodes=[tb.OpCode(opcode)],
    )
    path = write_model(tb.build(model), tmp_path, "built")
    return path


def rejects(kind, in_dtype, out_dtype, match, options=None, in_quant=None, out_quant=None):
    graph = Graph(
        tensors=[
            Tensor(0, "in", in_dtype, (4,), in_quant),
            Tensor(1, "out", out_dtype, (4,), out_quant),
        ],
        ops=[Op(0, kind, [0], [1], options or {})],
        inputs=[0],
        outputs=[1],
    )
    with pytest.raises(CompileError, match=match):
        lower_op(graph, graph.ops[0])


def test_float_ops_random(convert, tmp_path):
    check_against_tflm(convert(FLOAT_OPS, False), tmp_path, sets=2)


def test_float_ops_chosen(convert, tmp_path):
    path = convert(FLOAT_OPS, False)
    sets = _float_sets()
    got = check_inputs(path, tmp_path, sets).outputs
    # Each op on its own, so that a failure names it (check_inputs checked them all).
    ref = Reference(path)
    graph = load(path)
    names = [next(op.kind for op in graph.ops if t in op.outputs) for t in graph.outputs]
    for inputs, ours in zip(sets, got, strict=True):
        for name, g, w in zip(names, ours, ref.run(inputs), strict=True):
            assert float_error(g, w) <= 1e-5, name
            if name in EXACT:
                numbers = ~np.isnan(w)
                np.testing.assert_array_equal(g, w, err_msg=name)
                assert np.array_equal(np.signbit(g[numbers]), np.signbit(w[numbers])), name
    specials = np.resize(SPECIALS, SHAPE)
    tanh, exp = (got[0][names.index(kind)] for kind in ("TANH", "EXP"))
    assert np.all(tanh[specials == 20.0] == 1.0) and np.all(tanh[specials == -20.0] == -1.0)
    assert np.all(np.isinf(exp[specials == 89.0])) and np.all(exp[specials == -104.0] == 0.0)


# Symmetric, skewed (nonzero zero point), saturating tanh, wide (tanh's radius a few steps).
RANGES = {
    "symmetric": (-2.0, 2.0),
    "skewed": (-1.0, 6.0),
    "saturating": (-8.0, 8.0),
    "wide": (-300.0, 300.0),
    "tiny": (-0.01, 0.01),
}


@pytest.mark.parametrize("low,high", RANGES.values(), ids=RANGES.keys())
def test_int8_ops(convert, tmp_path, low, high):
    path = convert(INT8_OPS, True, low, high)
    chosen = check_inputs(path, tmp_path, [[every_int8(SHAPE)], [_random_int8()]])
    assert chosen.exact
    tanh = chosen.outputs[0][0]
    if high >= 8.0:
        assert tanh.min() == -128 and tanh.max() == 127


def test_int8_ops_random(convert, tmp_path):
    assert check_against_tflm(convert(INT8_OPS, True, -3.0, 3.0), tmp_path).exact


def test_int8_ops_uint8_io(convert, tmp_path):
    """uint8 inputs and outputs: the int8 ops between QUANTIZEs (TFLite Micro runs none of
    them on uint8)."""
    path = convert(INT8_OPS, True, -3.0, 3.0, io="uint8")
    every = np.resize(np.arange(256, dtype=np.uint8), SHAPE)
    assert check_inputs(path, tmp_path, [[every]]).exact


# Input (scale, zero point), output (scale, zero point): ELU's output starts at -1.
ELU_QUANT = {
    "fine": ((0.05, 0), (0.0288, -93)),
    "coarse": ((0.3, -20), (0.25, -124)),
}


INT16_OPS = _ops("LEAKY_RELU", "LEAKY_RELU_NEGATIVE")


def test_int16_ops(tmp_path):
    """int16x8 (zero points 0): every int16 value, and random ones."""
    data = tfmodels.convert(INT16_OPS, [SHAPE], int8=True, int16x8=True, low=-1.0, high=2.0)
    path = write_model(data, tmp_path)
    assert sorted(op_kinds(path)) == sorted(INT16_OPS.kinds)
    assert frontend.load(path).tensors[0].dtype == DType.INT16
    every = np.arange(-32768, 32768, dtype=np.int16).reshape(-1, *SHAPE)
    rng = np.random.default_rng(6)
    sets = [[x] for x in every] + [[rng.integers(-32768, 32768, SHAPE, dtype=np.int16)]]
    assert check_inputs(path, tmp_path, sets).exact


# TFLite's two power-of-two cases for TANH (2^-12: input times 3; 2^-11: times 6), then the
# doubling loop's multiplier: a converter's scale for [-4, 4], a very fine and a coarse one.
TANH_INT16_SCALES = [2**-12, 2**-11, 4 / 32767, 1e-6, 2e-3]
INT16_SHAPE = (256, 256)


def test_tanh_int16(tmp_path):
    data = int16_unary_model(tb.OPS.TANH, TANH_INT16_SCALES, INT16_SHAPE)
    path = write_model(data, tmp_path)
    assert op_kinds(path) == ["TANH"] * len(TANH_INT16_SCALES)
    got = check_every_int16(path, tmp_path, INT16_SHAPE, len(TANH_INT16_SCALES))
    assert got.exact
    coarse = got.outputs[0][-1]
    assert coarse.min() < -32700 and coarse.max() > 32700


def test_tanh_int16_needs_zero_points_0():
    rejects(
        "TANH",
        DType.INT16,
        DType.INT16,
        "int16 input and output must have zero point 0",
        in_quant=Quant((2**-12,), (3,)),
        out_quant=Quant((1 / 32768,), (0,)),
    )


@pytest.mark.parametrize("in_q,out_q", ELU_QUANT.values(), ids=ELU_QUANT.keys())
def test_elu_int8(tmp_path, in_q, out_q):
    """The converter leaves ELU in float, so the int8 model is built by hand."""
    path = build_one(
        tmp_path,
        tflite.BuiltinOperator.ELU,
        tb.Tensor("in", list(SHAPE), T.INT8, 0, [in_q[0]], [in_q[1]]),
        tb.Tensor("out", list(SHAPE), T.INT8, 0, [out_q[0]], [out_q[1]]),
    )
    assert op_kinds(path) == ["ELU"]
    got = check_int8(path, tmp_path)
    assert got.min() == max(-128, out_q[1] - round(1 / out_q[0]))


@pytest.mark.parametrize("low,high", [(0.05, 4.0), (1.0, 300.0)], ids=["fine", "coarse"])
def test_rsqrt_int8(convert, tmp_path, low, high):
    """Inputs from the zero point up: TFLite Micro fails the invoke below it."""
    path = convert(_ops("RSQRT"), True, low, high)
    zero_point = load(path).tensors[load(path).inputs[0]].zero_point
    valid = np.resize(np.arange(zero_point, 128, dtype=np.int8), SHAPE)
    got = check_inputs(path, tmp_path, [[valid]])
    assert got.exact and got.outputs[0][0].ravel()[0] == 127


def check_int8(path, tmp_path) -> np.ndarray:
    """Random inputs and every int8 value, byte for byte: our outputs for every value."""
    assert check_against_tflm(path, tmp_path, sets=2).exact
    chosen = check_inputs(path, tmp_path, [[every_int8(SHAPE)]])
    assert chosen.exact
    return chosen.outputs[0][0]


Q = Quant((0.05,), (3,))
REJECTS = {
    "tanh_uint8": ("TANH", DType.UINT8, {}, Q, Q, "supported: int8, int16, float32"),
    "hard_swish_scales": (
        "HARD_SWISH",
        DType.INT8,
        {},
        Quant((1.0,), (0,)),
        Quant((1 / 256,), (0,)),
        "below 128",
    ),
    "leaky_relu_no_alpha": ("LEAKY_RELU", DType.INT8, {}, Q, Q, "Alpha option is missing"),
    "abs_uint8": ("ABS", DType.UINT8, {}, Q, Q, "supported: int8, float32"),
    "neg_int8": ("NEG", DType.INT8, {}, Q, Q, "supported: float32"),
    "elu_uint8": ("ELU", DType.UINT8, {}, Q, Q, "supported: int8, float32"),
    "rsqrt_uint8": ("RSQRT", DType.UINT8, {}, Q, Q, "supported: int8, float32"),
    "sqrt_int8": ("SQRT", DType.INT8, {}, Q, Q, "supported: float32"),
    "exp_int8": ("EXP", DType.INT8, {}, Q, Q, "supported: float32"),
    "log_int8": ("LOG", DType.INT8, {}, Q, Q, "supported: float32"),
    "square_int8": ("SQUARE", DType.INT8, {}, Q, Q, "supported: float32"),
    "floor_int8": ("FLOOR", DType.INT8, {}, Q, Q, "supported: float32"),
    "ceil_int8": ("CEIL", DType.INT8, {}, Q, Q, "supported: float32"),
    "round_int8": ("ROUND", DType.INT8, {}, Q, Q, "supported: float32"),
    "sin_int8": ("SIN", DType.INT8, {}, Q, Q, "supported: float32"),
    "cos_int8": ("COS", DType.INT8, {}, Q, Q, "supported: float32"),
    "logical_not_int8": ("LOGICAL_NOT", DType.INT8, {}, Q, Q, "supported: bool"),
}


@pytest.mark.parametrize("case", REJECTS.values(), ids=REJECTS.keys())
def test_rejects(case):
    kind, dtype, options, in_q, out_q, match = case
    rejects(kind, dtype, dtype, match, options, in_q, out_q)


def test_cast_rejects_uint8_output():
    rejects("CAST", DType.FLOAT32, DType.UINT8, "float32 -> uint8 is not supported")


CAST_FROM = {T.INT8: np.int8, T.INT16: np.int16, T.INT32: np.int32, T.FLOAT32: np.float32}
CAST_TO = (T.INT8, T.INT16, T.INT32, T.FLOAT32)


def build_graph(tmp_path, name, inputs, ops, outputs, opcodes):
    """A model from tensors (inputs, then outputs) and (opcode index, [in], [out]) triples."""
    model = tb.Model(
        subgraphs=[
            tb.SubGraph(
                tensors=inputs + outputs,
                operators=[tb.Operator(code, ins, outs) for code, ins, outs in ops],
                inputs=list(range(len(inputs))),
                outputs=list(range(len(inputs), len(inputs) + len(outputs))),
            )
        ],
        opcodes=[tb.OpCode(c) for c in opcodes],
    )
    return write_model(tb.build(model), tmp_path, name)


@pytest.fixture(scope="module")
def cast_model(tmp_path_factory):
    """Each of int8, int16, int32 and float32 cast to each of them: 16 CASTs."""
    inputs = [tb.Tensor(f"in{i}", list(SHAPE), t) for i, t in enumerate(CAST_FROM)]
    outputs, ops = [], []
    for i in range(len(inputs)):
        for t in CAST_TO:
            ops.append((0, [i], [len(inputs) + len(outputs)]))
            outputs.append(tb.Tensor(f"out{len(outputs)}", list(SHAPE), t))
    path = build_graph(
        tmp_path_factory.mktemp("cast"), "cast", inputs, ops, outputs, [tflite.BuiltinOperator.CAST]
    )
    assert op_kinds(path) == ["CAST"] * 16
    return path


def _cast_inputs(nan: bool = False) -> list[np.ndarray]:
    """Values at and past each type's edges; NaN only where no float output would carry it
    (the exact comparison of a float output takes NaN for a difference)."""
    floats = np.array(
        [0.0, -0.0, 0.5, -0.5, 0.99, -0.99, 3.7, -3.7, 127.5, 128.9, -128.9, 300.7, -300.7]
        + [32767.9, 32768.5, -32769.5, 65535.5, 16777217.0, 2147483520.0, -2147483648.0]
        + [2147483648.0, -2147483904.0, 1e10, -1e10, 3e38, -3e38, np.inf, -np.inf],
        np.float32,
    )
    if nan:
        floats[0] = np.nan
    ints = [-(2**31), 2**31 - 1, 2**24 + 1, -(2**24) - 3, 65535, -32769, 32768, 300, -129, 128]
    ints += [255, -1, 0, 1, 127, -128]
    int16 = np.arange(-32768, 32768, 256, dtype=np.int16)
    int16[:4] = [32767, -32768, -1, 255]
    return [
        every_int8(SHAPE),
        np.resize(int16, SHAPE),
        np.resize(np.array(ints, np.int64).astype(np.int32), SHAPE),
        np.resize(floats, SHAPE),
    ]


def test_cast(cast_model, tmp_path):
    assert check_against_tflm(cast_model, tmp_path, sets=2).exact
    assert check_inputs(cast_model, tmp_path, [_cast_inputs()]).exact


def test_cast_folds_as_tflm_casts(cast_model):
    """The fold of a constant input gives what TFLite Micro's CAST gives at run time."""
    inputs = _cast_inputs(nan=True)
    want = iter(Reference(cast_model).run(inputs))
    by_numpy = {d.numpy: d for d in DType}
    for x in inputs:
        for to in CAST_TO:
            to_dtype = by_numpy[np.dtype(CAST_FROM[to])]
            graph = Graph(
                tensors=[
                    Tensor(0, "in", by_numpy[x.dtype], SHAPE, data=x),
                    Tensor(1, "out", to_dtype, SHAPE),
                ],
                ops=[Op(0, "CAST", [0], [1])],
                inputs=[],
                outputs=[1],
            )
            assert lower_op(graph, graph.ops[0]) is None
            np.testing.assert_array_equal(graph.tensors[1].data, next(want))


def test_bool_ops(tmp_path):
    """LOGICAL_NOT, CAST from bool, and CAST of floats with NaN to integers, on every bool
    pattern (TFLite Micro's interpreter draws no random bools)."""
    ints = (T.INT8, T.INT16, T.INT32)
    inputs = [tb.Tensor("flags", list(SHAPE), T.BOOL), tb.Tensor("x", list(SHAPE), T.FLOAT32)]
    outputs = [tb.Tensor("not", list(SHAPE), T.BOOL)]
    outputs += [tb.Tensor(f"b{i}", list(SHAPE), t) for i, t in enumerate(CAST_TO)]
    outputs += [tb.Tensor(f"f{i}", list(SHAPE), t) for i, t in enumerate(ints)]
    ops = [(0, [0], [2])] + [(1, [0], [3 + i]) for i in range(4)]
    ops += [(1, [1], [7 + i]) for i in range(3)]
    codes = [tflite.BuiltinOperator.LOGICAL_NOT, tflite.BuiltinOperator.CAST]
    path = build_graph(tmp_path, "bools", inputs, ops, outputs, codes)
    assert op_kinds(path) == ["LOGICAL_NOT"] + ["CAST"] * 7
    floats = _cast_inputs(nan=True)[3]
    floats.ravel()[1::7] = np.nan
    flags = np.resize([True, False, False, True], SHAPE)
    got = check_inputs(path, tmp_path, [[flags, floats], [~flags, floats]])
    assert got.exact
    assert np.array_equal(got.outputs[0][0], ~flags)
    assert np.all(got.outputs[0][5][np.isnan(floats)] == 0)


def test_logical_not_folds():
    flags = np.array([True, False, True])
    graph = Graph(
        tensors=[
            Tensor(0, "in", DType.BOOL, (3,), data=flags),
            Tensor(1, "out", DType.BOOL, (3,)),
        ],
        ops=[Op(0, "LOGICAL_NOT", [0], [1])],
        inputs=[],
        outputs=[1],
    )
    assert lower_op(graph, graph.ops[0]) is None
    assert np.array_equal(graph.tensors[1].data, ~flags)


def test_cast_between_int32_and_uint32_is_a_view(tmp_path):
    """int32 -> uint32 -> int32 after an ADD, as the signal library's models cast their
    energies: the same bits under the other type, no kernel, as TFLite Micro's static_cast
    leaves them."""
    inputs = [tb.Tensor("in", list(SHAPE), T.INT32)]
    outputs = [tb.Tensor("u", list(SHAPE), T.UINT32), tb.Tensor("i", list(SHAPE), T.INT32)]
    outputs.append(tb.Tensor("sum", list(SHAPE), T.INT32))
    ops = [(1, [0, 0], [3]), (0, [3], [1]), (0, [1], [2])]
    opcodes = [tflite.BuiltinOperator.CAST, tflite.BuiltinOperator.ADD]
    path = build_graph(tmp_path, "cast_u32", inputs, ops, outputs, opcodes)
    assert op_kinds(path) == ["ADD", "CAST", "CAST"]
    graph = frontend.load(path)
    assert all(isinstance(lower_op(graph, op), Alias) for op in graph.ops[1:])
    assert check_inputs(path, tmp_path, [_cast_inputs()[2:3]]).exact
