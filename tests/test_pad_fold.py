"""A PAD before a convolution becomes the convolution's padding (pad_fold.py): no step, no
padded tensor in the arena, every output TFLite Micro's. Where something else could tell (the
PAD read twice, a border on channels, a window all border, a border value that is not the
zero point), the PAD stays and the outputs are still TFLite Micro's.

The fast kernels' paths with folded borders run on the Cortex-M cores in test_fast_kernels.py
(the *_folded cases).
"""

from __future__ import annotations

import numpy as np
import pytest
import tensorflow as tf
import tfmodels
from harness import check_against_tflm
from reference import model_paths
from tinyaot import frontend, pad_fold
from tinyaot.compiler import Compiled, Options, compile_graph

CORPUS = {m.stem: m for m in model_paths()}

# Real models whose PADs all fold: (model, PADs, layer-by-layer arena in bytes without folding).
FOLDING = {
    "sscma_fomo_person_int8": (3, 56460),
    "sscma_mobilenetv2_cifar10_int8": (3, 9280),
    "armpicow_ev_charger_int8": (4, 75280),
    "efinix_yolo_person_detect_int8": (5, 112920),
}


def compiled(path) -> Compiled:
    return compile_graph(frontend.load(path), Options(name="m"), path.name)


def pad_steps(c: Compiled) -> int:
    return sum(step.op.kind in pad_fold.PADS for step in c.steps)


@pytest.mark.parametrize("name", list(FOLDING))
def test_corpus_pads_fold(name, monkeypatch):
    path = CORPUS[name]
    pads, unfolded = FOLDING[name]
    c = compiled(path)
    folded = [op for op in c.graph.ops if pad_fold.FOLDED_INTO in op.options]
    assert len(folded) == pads and pad_steps(c) == 0
    for op in folded:
        conv = c.graph.ops[op.options[pad_fold.FOLDED_INTO]]  # type: ignore[index]
        assert conv.kind in pad_fold.CONVOLUTIONS and conv.inputs[0] == op.inputs[0]
    # The padded tensors were at the arena's peak.
    assert c.plan.size < 0.7 * unfolded
    monkeypatch.setattr(pad_fold, "fold_pads", lambda graph: None)
    plain = compiled(path)
    assert pad_steps(plain) == pads and plain.plan.size == unfolded


@pytest.mark.parametrize("name", ["sscma_fomo_person_int8", "sscma_mobilenetv2_cifar10_int8"])
def test_corpus_folded_matches_tflm(name, tmp_path):
    assert check_against_tflm(CORPUS[name], tmp_path, sets=3).exact


def weights(shape: tuple[int, ...], seed: int) -> tf.Tensor:
    return tf.constant(np.random.default_rng(seed).uniform(-1, 1, shape).astype(np.float32))


W1, W2 = weights((3, 3, 4, 8), 1), weights((3, 3, 4, 8), 2)


def conv(x: tf.Tensor, w: tf.Tensor = W1, stride: int = 1) -> tf.Tensor:
    return tf.nn.relu(tf.nn.conv2d(x, w, stride, "VALID"))


# name: (function of a [1, 9, 8, 4] input, whether its PAD folds). The borders are uneven
# where the PAD should stay for its reader alone: the converter folds an even one itself.
CASES = {
    "folds": (lambda x: conv(tf.pad(x, [[0, 0], [1, 2], [2, 0], [0, 0]]), stride=2), True),
    "read_twice": (
        lambda x: (lambda p: conv(p) + conv(p, W2))(tf.pad(x, [[0, 0], [1, 2], [2, 0], [0, 0]])),
        False,
    ),
    "channel_border": (
        lambda x: conv(tf.pad(x, [[0, 0], [1, 1], [1, 1], [0, 1]]), weights((3, 3, 5, 8), 3)),
        False,
    ),
    "window_all_border": (lambda x: conv(tf.pad(x, [[0, 0], [3, 0], [0, 0], [0, 0]])), False),
    "other_value": (
        lambda x: conv(tf.pad(x, [[0, 0], [1, 1], [1, 1], [0, 0]], constant_values=0.75)),
        False,
    ),
}


@pytest.mark.parametrize("name", list(CASES))
def test_fold_only_where_nothing_can_tell(name, tmp_path):
    fn, folds = CASES[name]
    path = tmp_path / f"{name}.tflite"
    path.write_bytes(tfmodels.convert(fn, [[1, 9, 8, 4]], int8=True, seed=len(name), low=-0.5))
    c = compiled(path)
    assert any(op.kind in pad_fold.PADS for op in c.graph.ops), "the converter kept no PAD"
    assert pad_steps(c) == (0 if folds else 1)
    assert check_against_tflm(path, tmp_path, sets=3).exact
