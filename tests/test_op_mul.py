"""MUL, int8 and float32: broadcasting, fused activations and a constant operand."""

from __future__ import annotations

import numpy as np
import pytest
import tflite_builder as tb
import tfmodels
from harness import check_against_tflm
from opcheck import load, write_model
from tinyaot import frontend
from tinyaot.compiler import Options, compile_graph, lower_op
from tinyaot.errors import CompileError
from tinyaot.ir import DType, Graph, Op, Quant, Tensor

SHAPES = {
    "same": [(1, 4, 4, 3), (1, 4, 4, 3)],
    "channel": [(1, 4, 4, 3), (1, 1, 1, 3)],
    "both_ways": [(1, 4, 1, 3), (1, 1, 5, 1)],
    "rank2": [(6, 3), (3,)],
    "scalar_first": [(1,), (2, 3, 4)],
}


def _mul(tmp_path, fn, shapes, int8, **kw):
    path = write_model(tfmodels.convert(fn, shapes, int8=int8, **kw), tmp_path)
    graph = load(path)
    assert [op.kind for op in graph.ops] == ["MUL"]
    dtype = "int8" if int8 else "float32"
    assert graph.tensors[graph.ops[0].outputs[0]].dtype.short == dtype
    return path, graph.ops[0]


@pytest.mark.parametrize("int8", [True, False], ids=["int8", "float32"])
@pytest.mark.parametrize("shapes", SHAPES.values(), ids=SHAPES.keys())
def test_mul_broadcast(tmp_path, shapes, int8):
    path, _ = _mul(tmp_path, lambda a, b: a * b, shapes, int8)
    result = check_against_tflm(path, tmp_path, sets=5)
    if int8:
        assert result.exact


@pytest.mark.parametrize("int8", [True, False], ids=["int8", "float32"])
@pytest.mark.parametrize(
    "act,fn",
    [(1, lambda a, b: tf_relu(a * b)), (3, lambda a, b: tf_relu6(a * b))],
    ids=["relu", "relu6"],
)
def test_mul_fused_activation(tmp_path, act, fn, int8):
    # Inputs up to 4 in magnitude so that products reach past 6 and RELU6 clips.
    path, op = _mul(tmp_path, fn, SHAPES["channel"], int8, low=-4.0, high=4.0)
    assert op.options["FusedActivationFunction"] == act
    result = check_against_tflm(path, tmp_path, sets=5)
    if int8:
        assert result.exact


@pytest.mark.parametrize("int8", [True, False], ids=["int8", "float32"])
def test_mul_by_constant(tmp_path, int8):
    weights = np.linspace(-3.0, 2.0, 12, dtype=np.float32).reshape(1, 1, 4, 3)
    path, op = _mul(tmp_path, lambda a: a * weights, [(1, 3, 4, 3)], int8)
    graph = load(path)
    assert sum(graph.tensors[i].is_const for i in op.inputs) == 1
    result = check_against_tflm(path, tmp_path, sets=5)
    if int8:
        assert result.exact


def test_mul_int8_asymmetric_wide_ranges(tmp_path):
    # A nonzero zero point on both inputs and a multiplier well above 1/2^8.
    path, _ = _mul(tmp_path, lambda a, b: a * b, SHAPES["same"], True, low=-2.0, high=30.0)
    graph = load(path)
    assert any(graph.tensors[i].zero_point != 0 for i in graph.ops[0].inputs)
    assert check_against_tflm(path, tmp_path, sets=5).exact


def built_mul(out_scale: float, activation: int = 0) -> bytes:
    """An int8 MUL of [1, 6, 5, 8] by a per-channel [8] vector (scales 0.05 and 0.02, zero
    points -7 and 3), output zero point 4."""
    tensors = [
        tb.Tensor("x", [1, 6, 5, 8], tb.INT8, 0, [0.05], [-7]),
        tb.Tensor("w", [8], tb.INT8, 0, [0.02], [3]),
        tb.Tensor("y", [1, 6, 5, 8], tb.INT8, 0, [out_scale], [4]),
    ]
    op = tb.Operator(0, [0, 1], [2], "MulOptions", {"FusedActivationFunction": activation})
    model = tb.Model(
        subgraphs=[tb.SubGraph(tensors=tensors, operators=[op], inputs=[0, 1], outputs=[2])],
        opcodes=[tb.OpCode(tb.OPS.MUL)],
    )
    return tb.build(model)


# out scale: the kernel. The products' scale is 0.001: out scale 0.1 makes the multiplier
# 1/100, a right shift that tinyaot_requant takes exactly (0.03, 1/30, with RELU6 clamping
# inside int8); 0.003 makes it 1/3, a right shift of 1 that it cannot take, and the reference
# kernel stays.
FAST_CASES = {
    "fast": (0.1, 0, "tinyaot_mul_fast_s8"),
    "fast_relu6": (0.03, 3, "tinyaot_mul_fast_s8"),
    "reference": (0.003, 0, "tinyaot_mul_s8"),
}


@pytest.mark.parametrize("case", FAST_CASES.values(), ids=FAST_CASES.keys())
def test_mul_int8_fast_where_exact(tmp_path, case):
    out_scale, activation, kernel = case
    path = tmp_path / "mul.tflite"
    path.write_bytes(built_mul(out_scale, activation))
    compiled = compile_graph(frontend.load(path), Options(name="m"), path.name)
    assert compiled.steps[-1].call.function == kernel
    assert check_against_tflm(path, tmp_path, sets=5).exact


def tf_relu(x):
    import tensorflow as tf

    return tf.nn.relu(x)


def tf_relu6(x):
    import tensorflow as tf

    return tf.nn.relu6(x)


def test_mul_rejects_mixed_dtypes():
    q = Quant((0.1,), (0,))
    graph = Graph(
        tensors=[
            Tensor(0, "a", DType.INT8, (1, 4), q),
            Tensor(1, "b", DType.INT32, (1, 4)),
            Tensor(2, "out", DType.INT8, (1, 4), q),
        ],
        ops=[Op(0, "MUL", [0, 1], [2])],
        inputs=[0, 1],
        outputs=[2],
    )
    with pytest.raises(CompileError, match="op 0 \\(MUL\\).*int8 and int32 differ"):
        lower_op(graph, graph.ops[0])
