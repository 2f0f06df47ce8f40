"""RESIZE_NEAREST_NEIGHBOR against TFLite Micro: int8 and float32, every flag, up and down.

One model per dtype holds every case as its own input and output, so one compile and one
build cover them all.
"""

from __future__ import annotations

import pytest
import tensorflow as tf
import tfmodels
from harness import check_against_tflm
from opcheck import load, write_model
from tinyaot.compiler import lower_op
from tinyaot.errors import CompileError

# (input shape, output size, align_corners, half_pixel_centers)
CASES = [
    ((1, 4, 5, 3), (8, 10), False, False),  # upscale by 2
    ((1, 3, 5, 2), (7, 11), True, False),  # odd factors, corners aligned
    ((1, 5, 4, 3), (9, 7), False, True),  # half-pixel centers
    ((2, 9, 7, 3), (4, 3), False, True),  # downscale, two batches
    ((1, 8, 8, 2), (3, 5), True, False),  # downscale, corners aligned
    ((1, 7, 6, 1), (5, 13), False, False),  # down in height, up in width
    ((1, 1, 4, 2), (1, 9), True, False),  # a one-row output with align_corners
]


def resize_all(*xs):
    return [
        tf.compat.v1.image.resize_nearest_neighbor(
            x, size, align_corners=align, half_pixel_centers=half
        )
        for x, (_, size, align, half) in zip(xs, CASES, strict=True)
    ]


@pytest.fixture(scope="module", params=[True, False], ids=["int8", "float32"])
def model(request, tmp_path_factory):
    int8 = request.param
    tmp = tmp_path_factory.mktemp("resize_nn")
    path = write_model(tfmodels.convert(resize_all, [c[0] for c in CASES], int8=int8), tmp)
    return path, int8


def test_resize_nearest_neighbor_matches_tflm(model, tmp_path):
    path, int8 = model
    graph = load(path)
    assert [op.kind for op in graph.ops] == ["RESIZE_NEAREST_NEIGHBOR"] * len(CASES)
    flags = {
        (bool(op.options["AlignCorners"]), bool(op.options["HalfPixelCenters"])) for op in graph.ops
    }
    assert flags == {(False, False), (True, False), (False, True)}
    assert {graph.tensors[op.outputs[0]].dtype.short for op in graph.ops} == {
        "int8" if int8 else "float32"
    }
    # Copies only: floats too are bit for bit.
    assert check_against_tflm(path, tmp_path, sets=3).exact


def test_resize_nearest_neighbor_rejects_a_variable_size(model):
    path, _ = model
    graph = load(path)
    op = graph.ops[0]
    graph.tensors[op.inputs[1]].data = None
    with pytest.raises(CompileError, match="RESIZE_NEAREST_NEIGHBOR.*size must be a constant"):
        lower_op(graph, op)
