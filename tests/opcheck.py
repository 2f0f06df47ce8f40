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


def every_int16(shape: tuple[int, ...]) -> np.ndarray:
    """All 65536 int16 values in order (the shape must hold exactly that many)."""
    return np.arange(-32768, 32768, dtype=np.int16).reshape(shape)


def int16_unary_model(opcode: int, in_scales: list[float], shape: tuple[int, ...]) -> bytes:
    """One op per input scale, side by side, from int16 inputs (zero point 0) to int16 outputs
    of scale 1/32768, as int16x8 models give LOGISTIC and TANH."""
    import tflite_builder as tb

    i16, n = tb.tflite.TensorType.INT16, len(in_scales)
    tensors = [
        tb.Tensor(f"x{i}", list(shape), i16, scale=[s], zero_point=[0])
        for i, s in enumerate(in_scales)
    ] + [tb.Tensor(f"y{i}", list(shape), i16, scale=[1 / 32768], zero_point=[0]) for i in range(n)]
    ops = [tb.Operator(0, [i], [n + i]) for i in range(n)]
    graph = tb.SubGraph(tensors, ops, list(range(n)), list(range(n, 2 * n)))
    return tb.build(tb.Model([graph], [tb.OpCode(opcode)]))


def check_every_int16(path: Path, workdir: Path, shape: tuple[int, ...], count: int) -> Chosen:
    """Every int16 value into each of count inputs of shape (65536 elements), then random
    values."""
    rng = np.random.default_rng(16)
    every = every_int16(shape)
    sets = [
        [every] * count,
        [rng.integers(-32768, 32768, shape, dtype=np.int16) for _ in range(count)],
    ]
    return check_inputs(path, workdir, sets)
