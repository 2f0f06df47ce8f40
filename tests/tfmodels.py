"""Tiny TensorFlow models built by the tests, for ops no shared model exercises.

Each builder returns .tflite bytes: float32 as converted, or fully int8
(int8 inputs and outputs) through post-training quantisation with a fixed
representative set, so the files are the same on every run.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence

import numpy as np

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")


def convert(
    fn: Callable[..., object],
    input_shapes: Sequence[Sequence[int]],
    int8: bool,
    seed: int = 0,
    low: float = -1.0,
    high: float = 1.0,
    float_input: bool = False,
    float_output: bool = False,
    flags: Mapping[str, bool] | None = None,
    io: str = "int8",
    int16x8: bool = False,
) -> bytes:
    """Convert a function of float32 tensors to a .tflite flatbuffer.

    With int8, float_input / float_output keep that side of the model float32, so
    the int8 body starts with a QUANTIZE / ends with a DEQUANTIZE. flags are converter
    attributes to set (e.g. _experimental_disable_per_channel for per-tensor conv weights).
    io="uint8" makes the quantised inputs and outputs uint8, as some model zoos publish them
    (the body stays int8, behind a QUANTIZE at either end).
    int16x8 (with int8) quantises activations to int16 (zero point 0) and weights to int8,
    with int16 inputs and outputs unless float_input / float_output.
    """
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
        ops = tf.lite.OpsSet.TFLITE_BUILTINS_INT8
        if int16x8:
            ops = tf.lite.OpsSet.EXPERIMENTAL_TFLITE_BUILTINS_ACTIVATIONS_INT16_WEIGHTS_INT8
        converter.target_spec.supported_ops = [ops]
        io_type = tf.int16 if int16x8 else getattr(tf, io)
        converter.inference_input_type = tf.float32 if float_input else io_type
        converter.inference_output_type = tf.float32 if float_output else io_type
    for flag, value in (flags or {}).items():
        assert hasattr(converter, flag), f"the converter has no {flag}"
        setattr(converter, flag, value)
    return converter.convert()


def keras(
    layers: Callable[[object], object],
    input_shape: Sequence[int],
    int8: bool,
    seed: int = 0,
    flags: Mapping[str, bool] | None = None,
    io: str = "int8",
    int16x8: bool = False,
) -> bytes:
    """A Keras functional model (batch 1) through the same conversion."""
    import tensorflow as tf

    tf.keras.utils.set_random_seed(seed)
    inp = tf.keras.Input(shape=tuple(input_shape[1:]), batch_size=input_shape[0])
    model = tf.keras.Model(inp, layers(inp))
    return convert(
        lambda x: model(x), [input_shape], int8, seed, flags=flags, io=io, int16x8=int16x8
    )


def retype_input(model: bytes, scale: float, zero_point: int, index: int = 0) -> bytes:
    """Make float32 graph input `index` an int8 tensor of the given quantisation.

    On a model from convert(..., int8=True, float_input=True) this turns the leading
    float32 -> int8 QUANTIZE into an int8 -> int8 requantisation between scales and
    zero points the test chooses.
    """
    from tensorflow.lite.python import schema_py_generated as schema
    from tensorflow.lite.tools import flatbuffer_utils

    obj = flatbuffer_utils.convert_bytearray_to_object(bytearray(model))
    graph = obj.subgraphs[0]
    tensor = graph.tensors[graph.inputs[index]]
    assert tensor.type == schema.TensorType.FLOAT32, "the input is not float32"
    tensor.type = schema.TensorType.INT8
    q = schema.QuantizationParametersT()
    q.scale = [float(scale)]
    q.zeroPoint = [int(zero_point)]
    tensor.quantization = q
    return bytes(flatbuffer_utils.convert_object_to_bytearray(obj))


def retype_tensor(
    model: bytes, tensor: int, type_name: str, quant: tuple[float, int] | None = None
) -> bytes:
    """The model with tensor `tensor` of subgraph 0 declared as TensorType `type_name`, and
    given the (scale, zero point) `quant` if one is given."""
    from tensorflow.lite.python import schema_py_generated as schema
    from tensorflow.lite.tools import flatbuffer_utils

    obj = flatbuffer_utils.convert_bytearray_to_object(bytearray(model))
    t = obj.subgraphs[0].tensors[tensor]
    t.type = getattr(schema.TensorType, type_name)
    if quant is not None:
        t.quantization = schema.QuantizationParametersT()
        t.quantization.scale = [float(quant[0])]
        t.quantization.zeroPoint = [int(quant[1])]
    return bytes(flatbuffer_utils.convert_object_to_bytearray(obj))


def conv(
    filters: int, k: tuple[int, int], s: int, padding: str, act: str | None = None, d: object = 1
) -> Callable:
    """A Keras Conv2D layer as a function of its input, for keras()."""
    import tensorflow as tf

    return lambda x: tf.keras.layers.Conv2D(
        filters, k, strides=s, padding=padding, activation=act, dilation_rate=d
    )(x)


def dwconv(
    k: tuple[int, int],
    s: int,
    padding: str,
    mult: int = 1,
    act: str | None = None,
    d: object = 1,
) -> Callable:
    """A Keras DepthwiseConv2D layer as a function of its input, for keras()."""
    import tensorflow as tf

    return lambda x: tf.keras.layers.DepthwiseConv2D(
        k, strides=s, padding=padding, depth_multiplier=mult, activation=act, dilation_rate=d
    )(x)
