"""Helpers of the per-op tests: what a converted model contains, and runs on chosen inputs.

check_against_tflm draws inputs at random in [-1, 1] (float) or over the whole int8
range; these helpers add inputs a test picks (every int8 value, float values past an
op's cut-offs or exactly halfway between two quantisation steps).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
from harness import FLOAT_RTOL, compare, compile_model, split_outputs
from host import runner
from reference import Reference
from tinyaot import frontend
from tinyaot.ir import Graph


def write_model(data: bytes, tmp_path: Path, name: str = "model") -> Path:
    path = tmp_path / f"{name}.tflite"
    path.write_bytes(data)
    return path


def load(path: Path) -> Graph:
    return frontend.load(path)


def op_kinds(path: Path) -> list[str]:
    return [op.kind for op in load(path).ops]


@dataclass
class Chosen:
    exact: bool
    max_rel_error: float
    outputs: list[list[np.ndarray]]  # ours, per input set


def check_inputs(model: Path, workdir: Path, sets: list[list[np.ndarray]]) -> Chosen:
    """Compile, build and run each input set; compare with TFLM as check_against_tflm does."""
    build = workdir / "chosen"
    build.mkdir(exist_ok=True)
    gen = compile_model(model, build / "gen")
    exe = runner.build(gen, "m", build)
    ref = Reference(model)
    result = Chosen(True, 0.0, [])
    for inputs in sets:
        for x, d in zip(inputs, ref.inputs, strict=True):
            assert x.dtype == np.dtype(d["dtype"]) and x.shape == tuple(d["shape"]), d
        want = ref.run(inputs)
        got = split_outputs(runner.run(exe, [x.tobytes() for x in inputs]), want)
        c = compare(got, want)
        assert c.integers_exact, f"{model.name}: an integer output differs from TFLite Micro"
        assert c.max_rel_error <= FLOAT_RTOL, f"{model.name}: float error {c.max_rel_error:.3g}"
        result.exact = result.exact and c.exact
        result.max_rel_error = max(result.max_rel_error, c.max_rel_error)
        result.outputs.append(got)
    return result


def every_int8(shape: tuple[int, ...]) -> np.ndarray:
    """All 256 int8 values (repeated to fill the shape, which must hold at least 256)."""
    n = int(np.prod(shape))
    assert n >= 256
    return np.resize(np.arange(-128, 128, dtype=np.int8), n).reshape(shape)
