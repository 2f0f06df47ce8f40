"""TFLite_Detection_PostProcess (float32): SSD-style models (detection_models.py) with random
boxes and scores, fast and regular NMS, with and without a background class, max_detections
above and below the number of candidates, ties in the scores, compared with TFLite Micro:
the detections TFLM writes, in its order, classes and counts exact, boxes and scores within
1e-5; and the cases TFLM cannot run stop the compile with one line."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
from closeness import FLOAT_RTOL, float_error
from detection_models import build
from harness import compile_model, split_outputs
from host import runner
from opcheck import op_kinds, write_model
from reference import Reference
from tinyaot.compiler import Options, compile_graph, lower_op
from tinyaot.errors import CompileError

sys.path.insert(0, str(Path(__file__).resolve().parent / "cortex_m3"))
import runner as m3  # noqa: E402

CASES = {
    # name: (build() arguments, input sets)
    "fast": (dict(boxes=30, classes=3), 6),
    "fast_no_background": (dict(boxes=25, classes=4, background=False), 6),
    "fast_few_detections": (dict(boxes=40, classes=2, max_detections=3), 6),
    "fast_all_candidates": (
        dict(boxes=16, classes=3, max_detections=40, nms_score_threshold=0.0),
        4,
    ),
    "fast_strict_iou": (dict(boxes=30, classes=5, nms_iou_threshold=0.1, max_detections=20), 4),
    "regular": (dict(boxes=30, classes=3, use_regular_nms=True), 6),
    "regular_few_detections": (
        dict(boxes=40, classes=4, use_regular_nms=True, max_detections=4, detections_per_class=3),
        6,
    ),
    "regular_many_detections": (
        dict(boxes=20, classes=3, use_regular_nms=True, max_detections=50, nms_score_threshold=0.2),
        4,
    ),
    "regular_no_background": (
        dict(boxes=24, classes=2, background=False, use_regular_nms=True, max_detections=8),
        4,
    ),
    "regular_wide_outputs": (
        dict(boxes=20, classes=3, use_regular_nms=True, max_classes_per_detection=2),
        4,
    ),
}


def _inputs(ref: Reference, rng: np.random.Generator, ties: bool) -> list[np.ndarray]:
    boxes_shape = tuple(ref.inputs[0]["shape"])
    scores_shape = tuple(ref.inputs[1]["shape"])
    encodings = rng.normal(0.0, 1.0, size=boxes_shape).astype(np.float32)
    encodings[..., :2] *= 3.0
    if ties:
        # Scores on a coarse grid, and boxes repeated: equal scores and equal IoUs.
        scores = (rng.integers(0, 6, size=scores_shape) / 5.0).astype(np.float32)
        encodings[:, 1::3] = encodings[:, ::3][:, : encodings[:, 1::3].shape[1]]
        return [encodings, scores]
    return [encodings, rng.normal(0.0, 2.0, size=scores_shape).astype(np.float32)]


def _compare(got: list[np.ndarray], want: list[np.ndarray], regular: bool, max_det: int) -> None:
    count = int(want[3][0])
    assert got[3][0] == want[3][0], f"{got[3][0]} detections, TFLM {count}"
    # TFLM writes max_detections entries in regular NMS, the detections in fast NMS.
    n = max_det if regular else count
    boxes, classes, scores = (x.reshape(-1, *x.shape[2:])[:n] for x in got[:3])
    w_boxes, w_classes, w_scores = (x.reshape(-1, *x.shape[2:])[:n] for x in want[:3])
    assert np.array_equal(classes, w_classes), f"classes {classes} != TFLM {w_classes}"
    assert float_error(scores, w_scores) <= FLOAT_RTOL, f"scores {scores} != TFLM {w_scores}"
    assert float_error(boxes, w_boxes) <= FLOAT_RTOL, f"boxes {boxes} != TFLM {w_boxes}"
    # Entries past those TFLM writes are 0 here.
    for x in got[:3]:
        assert not x.reshape(-1, *x.shape[2:])[n:].any()


def _check(model_path, tmp_path, sets: int, seed: int, ties: bool, regular: bool, max_det: int):
    gen = compile_model(model_path, tmp_path / "gen", "m")
    exe = runner.build(gen, "m", tmp_path)
    ref = Reference(model_path)
    rng = np.random.default_rng(seed)
    detected = 0
    for _ in range(sets):
        inputs = _inputs(ref, rng, ties)
        want = ref.run(inputs)
        for mode in ("invoke", "run"):
            raw = runner.run(exe, [x.tobytes() for x in inputs], mode)
            _compare(split_outputs(raw, want), want, regular, max_det)
        detected += int(want[3][0])
    return detected


@pytest.mark.parametrize("case", sorted(CASES))
@pytest.mark.parametrize("ties", [False, True])
def test_matches_tflm(case, ties, tmp_path):
    args, sets = CASES[case]
    data = build(seed=len(case), logistic=not ties, **args)
    path = write_model(data, tmp_path, case)
    assert op_kinds(path)[-1] == "TFLite_Detection_PostProcess"
    regular = bool(args.get("use_regular_nms", False))
    max_det = int(args.get("max_detections", 10))
    detected = _check(
        path, tmp_path, sets, seed=len(case) + ties, ties=ties, regular=regular, max_det=max_det
    )
    assert detected > 0, "no input set gave a detection: the comparison checked nothing"


def test_options_read_as_tflm_reads_them():
    """Defaults for the two optional keys; floats as float32 whatever width the map uses."""
    from detection_models import custom_options
    from tinyaot.ops.tflite_detection_postprocess import read_options

    graph = load_bytes(build(detections_per_class=None, use_regular_nms=None))
    op = graph.ops[-1]
    opts = read_options(graph, op)
    assert opts["detections_per_class"] == 100 and opts["use_regular_nms"] is False
    assert opts["nms_score_threshold"] == float(np.float32(0.3))
    op.options["custom_options"] = custom_options({"nms_iou_threshold": 0.6}, float32=False)
    opts = read_options(graph, op)
    assert opts["nms_iou_threshold"] == float(np.float32(0.6)) and opts["max_detections"] == 0


def load_bytes(data: bytes):
    from tinyaot import frontend

    return frontend.parse(data)


def test_scratch_is_arena_memory_live_for_the_op_only():
    graph = load_bytes(build(boxes=30, classes=3, use_regular_nms=True))
    compiled = compile_graph(graph, Options(name="m"), "m.tflite")
    scratch = [t for t in compiled.graph.tensors if "scratch" in t.name]
    assert len(scratch) == 1 and scratch[0].nbytes > 30 * 16
    step = next(i for i, s in enumerate(compiled.steps) if s.op.kind.startswith("TFLite"))
    buf = compiled.plan.buffers[scratch[0].index]
    assert (buf.start, buf.end) == (step, step)
    assert compiled.plan.size >= scratch[0].nbytes


@pytest.mark.parametrize(
    "args, message",
    [
        (dict(max_classes_per_detection=2), "fast NMS with 2 classes per detection"),
        (dict(nms_iou_threshold=0.0), "nms_iou_threshold 0.0 must be in (0, 1]"),
        (dict(use_regular_nms=True, detections_per_class=0), "detections_per_class 0"),
        (dict(num_classes=5), "num_classes 5 must be the class predictions' last dim 4"),
        (dict(h_scale=0.0), "option h_scale 0.0 must be a nonzero number"),
        (dict(detections=5), "outputs must hold 10 detections"),
    ],
)
def test_what_tflm_cannot_run_is_refused(args, message):
    options = dict(args)
    classes = options.pop("num_classes", 3)
    data = build(classes=3, **options) if classes == 3 else _with_num_classes(classes)
    graph = load_bytes(data)
    with pytest.raises(CompileError) as err:
        lower_op(graph, graph.ops[-1])
    assert str(err.value).startswith("op 1 (TFLite_Detection_PostProcess)")
    assert message in str(err.value)


def _with_num_classes(num_classes: int) -> bytes:
    """A model whose num_classes option disagrees with its class predictions."""
    from detection_models import DEFAULTS, custom_options

    data = build(classes=3)
    graph = load_bytes(data)
    old = graph.ops[-1].options["custom_options"]
    new = custom_options(dict(DEFAULTS, num_classes=num_classes))
    assert len(new) == len(old)
    return data.replace(old, new)


def test_quantised_scores_are_refused(tmp_path):
    graph = load_bytes(build(logistic=False))
    scores = graph.tensors[graph.ops[-1].inputs[1]]
    scores.dtype = type(scores.dtype).UINT8
    with pytest.raises(CompileError, match="takes float32 box encodings"):
        lower_op(graph, graph.ops[-1])


def test_empty_and_infinite_boxes(tmp_path):
    """A box whose size underflows to 0 fails TFLM's invoke, and ours returns
    TINYAOT_ERR_KERNEL. Sizes that overflow to infinity decode (and suppress) as in TFLM."""
    path = write_model(build(boxes=12, classes=2, logistic=False), tmp_path, "edge")
    gen = compile_model(path, tmp_path / "gen", "m")
    exe = runner.build(gen, "m", tmp_path)
    ref = Reference(path)
    rng = np.random.default_rng(5)
    encodings, scores = _inputs(ref, rng, ties=False)
    scores = np.abs(scores)
    huge = encodings.copy()
    huge[0, :3, 2:] = 5000.0
    want = ref.run([huge, scores])
    raw = runner.run(exe, [huge.tobytes(), scores.tobytes()])
    _compare(split_outputs(raw, want), want, regular=False, max_det=10)
    assert np.isinf(want[0]).any(), "no infinite box: the case checked nothing"
    tiny = encodings.copy()
    tiny[0, 4, 2] = -5000.0
    with pytest.raises(RuntimeError):
        ref.run([tiny, scores])
    # The host runner exits 67 when the invoke returns an error.
    with pytest.raises(RuntimeError, match="exited with 67"):
        runner.run(exe, [tiny.tobytes(), scores.tobytes()])


@pytest.mark.parametrize("case", ["fast", "regular_few_detections"])
def test_matches_tflm_on_cortex_m3(case, tmp_path):
    """The kernel's double arithmetic (decoding, its own exp) in the Cortex-M3's soft float."""
    if m3.missing_tools():
        pytest.skip(f"no Cortex-M3 toolchain or qemu: {', '.join(m3.missing_tools())}")
    args, _ = CASES[case]
    path = write_model(build(seed=len(case), **args), tmp_path, case)
    gen = compile_model(path, tmp_path / "gen", "m")
    ref = Reference(path)
    rng = np.random.default_rng(11)
    sets = [_inputs(ref, rng, ties=bool(i % 2)) for i in range(4)]
    result = m3.build_and_run(
        gen, "m", [[x.tobytes() for x in s] for s in sets], workdir=tmp_path / "m3", jobs=1
    )
    assert result.ok, result.log
    regular = bool(args.get("use_regular_nms", False))
    detected = 0
    for s, raw in zip(sets, result.outputs, strict=True):
        want = ref.run(s)
        got = split_outputs(b"".join(raw), want)
        _compare(got, want, regular, int(args.get("max_detections", 10)))
        detected += int(want[3][0])
    assert detected > 0
