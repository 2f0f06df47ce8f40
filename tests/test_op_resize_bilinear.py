"""RESIZE_BILINEAR against TFLite Micro: int8 and float32, each flag, up and down.

One model per dtype holds every case as its own input and output, so one compile and one
build cover them all.
"""

from __future__ import annotations

import functools

import numpy as np
import pytest
import tensorflow as tf
import tfmodels
from harness import check_against_tflm
from opcheck import check_inputs, load, write_model
from tinyaot.compiler import lower_op
from tinyaot.errors import CompileError

# (input shape, output size, align_corners, half_pixel_centers)
CASES = [
    ((1, 4, 5, 3), (8, 10), False, False),  # upscale by 2: weights on exact halves
    ((1, 3, 5, 2), (7, 11), True, False),  # odd factors, corners aligned
    ((1, 5, 4, 3), (9, 7), False, True),  # half-pixel centers reach past the edges
    ((2, 9, 7, 3), (4, 3), False, True),  # downscale, two batches
    ((1, 8, 8, 2), (3, 5), True, False),  # downscale, corners aligned
    ((1, 7, 6, 1), (5, 13), False, False),  # down in height, up in width
    ((1, 1, 4, 2), (1, 9), True, False),  # one output row with align_corners
]


def resize_all(*xs):
    return [
        tf.compat.v1.image.resize_bilinear(x, size, align_corners=align, half_pixel_centers=half)
        for x, (_, size, align, half) in zip(xs, CASES, strict=True)
    ]


@pytest.fixture(scope="module")
def models(tmp_path_factory):
    """The converted model of each variant, converted on first use."""
    convert = functools.cache(
        lambda int8: tfmodels.convert(resize_all, [c[0] for c in CASES], int8=int8)
    )
    return lambda int8: write_model(convert(int8), tmp_path_factory.mktemp("resize_bilinear"))


@pytest.mark.parametrize("int8", [True, False], ids=["int8", "float32"])
def test_resize_bilinear_matches_tflm(models, int8, tmp_path):
    path = models(int8)
    graph = load(path)
    assert [op.kind for op in graph.ops] == ["RESIZE_BILINEAR"] * len(CASES)
    flags = {
        (bool(op.options["AlignCorners"]), bool(op.options["HalfPixelCenters"])) for op in graph.ops
    }
    assert flags == {(False, False), (True, False), (False, True)}
    assert {graph.tensors[op.outputs[0]].dtype.short for op in graph.ops} == {
        "int8" if int8 else "float32"
    }
    result = check_against_tflm(path, tmp_path, sets=4)
    assert result.exact or not int8


def test_resize_bilinear_int8_extremes(models, tmp_path):
    # Saturated inputs and alternating signs: the int64 sums at their largest, and negative
    # sums whose rounding goes away from zero.
    path = models(True)
    sets = []
    for fill in (-128, 127):
        sets.append([np.full(c[0], fill, np.int8) for c in CASES])
    sets.append([np.resize(np.array([-128, 127, -1, 0, 1], np.int8), c[0]) for c in CASES])
    assert check_inputs(path, tmp_path, sets).exact


def test_resize_bilinear_rejects_both_flags(models):
    graph = load(models(False))
    op = graph.ops[0]
    op.options["AlignCorners"] = op.options["HalfPixelCenters"] = True
    with pytest.raises(CompileError, match="RESIZE_BILINEAR.*align_corners with half_pixel"):
        lower_op(graph, op)
