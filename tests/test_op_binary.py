"""The broadcasting binary ops (SUB, MAXIMUM, MINIMUM, DIV, SQUARED_DIFFERENCE, PRELU,
FLOOR_DIV, FLOOR_MOD, the six comparisons, LOGICAL_AND, LOGICAL_OR, SELECT_V2) against
TFLite Micro, and the folds of constant arithmetic (these ops, ADD and MUL).

Most models are written with tflite_builder: one model holds every op of a dtype on every
shape case, so that one build checks them all, and the int8 inputs get the scales and zero
points a test picks (asymmetric, different on the two inputs). A few go through the
TensorFlow converter, to check what it really emits.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import corpus
import numpy as np
import pytest
import tflite_builder as tb
import tfmodels
from harness import check_against_tflm
from opcheck import check_inputs, every_int8, load, op_kinds, write_model
from tinyaot.compiler import Options, compile_graph, lower_op
from tinyaot.errors import CompileError
from tinyaot.ir import DType, Graph, Op, Quant, Tensor

ACT = tb.ACT
BOOL = tb.tflite.TensorType.BOOL

# One input of 256 elements at least, so that every int8 value can be an input.
SHAPES = {
    "same": [(1, 8, 8, 4), (1, 8, 8, 4)],
    "channel": [(1, 8, 8, 4), (1, 1, 1, 4)],
    "both_ways": [(1, 4, 1, 64), (1, 1, 8, 1)],
    "rank2": [(64, 4), (4,)],
    "scalar_first": [(1,), (4, 8, 8)],
}
COMPARISONS = ["EQUAL", "NOT_EQUAL", "LESS", "LESS_EQUAL", "GREATER", "GREATER_EQUAL"]
OPTIONS = {"SUB": "SubOptions", "DIV": "DivOptions", "ADD": "AddOptions", "MUL": "MulOptions"}
INT32_MIN, INT32_MAX = -(2**31), 2**31 - 1


@dataclass
class T:
    """A tensor of a test model: dtype, shape, quantisation, constant data."""

    dtype: int
    shape: tuple[int, ...]
    scale: float | None = None
    zero_point: int = 0
    data: np.ndarray | None = None


@dataclass
class O:  # noqa: E742
    """An op of a test model: its inputs (tensor numbers), output tensor, activation."""

    kind: str
    inputs: list[int]
    out: T
    act: int | None = None


def build(inputs: list[T], ops: list[O]) -> bytes:
    """A model whose inputs are the non-constant `inputs` and whose outputs are every op's."""
    tensors, buffers = [], [tb.Buffer()]
    for i, t in enumerate([*inputs, *(o.out for o in ops)]):
        buffer = 0
        if t.data is not None:
            buffers.append(tb.Buffer(np.ascontiguousarray(t.data).tobytes()))
            buffer = len(buffers) - 1
        quant = {} if t.scale is None else {"scale": [t.scale], "zero_point": [t.zero_point]}
        tensors.append(tb.Tensor(f"t{i}", list(t.shape), t.dtype, buffer, **quant))
    kinds = sorted({o.kind for o in ops})
    operators = []
    for n, o in enumerate(ops):
        opts = {}
        if o.act is not None:
            opts = {"options_name": OPTIONS[o.kind], "options": {"FusedActivationFunction": o.act}}
        operators.append(tb.Operator(kinds.index(o.kind), o.inputs, [len(inputs) + n], **opts))
    graph = tb.SubGraph(
        tensors,
        operators,
        [i for i, t in enumerate(inputs) if t.data is None],
        [len(inputs) + n for n in range(len(ops))],
    )
    return tb.build(tb.Model([graph], [tb.OpCode(getattr(tb.OPS, k)) for k in kinds], buffers))


def each_shape(
    inputs: Callable[[tuple[int, ...], tuple[int, ...]], list[T]],
    make: Callable[[list[int], tuple[int, ...]], list[O]],
) -> tuple[list[T], list[O]]:
    """`inputs(sa, sb)` for every shape case, and `make(their numbers, output shape)`'s ops."""
    ts: list[T] = []
    ops: list[O] = []
    for sa, sb in SHAPES.values():
        new = inputs(sa, sb)
        ops += make(list(range(len(ts), len(ts) + len(new))), np.broadcast_shapes(sa, sb))
        ts += new
    return ts, ops


def run(tmp_path, inputs: list[T], ops: list[O], sets: list[list[np.ndarray]]):
    path = write_model(build(inputs, ops), tmp_path)
    assert sorted(set(op_kinds(path))) == sorted({o.kind for o in ops})
    return check_inputs(path, tmp_path, sets)


def per_shape(fn: Callable[[tuple[int, ...], tuple[int, ...]], list[np.ndarray]]):
    """One input set: `fn(sa, sb)`'s arrays for every shape case."""
    return [x for sa, sb in SHAPES.values() for x in fn(sa, sb)]


def int8_sets(rng: np.random.Generator) -> list[list[np.ndarray]]:
    """Random inputs; every int8 value on the larger input of a pair against shuffled values;
    and values that stand for the same real number on both sides."""

    def edge(sa, sb):
        e = [rng.permutation(every_int8((256,)))[: int(np.prod(s))].reshape(s) for s in (sa, sb)]
        big = int(np.prod(sb) > np.prod(sa))
        e[big] = every_int8((sa, sb)[big])
        return e

    def random(sa, sb):
        return [rng.integers(-128, 128, size=s, dtype=np.int8) for s in (sa, sb)]

    def same(sa, sb):
        # 0.06 * (3k - 7 + 7) == 0.09 * (2k + 12 - 12): the same real value for one k in 7,
        # which the comparisons must find equal after their rescaling.
        k = [rng.integers(-3, 4, size=s) for s in (sa, sb)]
        return [(3 * k[0] - 7).astype(np.int8), (2 * k[1] + 12).astype(np.int8)]

    return [per_shape(random), per_shape(random), per_shape(edge), per_shape(same)]


def int8_ops(i: int, j: int, shape: tuple[int, ...]) -> list[O]:
    """Every int8 op on inputs i and j, each output with its own quantisation."""
    ops = [
        O("SUB", [i, j], T(tb.INT8, shape, 0.1, 3), ACT.NONE),
        O("SUB", [i, j], T(tb.INT8, shape, 0.05, -20), ACT.RELU),
        O("SUB", [j, i], T(tb.INT8, shape, 0.05, -20), ACT.RELU6),
        O("MAXIMUM", [i, j], T(tb.INT8, shape, 0.06, -7)),
        O("MINIMUM", [i, j], T(tb.INT8, shape, 0.06, -7)),
        O("SQUARED_DIFFERENCE", [i, j], T(tb.INT8, shape, 0.07, -128)),
        O("PRELU", [i, j], T(tb.INT8, shape, 0.05, 4)),
        O("DIV", [i, j], T(tb.INT8, shape, 0.02, -5), ACT.NONE),
        O("DIV", [j, i], T(tb.INT8, shape, 0.04, 9), ACT.RELU6),
    ]
    return ops + [O(k, [i, j], T(BOOL, shape)) for k in COMPARISONS]


INT8_INPUTS = (0.06, -7), (0.09, 12)
N_INT8 = 15  # ops per input pair


def test_int8_ops(tmp_path):
    (s1, z1), (s2, z2) = INT8_INPUTS
    inputs, ops = each_shape(
        lambda sa, sb: [T(tb.INT8, sa, s1, z1), T(tb.INT8, sb, s2, z2)],
        lambda ix, shape: int8_ops(*ix, shape),
    )
    result = run(tmp_path, inputs, ops, int8_sets(np.random.default_rng(1)))
    assert result.exact
    n, total = N_INT8, N_INT8 * len(SHAPES)
    sub = np.concatenate([o[k].ravel() for o in result.outputs for k in range(0, total, n)])
    assert sub.min() == -128 and sub.max() == 127
    relu6 = np.concatenate([o[k].ravel() for o in result.outputs for k in range(2, total, n)])
    assert relu6.min() == -20 and relu6.max() == round(6 / 0.05) - 20
    # The last set gives every comparison of every shape case both results.
    for k in range(total):
        if k % n >= 9:
            got = result.outputs[-1][k]
            assert 0 < got.sum() < got.size, (k, ops[k].kind)


def test_int8_every_pair(tmp_path):
    # All 65536 pairs of int8 values through every int8 op: every rounding case of this
    # quantisation, divisors at their zero point included.
    (s1, z1), (s2, z2) = INT8_INPUTS
    shape = (65536,)
    ops = int8_ops(0, 1, shape)
    a = np.repeat(np.arange(-128, 128), 256).astype(np.int8)
    b = np.tile(np.arange(-128, 128), 256).astype(np.int8)
    result = run(tmp_path, [T(tb.INT8, shape, s1, z1), T(tb.INT8, shape, s2, z2)], ops, [[a, b]])
    assert result.exact
    quotients = result.outputs[0][7]
    assert quotients.min() == -128 and quotients.max() == 127


def constant_cases() -> tuple[list[T], list[O]]:
    """An int8 input against constants of one value (first and second, a scalar and a
    broadcast vector) in every int8 op that tabulates them, and against a constant of four
    values, which keeps the kernel."""
    shape = (1, 8, 8, 4)
    inputs = [
        T(tb.INT8, shape, 0.06, -7),
        T(tb.INT8, (1,), 0.09, 12, np.array([37], np.int8)),
        T(tb.INT8, (1, 1, 1, 4), 0.05, -3, np.full(4, -100, np.int8)),
        T(tb.INT8, (1, 1, 1, 4), 0.05, -3, np.array([-100, 0, 5, 90], np.int8)),
    ]
    ops = [
        O("ADD", [0, 1], T(tb.INT8, shape, 0.03, 3), ACT.NONE),
        O("ADD", [2, 0], T(tb.INT8, shape, 0.04, -128), ACT.RELU),
        O("SUB", [0, 1], T(tb.INT8, shape, 0.1, 3), ACT.NONE),
        O("SUB", [1, 0], T(tb.INT8, shape, 0.05, -20), ACT.RELU6),
        O("SUB", [0, 2], T(tb.INT8, shape, 0.07, 5), ACT.RELU_N1_TO_1),
        O("MUL", [0, 1], T(tb.INT8, shape, 0.2, -4), ACT.NONE),
        O("MUL", [2, 0], T(tb.INT8, shape, 0.3, 10), ACT.RELU),
        O("MAXIMUM", [0, 1], T(tb.INT8, shape, 0.06, -7)),
        O("MINIMUM", [2, 0], T(tb.INT8, shape, 0.06, -7)),
        O("SUB", [0, 3], T(tb.INT8, shape, 0.1, 3), ACT.NONE),
        O("MUL", [3, 0], T(tb.INT8, shape, 0.3, 10), ACT.NONE),
    ]
    return inputs, ops


def test_int8_constant_of_one_value_is_a_table(tmp_path):
    # x - c, c * x, max(x, c), ...: a function of one byte, a 256-byte table filled with the
    # kernel's arithmetic; every int8 input value, so every entry of every table is compared.
    inputs, ops = constant_cases()
    path = write_model(build(inputs, ops), tmp_path)
    steps = compile_graph(load(path), Options(name="m"), path.name).steps
    functions = [step.call.function for step in steps]
    assert functions[:9] == ["tinyaot_lut8"] * 9
    assert "tinyaot_lut8" not in functions[9:]
    rng = np.random.default_rng(3)
    sets = [[every_int8((1, 8, 8, 4))], [rng.integers(-128, 128, (1, 8, 8, 4), dtype=np.int8)]]
    result = check_inputs(path, tmp_path, sets)
    assert result.exact
    # The tables reach both ends of int8 and both clamps of the activations.
    assert result.outputs[0][0].min() == -128 and result.outputs[0][0].max() == 127
    relu6 = result.outputs[0][3]
    assert relu6.min() == -20 and relu6.max() == round(6 / 0.05) - 20


def test_corpus_constants_of_one_value_are_tables(tmp_path):
    # The doorbell detector's input normalisation (SUB of one constant over 1960 elements),
    # from the repository's corpus: a table, and the model's bytes are TFLite Micro's.
    path = corpus.MODELS / "armameba_doorbell_int8.tflite"
    graph = load(path)
    steps = compile_graph(graph, Options(name="m"), path.name).steps
    assert graph.ops[0].kind == "SUB" and steps[0].call.function == "tinyaot_lut8"
    assert check_against_tflm(path, tmp_path, sets=3).exact


@pytest.mark.parametrize("kind", ["ADD", "SUB", "MUL", "MAXIMUM", "MINIMUM"])
def test_int8_constant_of_another_dtype_is_refused(kind):
    # A constant of one value but not int8 is no table: the dtypes differ, as without it.
    q = Quant((0.1,), (0,))
    tensors = [
        Tensor(0, "x", DType.INT8, (1, 4), q),
        Tensor(1, "c", DType.INT16, (1,), q, np.array([3], np.int16)),
        Tensor(2, "out", DType.INT8, (1, 4), q),
    ]
    graph = Graph(tensors, [Op(0, kind, [0, 1], [2])], [0], [2])
    with pytest.raises(CompileError, match="input dtypes int8 and int16 differ"):
        lower_op(graph, graph.ops[0])


SPECIAL_A = [0.0, -0.0, 1.0, -1.0, 2.5, -2.5, np.nan, np.inf, -np.inf, 1e30, -7.0, 3.0]
SPECIAL_B = [1.0, -1.0, 2.5, -2.5, 0.75, np.inf, -np.inf, 1e-30, 3.0, -7.0]


I16 = tb.tflite.TensorType.INT16


def int16_ops(i: int, j: int, shape: tuple[int, ...]) -> list[O]:
    """ADD, SUB and MUL on int16 (zero points 0): outputs finer and coarser than the inputs,
    every fused activation."""
    return [
        O("ADD", [i, j], T(I16, shape, 1 / 1500), ACT.NONE),
        O("ADD", [j, i], T(I16, shape, 1 / 20000), ACT.RELU6),
        O("SUB", [i, j], T(I16, shape, 1 / 2500), ACT.RELU),
        O("SUB", [j, i], T(I16, shape, 1 / 500), ACT.RELU_N1_TO_1),
        O("MUL", [i, j], T(I16, shape, 1 / 300), ACT.NONE),
        O("MUL", [j, i], T(I16, shape, 1 / 6000), ACT.RELU),
    ]


def test_int16_ops(tmp_path):
    inputs, ops = each_shape(
        lambda sa, sb: [T(I16, sa, 1 / 3000), T(I16, sb, 1 / 1700)],
        lambda ix, shape: int16_ops(*ix, shape),
    )
    rng = np.random.default_rng(2)

    def random(sa, sb):
        return [rng.integers(-32768, 32768, size=s, dtype=np.int16) for s in (sa, sb)]

    def ends(sa, sb):
        return [rng.choice(np.array([-32768, -1, 0, 1, 32767], np.int16), s) for s in (sa, sb)]

    sets = [per_shape(random), per_shape(random), per_shape(ends)]
    result = run(tmp_path, inputs, ops, sets)
    assert result.exact
    add = np.concatenate([o[k].ravel() for o in result.outputs for k in range(0, len(ops), 6)])
    assert add.min() == -32768 and add.max() == 32767


def float_random(rng: np.random.Generator, sa, sb) -> list[np.ndarray]:
    # No zero divisor: TFLite Micro's FLOOR_DIV refuses it.
    b = rng.uniform(0.25, 4.0, size=sb) * rng.choice([-1.0, 1.0], size=sb)
    return [rng.uniform(-8.0, 8.0, size=sa).astype(np.float32), b.astype(np.float32)]


def float_special(rng: np.random.Generator, sa, sb) -> list[np.ndarray]:
    """Zeros of both signs, NaN, infinities, huge and tiny values, equal values."""
    return [rng.choice(np.float32(SPECIAL_A), size=sa), rng.choice(np.float32(SPECIAL_B), size=sb)]


def arithmetic(i: int, j: int, out: T) -> list[O]:
    """The float32 and int32 ops on inputs i and j, with fused activations."""
    return [
        O("SUB", [i, j], out, ACT.NONE),
        O("SUB", [j, i], out, ACT.RELU6),
        O("MAXIMUM", [i, j], out),
        O("MINIMUM", [i, j], out),
        O("DIV", [i, j], out, ACT.NONE),
        O("DIV", [i, j], out, ACT.RELU),
        O("SQUARED_DIFFERENCE", [i, j], out),
        # int32 ADD takes the whole int32 range whatever the activation, as TFLite Micro's.
        O("ADD", [i, j], out, ACT.RELU6),
        O("MUL", [j, i], out, ACT.RELU),
    ]


def test_float_ops(tmp_path):
    # Float outputs only: a model with a bool output is compared byte for byte, NaNs too
    # (the comparisons on float run in test_int32_ops_and_float_comparisons).
    def make(ix: list[int], shape: tuple[int, ...]) -> list[O]:
        i, j = ix
        out = T(tb.FLOAT32, shape)
        return arithmetic(i, j, out) + [
            O(k, [i, j], out) for k in ("PRELU", "FLOOR_DIV", "FLOOR_MOD")
        ]

    rng = np.random.default_rng(2)
    inputs, ops = each_shape(lambda sa, sb: [T(tb.FLOAT32, sa), T(tb.FLOAT32, sb)], make)
    sets = [per_shape(lambda sa, sb: float_random(rng, sa, sb)) for _ in range(2)]
    sets += [per_shape(lambda sa, sb: float_special(rng, sa, sb)) for _ in range(2)]
    result = run(tmp_path, inputs, ops, sets)
    assert result.max_rel_error <= 1e-5
    squares = np.concatenate([o[k].ravel() for o in result.outputs for k in range(6, 60, 12)])
    assert np.isnan(squares).any() and np.isinf(squares).any()


def test_int32_ops_and_float_comparisons(tmp_path):
    def make(ix: list[int], shape: tuple[int, ...]) -> list[O]:
        i, j, fi, fj = ix
        ops = arithmetic(i, j, T(tb.INT32, shape))
        ops += [O(k, [i, j], T(BOOL, shape)) for k in COMPARISONS]
        return ops + [O(k, [fi, fj], T(BOOL, shape)) for k in COMPARISONS]

    rng = np.random.default_rng(3)
    divisors = np.array([1, 2, 3, 7, -1, -2, -3, -7, 46341, INT32_MAX, INT32_MIN], np.int32)
    extremes = np.array([INT32_MIN, INT32_MAX, 0, 1, -1, 46341, -46341, 5, -5], np.int32)

    def small(sa, sb):
        ints = [rng.integers(-9, 10, size=sa, dtype=np.int32), rng.choice(divisors[:8], size=sb)]
        return ints + float_random(rng, sa, sb)

    def wide(sa, sb):
        # Wrapping differences and squares; no INT32_MIN / -1 or zero divisor, which fault
        # in TFLite Micro. Floats with NaN, infinities and equal values.
        ints = [rng.choice(extremes, size=sa), rng.choice(divisors[divisors != -1], size=sb)]
        return ints + float_special(rng, sa, sb)

    inputs, ops = each_shape(
        lambda sa, sb: [T(tb.INT32, sa), T(tb.INT32, sb), T(tb.FLOAT32, sa), T(tb.FLOAT32, sb)],
        make,
    )
    sets = [per_shape(small), per_shape(small), per_shape(wide), per_shape(wide)]
    result = run(tmp_path, inputs, ops, sets)
    assert result.exact
    n = 21  # ops per shape case
    # Quotients truncate: some are negative and not floors.
    quotients = np.concatenate([o[k].ravel() for o in result.outputs for k in range(4, 5 * n, n)])
    assert (quotients < 0).any() and (quotients > 0).any()
    # Every comparison, int32 and float, gives both results.
    for first in range(9, n):
        got = np.concatenate([o[k].ravel() for o in result.outputs for k in range(first, 5 * n, n)])
        assert 0 < got.sum() < got.size, ops[first].kind


def test_bool_ops(tmp_path):
    # EQUAL and NOT_EQUAL on bools, LOGICAL_AND, LOGICAL_OR, and SELECT_V2 of float and int8
    # values with all three inputs broadcasting.
    q = 0.05, -3
    inputs = [
        T(BOOL, (1, 4, 1, 3)),
        T(BOOL, (1, 1, 5, 1)),
        T(tb.FLOAT32, (1, 1, 5, 3)),
        T(tb.FLOAT32, (5, 1)),
        T(tb.INT8, (1, 4, 5, 3), *q),
        T(tb.INT8, (3,), *q),
        T(BOOL, (2, 3)),
        T(tb.INT8, (2, 3), *q),
    ]
    out = (1, 4, 5, 3)
    ops = [
        O("EQUAL", [0, 1], T(BOOL, out)),
        O("NOT_EQUAL", [1, 0], T(BOOL, out)),
        O("LOGICAL_AND", [0, 1], T(BOOL, out)),
        O("LOGICAL_OR", [0, 1], T(BOOL, out)),
        O("SELECT_V2", [0, 2, 3], T(tb.FLOAT32, out)),
        O("SELECT_V2", [1, 4, 5], T(tb.INT8, out, *q)),
        O("SELECT_V2", [6, 7, 7], T(tb.INT8, (2, 3), *q)),
    ]
    rng = np.random.default_rng(4)

    def one_set() -> list[np.ndarray]:
        values = []
        for t in inputs:
            if t.dtype == BOOL:
                values.append(rng.integers(0, 2, size=t.shape).astype(np.bool_))
            elif t.dtype == tb.INT8:
                values.append(rng.integers(-128, 128, size=t.shape, dtype=np.int8))
            else:
                values.append(rng.uniform(-1, 1, size=t.shape).astype(np.float32))
        return values

    result = run(tmp_path, inputs, ops, [one_set() for _ in range(3)])
    assert result.exact
    got = result.outputs[0]
    for k in range(4):
        assert 0 < got[k].sum() < got[k].size


def test_converted_int8(tmp_path):
    # The converter's own quantisation: wide asymmetric ranges, one scale per tensor.
    def fn(a, b):
        import tensorflow as tf

        return [a - b, tf.maximum(a, b), tf.minimum(a, b), tf.math.squared_difference(a, b)]

    data = tfmodels.convert(fn, SHAPES["channel"], int8=True, low=-2.0, high=30.0)
    path = write_model(data, tmp_path)
    # The converter requantises the inputs of MAXIMUM and MINIMUM to their output's scale.
    assert {"SUB", "MAXIMUM", "MINIMUM", "SQUARED_DIFFERENCE"} <= set(op_kinds(path))
    sub = next(op for op in load(path).ops if op.kind == "SUB")
    assert any(load(path).tensors[i].zero_point != 0 for i in sub.inputs)
    assert check_against_tflm(path, tmp_path, sets=3).exact


def test_prelu_constant_alpha(tmp_path):
    # Keras' PReLU: one alpha per channel, constant, broadcast over the image (float32 PRELU
    # is the same kernel call as in test_float_ops).
    def layers(x):
        import tensorflow as tf

        alpha = tf.keras.initializers.RandomUniform(-0.5, 0.9, seed=1)
        return tf.keras.layers.PReLU(alpha_initializer=alpha, shared_axes=[1, 2])(x)

    path = write_model(tfmodels.keras(layers, (1, 6, 6, 5), True), tmp_path)
    graph = load(path)
    assert [op.kind for op in graph.ops] == ["PRELU"]
    alpha = graph.tensors[graph.ops[0].inputs[1]]
    assert alpha.is_const and alpha.num_elements == 5
    assert check_against_tflm(path, tmp_path, sets=5).exact


def _graph(kind: str, values: list[np.ndarray], out: np.dtype, options=None) -> Graph:
    """One op on constant inputs (None: a graph input of that position's dtype)."""
    tensors = [
        Tensor(i, f"in{i}", next(d for d in DType if d.numpy == v.dtype), v.shape, None, v)
        for i, v in enumerate(values)
    ]
    shape = np.broadcast_shapes(*(v.shape for v in values))
    dtype = next(d for d in DType if d.numpy == np.dtype(out))
    tensors.append(Tensor(len(values), "out", dtype, shape))
    op = Op(0, kind, list(range(len(values))), [len(values)], options or {})
    return Graph(tensors=tensors, ops=[op], inputs=[], outputs=[len(values)])


def i32(*v: int) -> np.ndarray:
    return np.array(v, dtype=np.int32)


def f32(*v: float) -> np.ndarray:
    return np.array(v, dtype=np.float32)


FOLDS = [
    # int32 wraps; DIV truncates toward zero, FLOOR_DIV floors, FLOOR_MOD takes the
    # divisor's sign; fused activations clamp.
    ("ADD", [i32(INT32_MAX, 5), i32(1, -7)], {}, i32(INT32_MIN, -2)),
    ("ADD", [i32(3, -9), i32(1)], {"FusedActivationFunction": 1}, i32(4, 0)),
    ("MUL", [i32(1 << 30, -6), i32(4, 7)], {}, i32(0, -42)),
    ("MUL", [f32(1.5, -2.0), f32(4.0)], {"FusedActivationFunction": 3}, f32(6.0, 0.0)),
    ("SUB", [i32(INT32_MIN, 10), i32(1, 3)], {}, i32(INT32_MAX, 7)),
    ("DIV", [i32(7, -7, 7, INT32_MIN), i32(2, 2, -2, -1)], {}, i32(3, -3, -3, INT32_MIN)),
    ("DIV", [f32(1.0, -3.0), f32(0.0, 2.0)], {}, f32(np.inf, -1.5)),
    ("FLOOR_DIV", [i32(7, -7, 7), i32(2, 2, -2)], {}, i32(3, -4, -4)),
    ("FLOOR_DIV", [f32(7.0, -7.0), f32(2.0)], {}, f32(3.0, -4.0)),
    ("FLOOR_MOD", [i32(7, -7, 7), i32(3, 3, -3)], {}, i32(1, 2, -2)),
    ("FLOOR_MOD", [f32(7.5, -7.5), f32(2.0)], {}, f32(1.5, 0.5)),
    ("MAXIMUM", [i32(1, 9), i32(5)], {}, i32(5, 9)),
    ("MINIMUM", [f32(1.0, np.nan), f32(5.0)], {}, f32(1.0, 5.0)),
    ("SQUARED_DIFFERENCE", [i32(INT32_MAX, 3), i32(-1, 5)], {}, i32(0, 4)),
    ("PRELU", [f32(-2.0, 3.0), f32(0.25)], {}, f32(-0.5, 3.0)),
    ("LESS", [i32(1, 5), i32(3)], {}, np.array([True, False])),
    ("GREATER_EQUAL", [f32(1.0, np.nan), f32(1.0)], {}, np.array([True, False])),
    ("NOT_EQUAL", [f32(np.nan, 2.0), f32(2.0)], {}, np.array([True, False])),
    ("LOGICAL_OR", [np.array([True, False]), np.array([False])], {}, np.array([True, False])),
    ("SELECT_V2", [np.array([True, False]), i32(1, 2), i32(9)], {}, i32(1, 9)),
]


@pytest.mark.parametrize("kind,values,options,want", FOLDS, ids=[f[0] for f in FOLDS])
def test_fold(kind, values, options, want):
    graph = _graph(kind, values, want.dtype, options)
    assert lower_op(graph, graph.ops[0]) is None
    got = graph.tensors[-1].data
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got, want)


def test_quantised_constants_do_not_fold():
    graph = _graph("SUB", [np.int8([1, 2]), np.int8([3])], np.int8)
    for t in graph.tensors:
        t.quant = Quant((0.5,), (1,))
    call = lower_op(graph, graph.ops[0])
    assert call is not None and call.function == "tinyaot_sub_s8"


def test_int32_shape_arithmetic_never_reaches_the_device():
    # Keras-style shape arithmetic (dims multiplied, split, packed) feeding a RESHAPE of a
    # float input, then one float op: only that op may be left as a kernel.
    dims = i32(1, 4, 6)
    graph = Graph(tensors=[], ops=[], inputs=[0, 1], outputs=[])

    def tensor(dtype: DType, shape, data=None) -> int:
        graph.tensors.append(
            Tensor(len(graph.tensors), f"t{len(graph.tensors)}", dtype, shape, None, data)
        )
        return len(graph.tensors) - 1

    def op(kind: str, ins: list[int], out: int, **options) -> int:
        graph.ops.append(Op(len(graph.ops), kind, ins, [out], options))
        return out

    x, y = tensor(DType.FLOAT32, (1, 4, 6)), tensor(DType.FLOAT32, (4, 6))

    def const(*values: int) -> int:
        return tensor(DType.INT32, (len(values),), i32(*values))

    def int32_op(kind: str, a: int, b: int, dtype: DType = DType.INT32) -> int:
        return op(kind, [a, b], tensor(dtype, (3,)))

    area = int32_op("MUL", const(*dims), const(6))
    dims2 = int32_op("FLOOR_DIV", area, tensor(DType.INT32, (), np.array(6, np.int32)))
    part = int32_op("SUB", dims2, const(0, 0, 2))
    half = int32_op("DIV", part, const(1, 1, 2))
    whole = int32_op("ADD", half, const(0, 0, 4))
    ok = int32_op("EQUAL", whole, const(1, 4, 0), DType.BOOL)
    pick = op("SELECT_V2", [ok, whole, const(6)], tensor(DType.INT32, (3,)))
    view = op("RESHAPE", [y, pick], tensor(DType.FLOAT32, (1, 4, 6)))
    out = op("SUB", [x, view], tensor(DType.FLOAT32, (1, 4, 6)))
    graph.outputs = [out]
    compiled = compile_graph(graph, Options(name="m"), "shape_arithmetic")
    assert [s.call.function for s in compiled.steps] == ["tinyaot_sub_f32"]
    np.testing.assert_array_equal(graph.tensors[pick].data, dims)


def _rejected(kind: str, dtypes: list[DType], out: DType, match: str, shapes=None, quant=True):
    shapes = shapes or [(1, 4)] * (len(dtypes) + 1)
    q = Quant((0.1,), (0,))
    tensors = [
        Tensor(i, f"t{i}", d, s, q if quant and d == DType.INT8 else None)
        for i, (d, s) in enumerate(zip([*dtypes, out], shapes, strict=True))
    ]
    n = len(dtypes)
    graph = Graph(tensors, [Op(0, kind, list(range(n)), [n])], list(range(n)), [n])
    with pytest.raises(CompileError, match=match):
        lower_op(graph, graph.ops[0])


I8, F32, I32, BOOLEAN = DType.INT8, DType.FLOAT32, DType.INT32, DType.BOOL
REJECTED = [
    ("SUB", [DType.UINT8] * 2, DType.UINT8, "uint8 is not supported; supported: int8, float32"),
    ("MAXIMUM", [DType.INT16] * 2, DType.INT16, "supported: int8, float32, int32"),
    ("MINIMUM", [F32, I32], F32, "input dtypes float32 and int32 differ"),
    ("DIV", [DType.UINT8] * 2, DType.UINT8, "uint8 is not supported; supported: int8, float32"),
    ("SQUARED_DIFFERENCE", [DType.UINT8] * 2, DType.UINT8, "supported: int8, float32, int32"),
    ("PRELU", [I32, I32], I32, "int32 is not supported; supported: int8, float32"),
    ("FLOOR_DIV", [I32, I32], I32, "int32 is not supported; supported: float32"),
    ("FLOOR_MOD", [I8, I8], I8, "int8 is not supported; supported: float32"),
    ("EQUAL", [DType.UINT8] * 2, BOOLEAN, "uint8 -> bool is not supported; supported: int8->bool"),
    ("NOT_EQUAL", [F32, F32], F32, "float32 -> float32 is not supported"),
    ("LESS", [BOOLEAN] * 2, BOOLEAN, "bool -> bool is not supported; supported: int8->bool, "),
    ("LESS_EQUAL", [I32, I32], I8, "int32 -> int8 is not supported"),
    ("GREATER", [DType.INT64] * 2, BOOLEAN, "int64 -> bool is not supported"),
    ("GREATER_EQUAL", [DType.INT16] * 2, BOOLEAN, "int16 -> bool is not supported"),
    ("LOGICAL_AND", [F32, F32], F32, "float32 is not supported; supported: bool"),
    ("LOGICAL_OR", [I8, I8], I8, "int8 is not supported; supported: bool"),
    (
        "SELECT_V2",
        [BOOLEAN, I32, I32],
        I32,
        "bool -> int32 is not supported; supported: bool->int8",
    ),
]


@pytest.mark.parametrize("kind,dtypes,out,match", REJECTED, ids=[r[0] for r in REJECTED])
def test_rejects_unsupported_dtypes(kind, dtypes, out, match):
    _rejected(kind, dtypes, out, match)


def test_rejects_shapes_that_do_not_broadcast():
    _rejected(
        "SUB",
        [F32, F32],
        F32,
        "shapes \\[1, 4\\] and \\[3\\] do not broadcast",
        [(1, 4), (3,), (1, 4)],
    )
    _rejected(
        "SELECT_V2",
        [BOOLEAN, F32, F32],
        F32,
        "shape \\[3\\] does not broadcast to \\[2, 4\\]",
        [(2, 1), (1, 4), (3,), (2, 4)],
    )


def test_rejects_int8_div_rescaling_past_its_shifts():
    graph = _graph("DIV", [np.int8([1, 2]), np.int8([3])], np.int8)
    for t, scale in zip(graph.tensors, (1.0, 1e-4, 1e-4), strict=True):
        t.data, t.quant = None, Quant((scale,), (0,))
    with pytest.raises(CompileError, match="op 0 \\(DIV\\).*over 2\\^22; supported: up to that"):
        lower_op(graph, graph.ops[0])


def test_rejects_unquantised_int8_and_unsupported_activations():
    _rejected("SQUARED_DIFFERENCE", [I8, I8], I8, "int8 tensor has no quantisation", quant=False)
    graph = _graph("SUB", [f32(1.0), f32(2.0)], np.float32, {"FusedActivationFunction": 4})
    graph.tensors[0].data = None
    with pytest.raises(
        CompileError, match="op 0 \\(SUB\\).*TANH is not supported; supported: NONE"
    ):
        lower_op(graph, graph.ops[0])


def test_int16_mul_rejects_a_zero_point():
    """TFLite Micro's MUL needs int16 zero points of 0; so does the compiler."""
    q, off = Quant((0.1,), (0,)), Quant((0.1,), (5,))
    tensors = [
        Tensor(0, "a", DType.INT16, (1, 4), q),
        Tensor(1, "b", DType.INT16, (1, 4), off),
        Tensor(2, "out", DType.INT16, (1, 4), q),
    ]
    graph = Graph(tensors, [Op(0, "MUL", [0, 1], [2])], [0, 1], [2])
    with pytest.raises(CompileError, match="int16 zero point 5 is not 0"):
        lower_op(graph, graph.ops[0])
