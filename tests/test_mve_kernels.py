"""The Helium (MVE) kernels of crt/src/mve/ on the emulated Cortex-M55 (qemu mps3-an547),
byte for byte against TFLite Micro, and the layouts the compiler writes for them.

The models are built by hand (tests/tflite_builder.py) for the cases the kernels split on:
depths with and without a tail of depth % 16 inputs (the predicated last iteration), under 16
inputs (only that one), unit counts not a multiple of four (the highest block is the last
four units; under four, zero weights fill it), several batch rows, per-tensor and per-channel
weights, input zero points other than 0, and an activation that clamps inside int8. The host
runs the portable kernels on the same models in test_fast_kernels-like tests elsewhere; here
each case is one firmware at -O2 with all its input sets.
"""

from __future__ import annotations

import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pytest
import tflite_builder as tb
from reference import Reference
from tinyaot import codegen, frontend
from tinyaot.compiler import Compiled, Options, compile_graph
from tinyaot.lowering import ByTarget

sys.path.insert(0, str(Path(__file__).resolve().parent / "cortex_m3"))
import runner as m3  # noqa: E402

BOARD = "mps3-an547"
FC = "tinyaot_fc_fast_s8"
SETS = 3


def fc_model(
    units: int,
    depth: int,
    batches: int = 1,
    per_channel: bool = False,
    activation: int = tb.ACT.NONE,
    out_q: tuple[float, int] = (0.25, 3),
    seed: int = 0,
    w_max: int = 127,
) -> bytes:
    """One int8 FULLY_CONNECTED of [batches, depth] inputs (zero point -3) onto `units`,
    weights in [-w_max, w_max]."""
    rng = np.random.default_rng(seed)
    w_scales = [0.004 + 0.0005 * u for u in range(units)] if per_channel else [0.005]
    in_scale = 0.05
    b_scales = [in_scale * s for s in (w_scales if per_channel else w_scales * units)]
    tensors = [
        tb.Tensor("input", [batches, depth], tb.INT8, 0, [in_scale], [-3]),
        tb.Tensor("weights", [units, depth], tb.INT8, 1, w_scales, [0] * len(w_scales)),
        tb.Tensor("bias", [units], tb.INT32, 2, b_scales, [0] * units),
        tb.Tensor("output", [batches, units], tb.INT8, 0, [out_q[0]], [out_q[1]]),
    ]
    options = {"FusedActivationFunction": activation}
    op = tb.Operator(0, [0, 1, 2], [3], "FullyConnectedOptions", options)
    weights = rng.integers(-w_max, w_max + 1, size=(units, depth))
    bias = rng.integers(-3000, 3000, size=units)
    buffers = [tb.Buffer(), tb.Buffer(tb.int8_bytes(weights)), tb.Buffer(tb.int32_bytes(bias))]
    return tb.single_op(tensors, op, tb.OPS.FULLY_CONNECTED, buffers)


# name: model bytes. Depths: 97 (6 x 16 + 1), 130 (+ 2), 201 (+ 9), 343 (+ 7), 48 (no tail),
# 15 (a predicated iteration alone), 165 (+ 5).
FC_CASES = {
    "fc_u12_d97": lambda: fc_model(12, 97, seed=1),
    "fc_u8_d130_b3_relu": lambda: fc_model(8, 130, 3, activation=tb.ACT.RELU, seed=2),
    "fc_u6_d201": lambda: fc_model(6, 201, seed=3),
    "fc_u3_d343_b2": lambda: fc_model(3, 343, 2, seed=4),
    "fc_u32_d48_pc": lambda: fc_model(32, 48, per_channel=True, seed=5, w_max=40),
    "fc_u80_d15": lambda: fc_model(80, 15, seed=6),
    # RELU6 clamps inside int8 (output scale 0.05: 6.0 is 119), per-channel, 7 units, 2 rows;
    # small weights, so that the random sets' outputs spread over the range.
    "fc_u7_d165_b2_pc_relu6": lambda: fc_model(
        7, 165, 2, per_channel=True, activation=tb.ACT.RELU6, out_q=(0.05, -1), seed=7, w_max=12
    ),
}


@pytest.fixture(scope="module")
def models(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("mve_models")
    paths = {}
    for name, build in FC_CASES.items():
        paths[name] = root / f"{name}.tflite"
        paths[name].write_bytes(build())
    return paths


def compiled(path: Path) -> Compiled:
    return compile_graph(frontend.load(path), Options(name="m"), path.name)


def test_fc_mve_layout(models: dict[str, Path]) -> None:
    """Each block's four units with their depth weights in a row: the model's own weights,
    in fast.block_channels' order (the highest block the last four units, or zero units)."""
    for name, path in models.items():
        c = compiled(path)
        call = c.steps[-1].call
        assert call.function == FC, name
        weights = call.params["weights"]
        assert isinstance(weights, ByTarget), name
        model = frontend.load(path)
        op = model.ops[0]
        w = model.tensor(op.inputs[1]).data.astype(np.int8)
        units, depth = w.shape
        if units >= 4:
            order = [*range(units - units % 4), *range(units - 4, units)] if units % 4 else []
            want = w[order] if order else w
        else:
            want = np.concatenate([w, np.zeros((4 - units, depth), np.int8)])
        got = weights.mve.values.reshape(-1, depth)
        assert np.array_equal(got, want), name


def inputs_for(ref: Reference, seed: int) -> list[list[np.ndarray]]:
    """Random sets, then the extremes that put every sum at an end of its range for some
    unit: all inputs -128, all 127."""
    rng = np.random.default_rng(seed)
    sets = [ref.random_inputs(rng) for _ in range(SETS)]
    return sets + [[np.full(x.shape, v, x.dtype) for x in sets[0]] for v in (-128, 127)]


def firmware_outputs(path: Path, sets: list[list[np.ndarray]], work: Path) -> list[bytes]:
    """The first output of each set, as one Cortex-M55 firmware at -O2 computes them."""
    gen = work / "gen"
    gen.mkdir(parents=True)
    for file, text in codegen.generate(compiled(path)).items():
        (gen / file).write_text(text)
    packed = [[x.tobytes() for x in s] for s in sets]
    result = m3.build_and_run(gen, "m", packed, BOARD, "-O2", work / "build", jobs=1)
    return [outputs[0] for outputs in result.outputs]


@pytest.mark.skipif(bool(m3.missing_tools()), reason="needs arm-none-eabi-gcc and qemu")
def test_cortex_m55_matches_tflm(models: dict[str, Path], tmp_path: Path) -> None:
    def differs(name: str) -> bool:
        ref = Reference(models[name])
        sets = inputs_for(ref, len(name))
        want = [ref.run(s)[0].tobytes() for s in sets]
        return firmware_outputs(models[name], sets, tmp_path / name) != want

    with ThreadPoolExecutor() as pool:
        failures = [
            name for name, bad in zip(models, pool.map(differs, models), strict=True) if bad
        ]
    assert failures == []
