"""SSD-style models ending with TFLite_Detection_PostProcess, written with TFLite's schema
object API (the converter does not emit the op from a TensorFlow function).

Inputs: box encodings [1, boxes, 4] and class logits [1, boxes, classes (+1 background)];
a LOGISTIC turns the logits into scores, as an SSD head does, unless `logistic` is False
(then the scores are the second input). The anchors [boxes, 4] are a constant.
"""

from __future__ import annotations

import numpy as np
from flatbuffers import flexbuffers

CODE = "TFLite_Detection_PostProcess"
DEFAULTS: dict[str, object] = {
    "max_detections": 10,
    "max_classes_per_detection": 1,
    "detections_per_class": 100,
    "use_regular_nms": False,
    "nms_score_threshold": 0.3,
    "nms_iou_threshold": 0.5,
    "num_classes": 3,
    "y_scale": 10.0,
    "x_scale": 10.0,
    "h_scale": 5.0,
    "w_scale": 5.0,
}


def custom_options(options: dict[str, object], float32: bool = True) -> bytes:
    """The options as a flexbuffer map: floats in 32 bits as TensorFlow's exporter writes
    them (or 64 when float32 is False); keys whose value is None are left out."""
    fbb = flexbuffers.Builder()
    with fbb.Map():
        for key, value in sorted(options.items()):
            if value is None:
                continue
            if isinstance(value, bool):
                fbb.Bool(key, value)
            elif isinstance(value, int):
                fbb.Int(key, value)
            else:
                fbb.Key(key)
                fbb.Float(float(value), 4 if float32 else 8)
    return bytes(fbb.Finish())


def anchors(boxes: int, seed: int) -> np.ndarray:
    """(y, x, h, w) centres in the unit square, sizes 0.05 to 0.5."""
    rng = np.random.default_rng(seed)
    centres = rng.uniform(0.0, 1.0, size=(boxes, 2))
    sizes = rng.uniform(0.05, 0.5, size=(boxes, 2))
    return np.concatenate([centres, sizes], axis=1).astype(np.float32)


def build(
    boxes: int = 20,
    classes: int = 3,
    background: bool = True,
    seed: int = 0,
    logistic: bool = True,
    detections: int | None = None,
    anchor_data: np.ndarray | None = None,
    **options: object,
) -> bytes:
    """The model's flatbuffer; `options` override DEFAULTS (num_classes is `classes`), and
    `detections` is the outputs' length (default: max_detections x max_classes_per_detection,
    the shape TensorFlow's exporter gives them)."""
    from tensorflow.lite.python import schema_py_generated as schema
    from tensorflow.lite.tools import flatbuffer_utils

    opts = dict(DEFAULTS, num_classes=classes, **options)
    if detections is None:
        detections = int(opts["max_detections"]) * max(int(opts["max_classes_per_detection"]), 1)
    width = classes + int(background)
    anchor_values = anchors(boxes, seed) if anchor_data is None else anchor_data

    model = schema.ModelT()
    model.version = 3
    model.description = "detection_models.py"
    empty = schema.BufferT()
    anchor_buffer = schema.BufferT()
    anchor_buffer.data = list(anchor_values.astype("<f4").tobytes())
    model.buffers = [empty, anchor_buffer]

    def tensor(name: str, shape: list[int], buffer: int = 0):
        t = schema.TensorT()
        t.name, t.shape, t.type, t.buffer = name, shape, schema.TensorType.FLOAT32, buffer
        return t

    names = [
        ("box_encodings", [1, boxes, 4], 0),
        ("class_logits", [1, boxes, width], 0),
        ("anchors", [boxes, 4], 1),
        ("detection_boxes", [1, detections, 4], 0),
        ("detection_classes", [1, detections], 0),
        ("detection_scores", [1, detections], 0),
        ("num_detections", [1], 0),
        ("class_scores", [1, boxes, width], 0),
    ]
    sg = schema.SubGraphT()
    sg.tensors = [tensor(*n) for n in names]
    sg.inputs, sg.outputs = [0, 1], [3, 4, 5, 6]

    logistic_code = schema.OperatorCodeT()
    logistic_code.builtinCode = logistic_code.deprecatedBuiltinCode = (
        schema.BuiltinOperator.LOGISTIC
    )
    custom_code = schema.OperatorCodeT()
    custom_code.builtinCode = custom_code.deprecatedBuiltinCode = schema.BuiltinOperator.CUSTOM
    custom_code.customCode = CODE
    model.operatorCodes = [logistic_code, custom_code]

    post = schema.OperatorT()
    post.opcodeIndex = 1
    post.inputs, post.outputs = [0, 7 if logistic else 1, 2], [3, 4, 5, 6]
    post.customOptions = list(custom_options(opts))
    if logistic:
        sig = schema.OperatorT()
        sig.opcodeIndex = 0
        sig.inputs, sig.outputs = [1], [7]
        sg.operators = [sig, post]
    else:
        sg.tensors = sg.tensors[:7]
        sg.operators = [post]
    model.subgraphs = [sg]
    return bytes(flatbuffer_utils.convert_object_to_bytearray(model))
