"""L2_POOL_2D, float32 (TFLite Micro has no other): windows clipped by SAME padding, strides,
non-square windows and fused activations, hand-built (the converter never emits the op)."""

from __future__ import annotations

import numpy as np
import pytest
import tflite_builder as tb
from harness import check_against_tflm
from opcheck import check_inputs, load, op_kinds, write_model
from tinyaot.compiler import lower_op
from tinyaot.errors import CompileError

SHAPE = [2, 7, 9, 3]

# name: (filter h, w, stride h, w, padding, output h, w)
WINDOWS = {
    "2x2_s2_valid": (2, 2, 2, 2, tb.PADDING.VALID, 3, 4),
    "3x3_s2_same": (3, 3, 2, 2, tb.PADDING.SAME, 4, 5),
    "3x3_s1_same": (3, 3, 1, 1, tb.PADDING.SAME, 7, 9),
    "2x3_s1x2_same": (2, 3, 1, 2, tb.PADDING.SAME, 7, 5),
}


def _model(window: tuple, activation: int = tb.ACT.NONE, dtype: int = tb.FLOAT32) -> bytes:
    fh, fw, sh, sw, padding, oh, ow = window
    quant = ([0.1], [0]) if dtype == tb.INT8 else (None, None)
    options = {
        "Padding": padding,
        "StrideW": sw,
        "StrideH": sh,
        "FilterWidth": fw,
        "FilterHeight": fh,
        "FusedActivationFunction": activation,
    }
    n, _, _, c = SHAPE
    return tb.build(
        tb.Model(
            subgraphs=[
                tb.SubGraph(
                    tensors=[
                        tb.Tensor("input", SHAPE, dtype, 0, *quant),
                        tb.Tensor("output", [n, oh, ow, c], dtype, 0, *quant),
                    ],
                    operators=[tb.Operator(0, [0], [1], "Pool2DOptions", options)],
                    inputs=[0],
                    outputs=[1],
                )
            ],
            opcodes=[tb.OpCode(tb.OPS.L2_POOL_2D)],
        )
    )


# 3x3_s2_same runs in test_l2_pool_values_and_activation.
PARAMETRIZED = [k for k in WINDOWS if k != "3x3_s2_same"]


@pytest.mark.parametrize("window", [WINDOWS[k] for k in PARAMETRIZED], ids=PARAMETRIZED)
def test_l2_pool(tmp_path, window):
    path = write_model(_model(window), tmp_path)
    assert op_kinds(path) == ["L2_POOL_2D"]
    check_against_tflm(path, tmp_path, sets=2)


def test_l2_pool_values_and_activation(tmp_path):
    """Known roots, tiny inputs whose squares are subnormal, large ones whose squares are near
    float's top, and RELU_N1_TO_1 clamping the large roots to 1."""
    x = np.zeros(SHAPE, np.float32)
    x[..., 0] = 3.0
    x[:, ::2, :, 0] = 4.0
    x[..., 1] = 1e-20
    x[..., 2] = 1e18
    (tmp_path / "none").mkdir()
    (tmp_path / "relu").mkdir()
    none = write_model(_model(WINDOWS["2x2_s2_valid"]), tmp_path / "none")
    got = check_inputs(none, tmp_path / "none", [[x]]).outputs[0][0]
    np.testing.assert_allclose(got[..., 0], np.sqrt(12.5), rtol=1e-6)
    # 1e-40 is subnormal: the square keeps only a few digits, in TFLM too.
    np.testing.assert_allclose(got[..., 1], 1e-20, rtol=1e-5)
    np.testing.assert_allclose(got[..., 2], 1e18, rtol=1e-6)
    relu = write_model(_model(WINDOWS["3x3_s2_same"], tb.ACT.RELU_N1_TO_1), tmp_path / "relu")
    got = check_inputs(relu, tmp_path / "relu", [[x]]).outputs[0][0]
    assert got[..., 0].max() == 1.0 and got[..., 2].min() == 1.0


def test_l2_pool_rejects_int8(tmp_path):
    graph = load(write_model(_model(WINDOWS["2x2_s2_valid"], dtype=tb.INT8), tmp_path))
    with pytest.raises(CompileError, match="L2_POOL_2D.*float32"):
        lower_op(graph, graph.ops[0])
