"""L2_POOL_2D, float32 (TFLite Micro has no other): windows clipped by SAME padding, strides,
non-square windows and a fused activation, hand-built (the converter never emits the op).
One model holds one L2_POOL_2D per case, so one build covers them."""

from __future__ import annotations

import numpy as np
import pytest
import tflite_builder as tb
from harness import check_against_tflm
from opcheck import check_inputs, load, op_kinds, write_model
from tinyaot.compiler import lower_op
from tinyaot.errors import CompileError

SHAPE = [2, 7, 9, 3]

# (filter h, w, stride h, w, padding, output h, w, activation)
CASES = [
    (2, 2, 2, 2, tb.PADDING.VALID, 3, 4, tb.ACT.NONE),
    (3, 3, 2, 2, tb.PADDING.SAME, 4, 5, tb.ACT.NONE),
    # Every output's window clipped on some side, overlapping its neighbours.
    (3, 3, 1, 1, tb.PADDING.SAME, 7, 9, tb.ACT.NONE),
    (2, 3, 1, 2, tb.PADDING.SAME, 7, 5, tb.ACT.NONE),
    (3, 3, 2, 2, tb.PADDING.SAME, 4, 5, tb.ACT.RELU_N1_TO_1),
]


def _model(dtype: int = tb.FLOAT32) -> bytes:
    quant = ([0.1], [0]) if dtype == tb.INT8 else (None, None)
    n, _, _, c = SHAPE
    tensors = [tb.Tensor("input", SHAPE, dtype, 0, *quant)]
    ops = []
    for i, (fh, fw, sh, sw, padding, oh, ow, act) in enumerate(CASES):
        tensors.append(tb.Tensor(f"out{i}", [n, oh, ow, c], dtype, 0, *quant))
        options = {
            "Padding": padding,
            "StrideW": sw,
            "StrideH": sh,
            "FilterWidth": fw,
            "FilterHeight": fh,
            "FusedActivationFunction": act,
        }
        ops.append(tb.Operator(0, [0], [i + 1], "Pool2DOptions", options))
    return tb.build(
        tb.Model(
            subgraphs=[
                tb.SubGraph(
                    tensors=tensors,
                    operators=ops,
                    inputs=[0],
                    outputs=list(range(1, len(CASES) + 1)),
                )
            ],
            opcodes=[tb.OpCode(tb.OPS.L2_POOL_2D)],
        )
    )


def test_l2_pool(tmp_path):
    """Random inputs, then known roots, tiny inputs whose squares are subnormal and large
    ones whose squares are near float's top; RELU_N1_TO_1 clamps the large roots to 1."""
    path = write_model(_model(), tmp_path)
    assert op_kinds(path) == ["L2_POOL_2D"] * len(CASES)
    check_against_tflm(path, tmp_path, sets=2)
    x = np.zeros(SHAPE, np.float32)
    x[..., 0] = 3.0
    x[:, ::2, :, 0] = 4.0
    x[..., 1] = 1e-20
    x[..., 2] = 1e18
    got = check_inputs(path, tmp_path, [[x]]).outputs[0]
    np.testing.assert_allclose(got[0][..., 0], np.sqrt(12.5), rtol=1e-6)
    # 1e-40 is subnormal: the square keeps only a few digits, in TFLM too.
    np.testing.assert_allclose(got[0][..., 1], 1e-20, rtol=1e-5)
    np.testing.assert_allclose(got[0][..., 2], 1e18, rtol=1e-6)
    assert got[4][..., 0].max() == 1.0 and got[4][..., 2].min() == 1.0


def test_l2_pool_rejects_int8(tmp_path):
    graph = load(write_model(_model(tb.INT8), tmp_path))
    with pytest.raises(CompileError, match="L2_POOL_2D.*float32"):
        lower_op(graph, graph.ops[0])
