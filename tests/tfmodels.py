"""Tiny TensorFlow models built by the tests, for ops no shared model exercises.

Each builder returns .tflite bytes: float32 as converted, or fully int8
(int8 inputs and outputs) through post-training quantisation with a fixed
representative set, so the files are the same on every run.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence

import numpy as np

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")


def convert(
    fn: Callable[..., object],
    input_shapes: Sequence[Sequence[int]],
    int8: bool,
    seed: int = 0,
    low: float = -1.0,
    high: float = 1.0,
) -> bytes:
    """Convert a function of float32 tensors to a .tflite flatbuffer."""
    import tensorflow as tf

    specs = [tf.TensorSpec(shape=s, dtype=tf.float32) for s in input_shapes]
    concrete = tf.function(fn, input_signature=specs).get_concrete_function()
    converter = tf.lite.TFLiteConverter.from_concrete_functions([concrete])
    if int8:
        rng = np.random.default_rng(seed)

        def representative() -> object:
            for _ in range(64):
                yield [rng.uniform(low, high, size=s).astype(np.float32) for s in input_shapes]

        converter.optimizations = [tf.lite.Optimize.DEFAULT]
        converter.representative_dataset = representative
        converter.target_spec.supported_ops = [tf.lite.OpsSet.TFLITE_BUILTINS_INT8]
        converter.inference_input_type = tf.int8
        converter.inference_output_type = tf.int8
    return converter.convert()


def keras(
    layers: Callable[[object], object], input_shape: Sequence[int], int8: bool, seed: int = 0
) -> bytes:
    """A Keras functional model (batch 1) through the same conversion."""
    import tensorflow as tf

    tf.keras.utils.set_random_seed(seed)
    inp = tf.keras.Input(shape=tuple(input_shape[1:]), batch_size=input_shape[0])
    model = tf.keras.Model(inp, layers(inp))
    return convert(lambda x: model(x), [input_shape], int8, seed)
