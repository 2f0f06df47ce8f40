"""TFLite_Detection_PostProcess: the CUSTOM op SSD models end with (box decoding and fast or
regular non-max suppression), as TFLite Micro's detection_postprocess.cc runs it.

Its options are a flexbuffer map in the op's custom options, read here once: TFLM's Init
reads max_detections, max_classes_per_detection, detections_per_class (100 when absent),
use_regular_nms (false when absent), nms_score_threshold, nms_iou_threshold, num_classes and
the four scales, an absent key reading as 0. Values TFLM would only refuse at Eval (an IoU
threshold outside (0, 1], no classes per detection in fast mode, ...) stop the compile here.

TFLM takes float32 box encodings and class predictions only (its Eval fails on any other
type), so quantised ones are refused rather than given a meaning TFLM does not have. The
anchors are read as float32 [num_boxes, 4] (y, x, h, w).

The kernel's working memory (decoded boxes, candidate lists, NMS state) is a scratch tensor
this lowering adds to the graph: the planner gives it arena bytes live during this op only,
so two arenas of a model still run side by side and nothing is allocated at run time.
"""

from __future__ import annotations

import numpy as np
from flatbuffers import flexbuffers

from ..ir import DType, Graph, Op
from ..lowering import KernelCall, OpDef, TensorArg, op_error, scratch_tensor

NAME = "TFLite_Detection_PostProcess"
# TFLM's kNumDetectionsPerClass: detections_per_class when the options do not say.
DEFAULT_DETECTIONS_PER_CLASS = 100


def read_options(graph: Graph, op: Op) -> dict[str, object]:
    """The options as TFLM's Init reads them: ints truncated, floats as float32."""
    raw = op.options.get("custom_options", b"")
    assert isinstance(raw, bytes)
    try:
        m = flexbuffers.Loads(raw) if raw else None
    except Exception as exc:  # noqa: BLE001 - any decoding failure of damaged bytes
        raise op_error(graph, op, f"its custom options are not a flexbuffer ({exc})") from None
    if not isinstance(m, dict):
        raise op_error(graph, op, "its custom options are not a flexbuffer map")

    def number(key: str, default: float = 0) -> int | float:
        v = m.get(key, default)
        if v is None:
            return default
        if not isinstance(v, bool | int | float):
            raise op_error(graph, op, f"option {key} is {type(v).__name__}, not a number")
        return v

    def as_int(key: str, default: int = 0) -> int:
        v = number(key, default)
        return int(v)  # flexbuffers' AsInt32 truncates a float, as int() does

    def as_float(key: str) -> float:
        return float(np.float32(number(key)))

    return {
        "max_detections": as_int("max_detections"),
        "max_classes_per_detection": as_int("max_classes_per_detection"),
        "detections_per_class": as_int("detections_per_class", DEFAULT_DETECTIONS_PER_CLASS),
        "use_regular_nms": bool(number("use_regular_nms", False)),
        "nms_score_threshold": as_float("nms_score_threshold"),
        "nms_iou_threshold": as_float("nms_iou_threshold"),
        "num_classes": as_int("num_classes"),
        "y_scale": as_float("y_scale"),
        "x_scale": as_float("x_scale"),
        "h_scale": as_float("h_scale"),
        "w_scale": as_float("w_scale"),
    }


def _align4(n: int) -> int:
    return (n + 3) // 4 * 4


def scratch_layout(
    num_boxes: int, opts: dict[str, object], categories: int
) -> tuple[dict[str, int], int]:
    """Byte offsets of the kernel's work arrays in its scratch, and the scratch size."""
    n, max_det = num_boxes, int(opts["max_detections"])  # type: ignore[call-overload]
    sizes = [
        ("decoded_offset", 16 * n),  # BoxCornerEncoding per anchor
        ("order_offset", 4 * n),  # candidates, sorted by score
        ("merge_offset", 4 * n),  # the merge sort's other half
        ("active_offset", _align4(n)),  # one byte per candidate
    ]
    if opts["use_regular_nms"]:
        per_class = int(opts["detections_per_class"])  # type: ignore[call-overload]
        sizes += [
            ("selected_offset", 4 * min(n, per_class)),
            ("top_index_offset", 4 * max_det),
            ("top_score_offset", 4 * max_det),
            ("next_index_offset", 4 * max_det),
            ("next_score_offset", 4 * max_det),
        ]
    else:
        sizes += [
            ("max_scores_offset", 4 * n),
            ("class_index_offset", 4 * n * categories),
            ("selected_offset", 4 * min(n, max_det)),
        ]
    offsets, at = {}, 0
    for key, size in sizes:
        offsets[key] = at
        at += size
    return offsets, at


def lower(graph: Graph, op: Op) -> KernelCall:
    opts = read_options(graph, op)
    boxes, scores, anchors = (graph.tensor(t) for t in op.inputs[:3])
    for t in (boxes, scores, anchors):
        if t.dtype != DType.FLOAT32:
            raise op_error(
                graph,
                op,
                f"input dtype {t.dtype.short} is not supported: TFLite Micro's kernel takes "
                "float32 box encodings, class predictions and anchors only",
                t.index,
            )
    if len(boxes.shape) != 3 or boxes.shape[0] != 1 or boxes.shape[2] < 4:
        raise op_error(
            graph,
            op,
            f"box encodings must be [1, boxes, >= 4], not {list(boxes.shape)}",
            boxes.index,
        )
    n = boxes.shape[1]
    classes = int(opts["num_classes"])  # type: ignore[call-overload]
    if len(scores.shape) != 3 or tuple(scores.shape[:2]) != (1, n):
        raise op_error(
            graph,
            op,
            f"class predictions must be [1, {n}, classes], not {list(scores.shape)}",
            scores.index,
        )
    with_background = scores.shape[2]
    if classes < 1 or not 0 <= with_background - classes <= 1:
        raise op_error(
            graph,
            op,
            f"num_classes {classes} must be the class predictions' last dim {with_background} "
            "or one less (a background class)",
            scores.index,
        )
    if tuple(anchors.shape) != (n, 4):
        raise op_error(
            graph, op, f"anchors must be [{n}, 4], not {list(anchors.shape)}", anchors.index
        )
    max_det = int(opts["max_detections"])  # type: ignore[call-overload]
    iou = float(opts["nms_iou_threshold"])  # type: ignore[arg-type]
    if max_det < 0:
        raise op_error(graph, op, f"max_detections {max_det} is negative")
    if not 0.0 < iou <= 1.0:
        raise op_error(graph, op, f"nms_iou_threshold {iou} must be in (0, 1], as TFLM requires")
    for key in ("y_scale", "x_scale", "h_scale", "w_scale"):
        if not np.isfinite(opts[key]) or opts[key] == 0.0:  # type: ignore[call-overload]
            raise op_error(graph, op, f"option {key} {opts[key]} must be a nonzero number")
    regular = bool(opts["use_regular_nms"])
    categories = 1
    if regular:
        if int(opts["detections_per_class"]) <= 0:  # type: ignore[call-overload]
            raise op_error(
                graph, op, f"detections_per_class {opts['detections_per_class']} must be positive"
            )
        written = max_det
    else:
        per_det = int(opts["max_classes_per_detection"])  # type: ignore[call-overload]
        if per_det <= 0:
            raise op_error(graph, op, f"max_classes_per_detection {per_det} must be positive")
        categories = min(per_det, classes)
        if categories > 1:
            # detection_postprocess.cc steps output_box_index once per class inside the
            # class loop and places entry (i, c) at categories * (i * categories + c) + c:
            # past its outputs as soon as there are enough detections.
            raise op_error(
                graph,
                op,
                f"fast NMS with {categories} classes per detection is not supported: TFLite "
                "Micro's kernel writes those past its outputs (use max_classes_per_detection 1 "
                "or use_regular_nms)",
            )
        written = max_det * categories
    out_boxes, out_classes, out_scores, out_num = (graph.tensor(t) for t in op.outputs)
    for t in (out_boxes, out_classes, out_scores, out_num):
        if t.dtype != DType.FLOAT32:
            raise op_error(graph, op, f"outputs must be float32, not {t.dtype.short}", t.index)
    capacity = out_classes.num_elements
    if (
        capacity < written
        or out_scores.num_elements != capacity
        or out_boxes.num_elements != 4 * capacity
        or out_num.num_elements < 1
    ):
        raise op_error(
            graph,
            op,
            f"outputs must hold {written} detections (boxes [.., 4], classes, scores, and one "
            f"count); they hold boxes {list(out_boxes.shape)}, classes "
            f"{list(out_classes.shape)}, scores {list(out_scores.shape)}, count "
            f"{list(out_num.shape)}",
            out_boxes.index,
        )
    offsets, size = scratch_layout(n, opts, categories)
    scratch = scratch_tensor(graph, op, f"{NAME} scratch", DType.UINT8, max(size, 4))
    params: dict[str, object] = {
        "num_boxes": n,
        "box_stride": boxes.shape[2],
        "num_classes": classes,
        "classes_with_background": with_background,
        "label_offset": with_background - classes,
        "max_detections": max_det,
        "categories_per_anchor": categories,
        "detections_per_class": int(opts["detections_per_class"]),  # type: ignore[call-overload]
        "use_regular_nms": int(regular),
        "capacity": capacity,
        "score_threshold": opts["nms_score_threshold"],
        "iou_threshold": iou,
        "y_scale": opts["y_scale"],
        "x_scale": opts["x_scale"],
        "h_scale": opts["h_scale"],
        "w_scale": opts["w_scale"],
        "decoded_offset": offsets["decoded_offset"],
        "order_offset": offsets["order_offset"],
        "merge_offset": offsets["merge_offset"],
        "active_offset": offsets["active_offset"],
        "selected_offset": offsets["selected_offset"],
        "max_scores_offset": offsets.get("max_scores_offset", 0),
        "class_index_offset": offsets.get("class_index_offset", 0),
        "top_index_offset": offsets.get("top_index_offset", 0),
        "top_score_offset": offsets.get("top_score_offset", 0),
        "next_index_offset": offsets.get("next_index_offset", 0),
        "next_score_offset": offsets.get("next_score_offset", 0),
    }
    args: list[TensorArg | None] = [TensorArg(t) for t in op.inputs[:3]]  # type: ignore[arg-type]
    args += [TensorArg(t, writable=True) for t in op.outputs]
    args.append(TensorArg(scratch, writable=True))
    return KernelCall(
        "tinyaot_detection_postprocess_f32",
        "tinyaot/detection_postprocess.h",
        "struct tinyaot_detection_postprocess_f32_params",
        params,  # type: ignore[arg-type]
        args,  # type: ignore[arg-type]
        # TFLite Micro fails the invoke on a box that decodes empty; so does the model.
        returns_status=True,
    )


OP = OpDef(
    NAME,
    ("float32",),
    lower,
    "CUSTOM op: box decoding, fast and regular NMS as TFLite Micro orders and breaks ties; "
    "float32 inputs (as TFLite Micro); working memory in the arena",
    inputs=(3, 3),
    outputs=(4, 4),
    custom=True,
)
