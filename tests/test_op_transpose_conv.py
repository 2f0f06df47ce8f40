"""TRANSPOSE_CONV against TFLite Micro: int8 (per-channel and per-tensor weights), int16x8 and
float32.

One model per variant holds every case as its own input and output, so one compile and
one build cover them all.
"""

from __future__ import annotations

import functools

import numpy as np
import pytest
import tensorflow as tf
import tfmodels
from harness import check_against_tflm
from opcheck import load, write_model
from tinyaot.compiler import lower_op
from tinyaot.errors import CompileError

# (input shape, kernel (h, w), output channels, strides, padding, bias, activation)
CASES = [
    ((1, 4, 4, 3), (3, 3), 5, (2, 2), "SAME", True, "relu"),
    ((1, 5, 3, 2), (3, 3), 4, (2, 2), "VALID", False, None),
    ((2, 3, 4, 4), (2, 3), 3, (1, 1), "SAME", True, None),
    ((1, 3, 3, 2), (4, 4), 2, (2, 2), "SAME", True, "relu6"),  # even kernel
    ((1, 2, 5, 3), (3, 2), 6, (3, 1), "VALID", True, None),  # uneven strides
]


def out_size(size, k, stride, padding):
    return size * stride if padding == "SAME" else (size - 1) * stride + k


def case_fn(i, x):
    shape, (kh, kw), oc, (sh, sw), padding, bias, act = CASES[i]
    rng = np.random.default_rng(i)
    filters = rng.uniform(-1, 1, (kh, kw, oc, shape[3])).astype(np.float32)
    # Channels of very different magnitudes, so per-channel scales differ.
    filters *= np.geomspace(0.05, 1.0, oc, dtype=np.float32)[None, None, :, None]
    out_shape = [
        shape[0],
        out_size(shape[1], kh, sh, padding),
        out_size(shape[2], kw, sw, padding),
        oc,
    ]
    y = tf.nn.conv2d_transpose(x, filters, out_shape, (sh, sw), padding)
    if bias:
        y = y + rng.uniform(-0.5, 0.5, oc).astype(np.float32)
    return {"relu": tf.nn.relu, "relu6": tf.nn.relu6, None: lambda v: v}[act](y)


def all_cases(*xs):
    return [case_fn(i, x) for i, x in enumerate(xs)]


VARIANTS = {
    "int8": dict(int8=True),
    "int8_per_tensor": dict(int8=True, flags={"_experimental_disable_per_channel": True}),
    "float32": dict(int8=False),
    "int16x8": dict(int8=True, int16x8=True),
}


@pytest.fixture(scope="module")
def models(tmp_path_factory):
    """The converted model of each variant, converted on first use."""
    convert = functools.cache(
        lambda variant: tfmodels.convert(all_cases, [c[0] for c in CASES], **VARIANTS[variant])
    )
    return lambda variant: write_model(convert(variant), tmp_path_factory.mktemp("transpose_conv"))


@pytest.mark.parametrize("variant", list(VARIANTS))
def test_transpose_conv_matches_tflm(models, variant, tmp_path):
    path = models(variant)
    graph = load(path)
    assert [op.kind for op in graph.ops] == ["TRANSPOSE_CONV"] * len(CASES)
    assert [len(op.inputs) == 4 and op.inputs[3] is not None for op in graph.ops] == [
        c[5] for c in CASES
    ]
    assert sorted(op.options["FusedActivationFunction"] for op in graph.ops) == [0, 0, 0, 1, 3]
    filt = graph.tensors[graph.ops[0].inputs[1]]
    if variant != "float32":
        assert filt.quant is not None
        assert filt.quant.per_channel == (variant != "int8_per_tensor")
    if variant == "int16x8":
        data = {graph.tensors[op.inputs[2]].dtype.short for op in graph.ops}
        biased = [op for op in graph.ops if len(op.inputs) == 4 and op.inputs[3] is not None]
        biases = {graph.tensors[op.inputs[3]].dtype.short for op in biased}
        assert (data, biases, filt.dtype.short) == ({"int16"}, {"int64"}, "int8")
    result = check_against_tflm(path, tmp_path, sets=3)
    # Floats too: each output adds its terms in the interpreter's order.
    assert result.exact


def test_transpose_conv_rejects_weights_with_a_zero_point(models):
    graph = load(models("int8"))
    op = graph.ops[0]
    filt = graph.tensors[op.inputs[1]]
    assert filt.quant is not None
    filt.quant = type(filt.quant)(filt.quant.scales, (3,) * len(filt.quant.scales), 0)
    with pytest.raises(CompileError, match="TRANSPOSE_CONV.*symmetric"):
        lower_op(graph, op)
