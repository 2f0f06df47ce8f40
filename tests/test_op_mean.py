"""MEAN against TFLite Micro: int8 (requantised to the output scale) and float32."""

from __future__ import annotations

import numpy as np
import pytest
import tensorflow as tf
import tfmodels
from harness import check_against_tflm
from opcheck import check_inputs
from tinyaot import frontend, quant
from tinyaot.compiler import Options, compile_graph
from tinyaot.errors import CompileError
from tinyaot.ir import DType
from tinyaot.ops.mean import mean_multiplier

# name: (input shape, axes, keep_dims)
CASES = {
    "hw_keepdims": ((1, 5, 7, 8), [1, 2], True),
    "hw": ((1, 5, 7, 8), [1, 2], False),
    "hw_batch2": ((2, 6, 6, 3), [2, 1], False),
    "hw_large": ((1, 48, 40, 4), [1, 2], True),
    "last_axis": ((2, 6, 10), -1, False),
    "last_axis_keepdims": ((3, 12), [1], True),
    "height_only": ((2, 5, 7, 4), [1], False),
    "outer_and_inner_3d": ((2, 4, 6), [0, 2], True),
    "channels_and_width": ((1, 3, 5, 6), [-1, 2], False),
    "all_axes_to_scalar": ((2, 3, 4), [0, 1, 2], False),
    "5d_two_runs": ((2, 3, 4, 5, 6), [2, 3, 4], True),
}


def build(tmp_path, name, int8):
    shape, axes, keep = CASES[name]
    data = tfmodels.convert(
        lambda x: tf.reduce_mean(x, axis=axes, keepdims=keep), [shape], int8=int8, low=-0.4
    )
    path = tmp_path / f"{name}.tflite"
    path.write_bytes(data)
    graph = frontend.load(path)
    assert [op.kind for op in graph.ops] == ["MEAN"]
    assert bool(graph.ops[0].options["KeepDims"]) == keep
    return path, graph


@pytest.mark.parametrize("int8", [False, True], ids=["float32", "int8"])
@pytest.mark.parametrize("name", list(CASES))
def test_mean_matches_tflm(name, int8, tmp_path):
    path, graph = build(tmp_path, name, int8)
    inp, out = graph.tensors[graph.inputs[0]], graph.tensors[graph.outputs[0]]
    if int8:
        # The converter gives the mean its own range, so the kernel has to rescale.
        assert quant.f32(inp.scale) != quant.f32(out.scale)
    result = check_against_tflm(path, tmp_path, sets=5)
    # Floats too: TFLM adds in input order and divides, and so does the kernel.
    assert result.exact


def test_mean_multiplier_folds_in_the_count():
    # Scale ratio 1 is 2^30 * 2^(1-31); 35 elements take 5 more bits of shift.
    assert mean_multiplier(0.5, 0.5, 35) == ((1 << 30 << 5) // 35, 1 - 5)
    # The extra shift is capped at 31 + shift, so the final shift stays >= -31.
    m, s = quant.quantize_multiplier(2.0**-30)
    assert s == -29
    assert mean_multiplier(2.0**-30, 1.0, 1 << 10) == ((m << 2) // (1 << 10), -31)
    assert mean_multiplier(1.0, 1.0, 1) == (1 << 30, 1)


def test_output_shape_must_match_the_axes(tmp_path):
    _, graph = build(tmp_path, "hw", False)
    graph.tensors[graph.outputs[0]].shape = (1, 1, 1, 8)
    with pytest.raises(CompileError, match="should be"):
        compile_graph(graph, Options("m"), "m.tflite")


def test_axis_out_of_range_is_rejected(tmp_path):
    _, graph = build(tmp_path, "last_axis", True)
    axis = graph.tensors[graph.ops[0].inputs[1]]
    axis.data = axis.data + 5
    with pytest.raises(CompileError, match="outside rank"):
        compile_graph(graph, Options("m"), "m.tflite")


def test_int8_needs_quantisation(tmp_path):
    _, graph = build(tmp_path, "last_axis", True)
    out = graph.tensors[graph.outputs[0]]
    out.quant = None
    with pytest.raises(CompileError, match="no quantisation"):
        compile_graph(graph, Options("m"), "m.tflite")


def test_more_than_four_runs_are_rejected(tmp_path):
    data = tfmodels.convert(lambda x: tf.reduce_mean(x, axis=[1, 3]), [(2, 3, 4, 5, 6)], int8=False)
    path = tmp_path / "m.tflite"
    path.write_bytes(data)
    with pytest.raises(CompileError, match="5 runs of kept and reduced dims; at most 4"):
        compile_graph(frontend.load(path), Options("m"), "m.tflite")


# (axes, keep_dims) of the int16 means, all of one input of 65536 elements.
INT16_SHAPE = (4, 16, 32, 32)
INT16_CASES = [
    ([1, 2], True),
    ([-1], False),
    ([0, 2], True),
    ([0, 1, 2, 3], False),
    ([3, 1], False),
]


def test_mean_int16(tmp_path):
    """int16x8: one model, a MEAN per case, every int16 value and random ones."""
    data = tfmodels.convert(
        lambda x: tuple(tf.reduce_mean(x, axis=a, keepdims=k) for a, k in INT16_CASES),
        [INT16_SHAPE],
        int8=True,
        int16x8=True,
        low=-0.4,
    )
    path = tmp_path / "mean16.tflite"
    path.write_bytes(data)
    graph = frontend.load(path)
    assert [op.kind for op in graph.ops] == ["MEAN"] * len(INT16_CASES)
    assert graph.tensors[graph.inputs[0]].dtype == DType.INT16
    rng = np.random.default_rng(16)
    every = np.arange(-32768, 32768, dtype=np.int16).reshape(INT16_SHAPE)
    sets = [[every], [rng.permutation(every.reshape(-1)).reshape(INT16_SHAPE)]]
    sets.append([rng.integers(-32768, 32768, INT16_SHAPE, dtype=np.int16)])
    assert check_inputs(path, tmp_path, sets).exact
