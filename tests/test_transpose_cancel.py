"""TRANSPOSEs that undo each other around layout-free ops are cancelled (transpose_cancel.py):
no step for them, the ops between them in the convolutions' layout, and every output TFLite
Micro's. Where the region between them has an op that does see the layout (a RESHAPE) or a
tensor the application sees, they stay and the outputs are still TFLite Micro's.
"""

from __future__ import annotations

import numpy as np
import pytest
import tensorflow as tf
import tfmodels
from harness import check_against_tflm
from reference import model_paths
from tinyaot import frontend, planner, transpose_cancel
from tinyaot.compiler import Compiled, Options, compile_graph

CORPUS = {m.stem: m for m in model_paths()}


def compiled(path) -> Compiled:
    return compile_graph(frontend.load(path), Options(name="m"), path.name)


def transpose_steps(c: Compiled) -> int:
    return sum(step.op.kind == "TRANSPOSE" for step in c.steps)


def cancelled(c: Compiled) -> int:
    return sum(transpose_cancel.CANCELLED in op.options for op in c.graph.ops)


def test_corpus_channels_first_model():
    """An ONNX export: 95 TRANSPOSEs, of which only the input's to channels-last stays (its
    channels-first PAD reads the graph input); the PADs between convolutions then fold."""
    path = CORPUS["tflm_retinaface_int8"]
    c = compiled(path)
    assert sum(op.kind == "TRANSPOSE" for op in c.graph.ops) == 95
    assert cancelled(c) == 94 and transpose_steps(c) == 1
    assert sum(step.op.kind == "PAD" for step in c.steps) == 7


def test_corpus_channels_first_model_matches_tflm(tmp_path):
    assert check_against_tflm(CORPUS["tflm_retinaface_int8"], tmp_path, sets=2).exact


# retinaface's smallest arena with its TRANSPOSEs as steps: a patch stage between them.
RETINAFACE_PATCHED = 642624


def test_corpus_channels_first_smallest_arena(tmp_path):
    """Without the TRANSPOSEs' tensors the layer-by-layer plan, its float input read in place,
    is below the patch plan it needed before, and gives TFLite Micro's bytes."""
    path = CORPUS["tflm_retinaface_int8"]
    c = compile_graph(frontend.load(path), Options(name="m", smallest_arena=True), path.name)
    assert c.patch is None and c.plan.size < 0.75 * RETINAFACE_PATCHED
    assert planner.check(c.plan) == []
    assert check_against_tflm(path, tmp_path, sets=2, options=("--smallest-arena",)).exact


def weights(shape: tuple[int, ...], seed: int) -> tf.Tensor:
    return tf.constant(np.random.default_rng(seed).uniform(-1, 1, shape).astype(np.float32))


W1, W2, W3 = weights((3, 3, 4, 8), 1), weights((3, 3, 8, 4), 2), weights((1, 1, 16, 4), 3)
FIRST, LAST = [0, 3, 1, 2], [0, 2, 3, 1]


def conv(x: tf.Tensor, w: tf.Tensor) -> tf.Tensor:
    return tf.nn.conv2d(x, w, 1, "VALID")


def chain(x: tf.Tensor) -> tf.Tensor:
    y = tf.nn.leaky_relu(tf.transpose(conv(x, W1), FIRST), 0.1)
    y = tf.pad(y, [[0, 0], [0, 0], [1, 2], [2, 0]])
    return conv(tf.transpose(y, LAST), W2)


def branches(x: tf.Tensor) -> tf.Tensor:
    # Two TRANSPOSEs enter, an ADD and a CONCATENATION on channels-first axis 1, two leave.
    a = tf.transpose(conv(x, W1), FIRST)
    b = tf.transpose(conv(x, weights((3, 3, 4, 8), 4)), FIRST)
    c = tf.nn.relu(tf.concat([tf.nn.leaky_relu(a, 0.2) + b, b], axis=1))
    return conv(tf.transpose(c, LAST), W3) + conv(tf.transpose(tf.nn.relu6(c), LAST), W3 * 0.5)


def reshaped(x: tf.Tensor) -> tf.Tensor:
    return tf.reshape(tf.nn.relu(tf.transpose(conv(x, W1), FIRST)), [1, -1])


def seen(x: tf.Tensor) -> tuple[tf.Tensor, tf.Tensor]:
    y = tf.nn.leaky_relu(tf.transpose(conv(x, W1), FIRST), 0.1)
    y = tf.pad(y, [[0, 0], [0, 0], [1, 2], [2, 0]])
    return y, conv(tf.transpose(y, LAST), W2)


# name: (function of a [1, 9, 8, 4] input, TRANSPOSEs in the model, TRANSPOSE steps left).
CASES = {
    "chain": (chain, 2, 0),
    "branches": (branches, 4, 0),
    "reshaped": (reshaped, 1, 1),
    "seen": (seen, 2, 2),
}


@pytest.mark.parametrize("name", list(CASES))
def test_cancel_only_where_nothing_can_tell(name, tmp_path):
    fn, transposes, left = CASES[name]
    path = tmp_path / f"{name}.tflite"
    path.write_bytes(tfmodels.convert(fn, [[1, 9, 8, 4]], int8=True, seed=len(name), low=-0.5))
    c = compiled(path)
    assert sum(op.kind == "TRANSPOSE" for op in c.graph.ops) == transposes
    assert transpose_steps(c) == left and cancelled(c) == transposes - left
    assert check_against_tflm(path, tmp_path, sets=3).exact
