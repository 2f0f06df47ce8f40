#!/usr/bin/env python3
"""Writes model/leaky_mlp.tflite, the sample's model: a small float32 MLP (8 -> 16 -> 4)
whose LEAKY_RELU is replaced by the custom op "AppLeakyRelu", the kernel src/main.c defines.
The op's custom options are its alpha, 4 bytes of little-endian float32.

Run once (TensorFlow's converter is not reproducible across versions, so the committed
model is the source): python3 samples/custom_op/gen_model.py

`original()` turns the committed model back into the builtin LEAKY_RELU it came from:
tests/zephyr/gen_expected.py runs TFLite Micro on that for src/expected.h.
"""

from __future__ import annotations

import os
import struct
import sys
from pathlib import Path
from types import ModuleType

import numpy as np

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

HERE = Path(__file__).resolve().parent
MODEL = HERE / "model" / "leaky_mlp.tflite"
CODE = "AppLeakyRelu"
ALPHA = 0.125
SIZES = (8, 16, 4)


def _schema():
    from tensorflow.lite.python import schema_py_generated as schema
    from tensorflow.lite.tools import flatbuffer_utils

    return schema, flatbuffer_utils


def _builtin_names(schema: ModuleType) -> dict[int, str]:
    return {v: k for k, v in vars(schema.BuiltinOperator).items() if not k.startswith("_")}


def convert() -> bytes:
    """The float32 MLP with a builtin LEAKY_RELU, weights from a fixed seed."""
    import tensorflow as tf

    rng = np.random.default_rng(7)
    w1 = rng.normal(0.0, 0.5, size=SIZES[:2]).astype(np.float32)
    b1 = rng.normal(0.0, 0.1, size=SIZES[1]).astype(np.float32)
    w2 = rng.normal(0.0, 0.5, size=SIZES[1:]).astype(np.float32)
    b2 = rng.normal(0.0, 0.1, size=SIZES[2]).astype(np.float32)

    def mlp(x: object) -> object:
        h = tf.nn.leaky_relu(tf.matmul(x, w1) + b1, alpha=ALPHA)
        return tf.matmul(h, w2) + b2

    spec = tf.TensorSpec(shape=(1, SIZES[0]), dtype=tf.float32)
    concrete = tf.function(mlp, input_signature=[spec]).get_concrete_function()
    return tf.lite.TFLiteConverter.from_concrete_functions([concrete]).convert()


def customised(data: bytes) -> bytes:
    """LEAKY_RELU made the custom op CODE, its alpha in the custom options."""
    schema, fb = _schema()
    obj = fb.convert_bytearray_to_object(bytearray(data))
    names = _builtin_names(schema)
    code = schema.OperatorCodeT()
    code.builtinCode = code.deprecatedBuiltinCode = schema.BuiltinOperator.CUSTOM
    code.customCode = CODE
    obj.operatorCodes.append(code)
    replaced = 0
    for op in obj.subgraphs[0].operators:
        c = obj.operatorCodes[op.opcodeIndex]
        if names[max(c.builtinCode, c.deprecatedBuiltinCode)] != "LEAKY_RELU":
            continue
        alpha = op.builtinOptions.alpha
        op.opcodeIndex = len(obj.operatorCodes) - 1
        op.builtinOptionsType, op.builtinOptions = 0, None
        op.customOptions = list(struct.pack("<f", alpha))
        replaced += 1
    assert replaced == 1, f"{replaced} LEAKY_RELU ops in the converted model"
    return bytes(fb.convert_object_to_bytearray(obj))


def original(data: bytes) -> bytes:
    """The custom op CODE made the builtin LEAKY_RELU again, alpha from its options."""
    schema, fb = _schema()
    obj = fb.convert_bytearray_to_object(bytearray(data))
    code = schema.OperatorCodeT()
    code.builtinCode = code.deprecatedBuiltinCode = schema.BuiltinOperator.LEAKY_RELU
    code.version = 1
    obj.operatorCodes.append(code)
    for op in obj.subgraphs[0].operators:
        if obj.operatorCodes[op.opcodeIndex].customCode not in (CODE, CODE.encode()):
            continue
        (alpha,) = struct.unpack("<f", bytes(op.customOptions))
        options = schema.LeakyReluOptionsT()
        options.alpha = alpha
        op.opcodeIndex = len(obj.operatorCodes) - 1
        op.builtinOptionsType = schema.BuiltinOptions.LeakyReluOptions
        op.builtinOptions = options
        op.customOptions = None
    return bytes(fb.convert_object_to_bytearray(obj))


def main() -> int:
    MODEL.parent.mkdir(parents=True, exist_ok=True)
    MODEL.write_bytes(customised(convert()))
    print(f"wrote {MODEL.relative_to(HERE)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
