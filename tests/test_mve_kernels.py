"""The Helium (MVE) kernels of crt/src/mve/ on the emulated Cortex-M55 (qemu mps3-an547),
byte for byte against TFLite Micro, and the layouts the compiler writes for them.

The models are built by hand (tests/tflite_builder.py) for the cases the kernels split on.
FULLY_CONNECTED: depths with and without a tail of depth % 16 inputs (the predicated last
step), under 16 inputs (only that one), unit counts not a multiple of four (the highest block
is the last four units; under four, zero weights fill it), several batch rows, per-tensor and
per-channel weights, input zero points other than 0, and an activation that clamps inside
int8. CONV_2D: see CONV_CASES; DEPTHWISE_CONV_2D: DW_CASES; AVERAGE_POOL_2D and MAX_POOL_2D:
POOL_CASES; ADD: ADD_CASES; MUL, MAXIMUM, MINIMUM: ELEMENTWISE_CASES. Each case is one firmware
at -O2 with all its input sets.
"""

from __future__ import annotations

import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pytest
import tflite_builder as tb
from reference import Reference
from tinyaot import codegen, fast, frontend
from tinyaot.compiler import Compiled, Options, compile_graph
from tinyaot.lowering import ByTarget, Routine

sys.path.insert(0, str(Path(__file__).resolve().parent / "cortex_m3"))
import runner as m3  # noqa: E402

BOARD = "mps3-an547"
FC = "tinyaot_fc_fast_s8"
CONV = "tinyaot_conv_fast_s8"
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


def conv_model(
    c: tuple[int, int],
    k: tuple[int, int],
    size: tuple[int, int],
    stride: int = 1,
    same: bool = True,
    activation: int = tb.ACT.NONE,
    out_q: tuple[float, int] = (0.02, 5),
    seed: int = 0,
    dil: tuple[int, int] = (1, 1),
) -> bytes:
    """One int8 CONV_2D of c = (in, out) channels, k = (k_h, k_w) dilated by dil over
    size = (h, w), per-channel weights in [-4, 4] so that the outputs spread over the range,
    input zero point 1."""
    (c_in, c_out), (k_h, k_w), (h, w) = c, k, size
    rng = np.random.default_rng(seed)
    w_scales = [0.016 + 0.002 * i for i in range(c_out)]
    if same:
        out_h, out_w = -(-h // stride), -(-w // stride)
    else:
        span_h, span_w = (k_h - 1) * dil[0] + 1, (k_w - 1) * dil[1] + 1
        out_h, out_w = (h - span_h) // stride + 1, (w - span_w) // stride + 1
    tensors = [
        tb.Tensor("input", [1, h, w, c_in], tb.INT8, 0, [0.05], [1]),
        tb.Tensor("filter", [c_out, k_h, k_w, c_in], tb.INT8, 1, w_scales, [0] * c_out),
        tb.Tensor("bias", [c_out], tb.INT32, 2, [0.05 * s for s in w_scales], [0] * c_out),
        tb.Tensor("output", [1, out_h, out_w, c_out], tb.INT8, 0, [out_q[0]], [out_q[1]]),
    ]
    options = {
        "Padding": tb.PADDING.SAME if same else tb.PADDING.VALID,
        "StrideH": stride,
        "StrideW": stride,
        "DilationHFactor": dil[0],
        "DilationWFactor": dil[1],
        "FusedActivationFunction": activation,
    }
    op = tb.Operator(0, [0, 1, 2], [3], "Conv2DOptions", options)
    filters = rng.integers(-4, 5, size=(c_out, k_h, k_w, c_in))
    bias = rng.integers(-300, 300, size=c_out)
    buffers = [tb.Buffer(), tb.Buffer(tb.int8_bytes(filters)), tb.Buffer(tb.int32_bytes(bias))]
    return tb.single_op(tensors, op, tb.OPS.CONV_2D, buffers)


# name: model bytes, for Helium's pair routines: the one-pass tinyaot_conv_pairs_mve16 (1x1
# windows with and without a depth % 16 tail, rows of 48 bytes, windows copied to the patch, on
# Helium also where rows of 3 bytes are read in place elsewhere) and its _relu variant,
# tinyaot_conv_pairs_mve (rows of 9, 12 and 120 bytes, read in place or, when clipped, from the
# patch); a lone last pixel, blocks of four and the highest one repeating channels (out_c 6,
# 10) or under four channels, a clamp inside int8. conv_1x1_c4_oc8's window is too shallow for
# Helium (conv_2d.MVE_MIN_DEPTH): it runs the DSP routine on the M55.
CONV_CASES = {
    "conv_1x1_c32_oc24": lambda: conv_model((32, 24), (1, 1), (5, 7), seed=11),
    "conv_1x1_c16_oc8": lambda: conv_model((16, 8), (1, 1), (5, 7), seed=19),
    "conv_1x1_c4_oc8": lambda: conv_model((4, 8), (1, 1), (5, 7), seed=20),
    "conv_3x3_c3_oc8": lambda: conv_model((3, 8), (3, 3), (7, 6), seed=12),
    # Rows of 3 bytes: read in place elsewhere, copied to the patch on Helium.
    "conv_3x3_c1_oc8": lambda: conv_model((1, 8), (3, 3), (7, 10), seed=9),
    # Rows 12 wide: whole windows in runs of four pairs, each a job of the two-pass routine.
    "conv_3x3_c3_oc8_w12": lambda: conv_model((3, 8), (3, 3), (5, 12), seed=10),
    "conv_3x3_s2_c16_oc6": lambda: conv_model((16, 6), (3, 3), (9, 9), 2, seed=13),
    "conv_3x3_valid_c40": lambda: conv_model((40, 8), (3, 3), (6, 5), same=False, seed=14),
    "conv_10x4_s2_c1_oc12": lambda: conv_model((1, 12), (10, 4), (13, 10), 2, seed=15),
    "conv_1x1_c8_oc3": lambda: conv_model((8, 3), (1, 1), (4, 5), seed=16),
    # RELU6 clamps inside int8: output scale 0.05, 6.0 is 119.
    "conv_3x3_c4_oc8_relu6": lambda: conv_model(
        (4, 8), (3, 3), (7, 7), activation=tb.ACT.RELU6, out_q=(0.05, -1), seed=17
    ),
    "conv_1x1_c20_oc10_relu": lambda: conv_model(
        (20, 10), (1, 1), (3, 5), activation=tb.ACT.RELU, out_q=(0.02, -128), seed=18
    ),
    # Dilated columns: runs of a tap (in_c bytes), whole steps of 16 for the one-pass routine
    # over 32 channels, not over 12 (the two-pass one); stride 2 with dilation 3x2.
    "conv_3x3_d2_c32_oc8": lambda: conv_model((32, 8), (3, 3), (7, 9), seed=41, dil=(2, 2)),
    "conv_3x3_s2_d32_c12_oc8": lambda: conv_model(
        (12, 8), (3, 3), (11, 10), 2, seed=42, dil=(3, 2)
    ),
    # Rows of 48 bytes, but clipped windows too deep for the patch (144 bytes) are read in
    # place a tap of 24 at a time: not whole steps, the two-pass routine.
    "conv_3x2_c24_oc8": lambda: conv_model((24, 8), (3, 2), (5, 6), seed=43),
}


def dw_model(
    c: int,
    size: tuple[int, int],
    stride: int = 1,
    activation: int = tb.ACT.NONE,
    out_q: tuple[float, int] = (0.05, 2),
    seed: int = 0,
    k: tuple[int, int] = (3, 3),
    dil: tuple[int, int] = (1, 1),
) -> bytes:
    """One int8 k = (k_h, k_w) DEPTHWISE_CONV_2D (depth multiplier 1, SAME, dilated by dil) of
    c channels over size = (h, w), per-channel weights in [-40, 40], input zero point -2."""
    (h, w), (k_h, k_w) = size, k
    rng = np.random.default_rng(seed)
    w_scales = [0.01 + 0.001 * i for i in range(c)]
    out = [1, -(-h // stride), -(-w // stride), c]
    tensors = [
        tb.Tensor("input", [1, h, w, c], tb.INT8, 0, [0.05], [-2]),
        tb.Tensor("filter", [1, k_h, k_w, c], tb.INT8, 1, w_scales, [0] * c, 3),
        tb.Tensor("bias", [c], tb.INT32, 2, [0.05 * s for s in w_scales], [0] * c),
        tb.Tensor("output", out, tb.INT8, 0, [out_q[0]], [out_q[1]]),
    ]
    options = {
        "Padding": tb.PADDING.SAME,
        "StrideH": stride,
        "StrideW": stride,
        "DepthMultiplier": 1,
        "DilationHFactor": dil[0],
        "DilationWFactor": dil[1],
        "FusedActivationFunction": activation,
    }
    op = tb.Operator(0, [0, 1, 2], [3], "DepthwiseConv2DOptions", options)
    filters = rng.integers(-40, 41, size=(1, k_h, k_w, c))
    bias = rng.integers(-2000, 2000, size=c)
    buffers = [tb.Buffer(), tb.Buffer(tb.int8_bytes(filters)), tb.Buffer(tb.int32_bytes(bias))]
    return tb.single_op(tensors, op, tb.OPS.DEPTHWISE_CONV_2D, buffers)


def dw_relu(c: int, size: tuple[int, int], stride: int, seed: int) -> bytes:
    """dw_model under a ReLU with the output zero point -128: line records."""
    return dw_model(c, size, stride, tb.ACT.RELU, (0.03, -128), seed)


# name: model bytes, for Helium's depthwise block routines: every group width (stride 1:
# 1 to 6 outputs; stride 2: 1 to 4), the records of tinyaot_requant_c and the line records of a
# ReLU with zero point -128, a chunk's last 4 or 8 channels (20, 24 channels), and RELU6
# clamping inside int8, which takes the portable routine on every core.
DW_CASES = {
    "dw_c20_s1_w9": lambda: dw_model(20, (5, 9), seed=21),  # groups of 6, 3
    "dw_c24_s1_w7_relu": lambda: dw_relu(24, (4, 7), 1, 22),  # 6, 1
    "dw_c16_s1_w5": lambda: dw_model(16, (4, 5), seed=23),  # 5
    "dw_c8_s1_w8_relu": lambda: dw_relu(8, (3, 8), 1, 24),  # 6, 2
    "dw_c12_s1_w4": lambda: dw_model(12, (3, 4), seed=25),  # 4
    "dw_c40_s2_w9_relu": lambda: dw_relu(40, (7, 9), 2, 26),  # 4, 1
    "dw_c8_s2_w4": lambda: dw_model(8, (5, 4), 2, seed=27),  # 2
    "dw_c12_s2_w6_relu": lambda: dw_relu(12, (4, 6), 2, 28),  # 3
    # RELU6 clamps inside int8: output scale 0.05, 6.0 is 119.
    "dw_c12_relu6": lambda: dw_model(12, (6, 5), activation=tb.ACT.RELU6, out_q=(0.05, -1)),
}


# name: model bytes, for Helium's path of the taps kernel (tinyaot_dwconv_taps_s8): 1xN and Nx1
# windows, stride 2, channels not a multiple of 4 (the predicated last four), a 3x3 window over
# 6 channels, which the 3x3 routines do not take, the ReLU whose zero point is -128 and a clamp
# inside int8.
DW_TAPS_CASES = {
    "dwt_1x5_c10": lambda: dw_model(10, (6, 9), seed=31, k=(1, 5)),
    "dwt_5x1_s2_c12_relu": lambda: dw_model(
        12, (9, 4), 2, tb.ACT.RELU, (0.03, -128), seed=32, k=(5, 1)
    ),
    "dwt_3x3_c6": lambda: dw_model(6, (5, 5), seed=33),
    "dwt_1x3_c3_relu6": lambda: dw_model(
        3, (4, 7), activation=tb.ACT.RELU6, out_q=(0.05, -1), seed=34, k=(1, 3)
    ),
    # A dilated 3x3 window, which the 3x3 routines do not take.
    "dwt_3x3_d2_c16": lambda: dw_model(16, (7, 8), seed=35, dil=(2, 2)),
}


def add_model(
    count: int, activation: int = tb.ACT.NONE, out_q: tuple[float, int] = (0.08, -4)
) -> bytes:
    """One int8 ADD of two [1, count] tensors (scales 0.05 and 0.07, zero points -2 and 5)."""
    tensors = [
        tb.Tensor("a", [1, count], tb.INT8, 0, [0.05], [-2]),
        tb.Tensor("b", [1, count], tb.INT8, 0, [0.07], [5]),
        tb.Tensor("sum", [1, count], tb.INT8, 0, [out_q[0]], [out_q[1]]),
    ]
    model = tb.Model(
        subgraphs=[
            tb.SubGraph(
                tensors=tensors,
                operators=[
                    tb.Operator(
                        0, [0, 1], [2], "AddOptions", {"FusedActivationFunction": activation}
                    )
                ],
                inputs=[0, 1],
                outputs=[2],
            )
        ],
        opcodes=[tb.OpCode(tb.OPS.ADD)],
    )
    return tb.build(model)


# name: model bytes, for Helium's ADD (from fast.ADD_MIN_ELEMENTS elements): whole groups of
# four and a predicated last 3, and RELU6, whose 0 (-4) clamps inside int8.
ADD_CASES = {
    "add_n515": lambda: add_model(515),
    "add_n1024_relu6": lambda: add_model(1024, tb.ACT.RELU6, (0.03, -4)),
}


def binary_model(code: int, shapes: tuple[list[int], list[int], list[int]], act: int = 0) -> bytes:
    """One int8 MUL, MAXIMUM or MINIMUM (code) of shapes (a, b, out). MUL: scales 0.05 and 0.02,
    zero points -7 and 3, output 0.1 and 4 (a multiplier of 1/100: the fast kernel); MAXIMUM and
    MINIMUM one scale and zero point for all three, as TFLite requires."""
    mul = code == tb.OPS.MUL
    quants = [(0.05, -7), (0.02, 3), (0.1, 4)] if mul else [(0.05, -7)] * 3
    tensors = [
        tb.Tensor(name, shape, tb.INT8, 0, [q[0]], [q[1]])
        for name, shape, q in zip(("a", "b", "out"), shapes, quants, strict=True)
    ]
    options = ("MulOptions", {"FusedActivationFunction": act}) if mul else ("", {})
    op = tb.Operator(0, [0, 1], [2], *options)
    model = tb.Model(
        subgraphs=[tb.SubGraph(tensors=tensors, operators=[op], inputs=[0, 1], outputs=[2])],
        opcodes=[tb.OpCode(code)],
    )
    return tb.build(model)


# name: model bytes, for Helium's rows of MUL (fast kernel), MAXIMUM and MINIMUM: a broadcast
# per-channel operand, a broadcast scalar first operand, rows whose length is not a multiple of
# the vector (4 lanes for MUL, 16 for the others), inputs broadcast along outer dims, RELU6.
MUL, MAXI, MINI = tb.OPS.MUL, tb.OPS.MAXIMUM, tb.OPS.MINIMUM
ELEMENTWISE_CASES = {
    "mul_c6_channel": lambda: binary_model(MUL, ([1, 5, 7, 6], [6], [1, 5, 7, 6])),
    "mul_scalar_c20_relu6": lambda: binary_model(
        MUL, ([1], [1, 3, 4, 20], [1, 3, 4, 20]), tb.ACT.RELU6
    ),
    "max_c20_channel": lambda: binary_model(MAXI, ([1, 5, 4, 20], [1, 1, 1, 20], [1, 5, 4, 20])),
    "min_outer_c7": lambda: binary_model(MINI, ([1, 3, 1, 7], [1, 1, 5, 7], [1, 3, 5, 7])),
}


def pool_model(
    c: int,
    size: tuple[int, int],
    k: int,
    stride: int,
    activation: int = tb.ACT.NONE,
    out_q: tuple[float, int] = (0.05, -3),
    op: int = tb.OPS.AVERAGE_POOL_2D,
) -> bytes:
    """One int8 AVERAGE_POOL_2D (or op) of c channels over size = (h, w), a k x k window,
    SAME."""
    (h, w), q = size, ([0.05], [-3])
    out = [1, -(-h // stride), -(-w // stride), c]
    options = {
        "Padding": tb.PADDING.SAME,
        "StrideW": stride,
        "StrideH": stride,
        "FilterWidth": k,
        "FilterHeight": k,
        "FusedActivationFunction": activation,
    }
    model = tb.Model(
        subgraphs=[
            tb.SubGraph(
                tensors=[
                    tb.Tensor("input", [1, h, w, c], tb.INT8, 0, *q),
                    tb.Tensor("output", out, tb.INT8, 0, [out_q[0]], [out_q[1]]),
                ],
                operators=[tb.Operator(0, [0], [1], "Pool2DOptions", options)],
                inputs=[0],
                outputs=[1],
            )
        ],
        opcodes=[tb.OpCode(op)],
    )
    return tb.build(model)


# name: model bytes, for Helium's AVERAGE_POOL_2D and MAX_POOL_2D: chunks of 16 channels and a
# last one of 4 (predicated loads and stores), windows clipped by the padding (other counts, so
# other reciprocals), a global pool over 125 cells as KWS's, and RELU6 clamping inside int8
# (output scale 0.05: 6.0 is 117 over -3).
MAX = tb.OPS.MAX_POOL_2D
POOL_CASES = {
    "avg_3x3_s2_c36": lambda: pool_model(36, (7, 6), 3, 2),
    "avg_global_c24_relu6": lambda: pool_model(24, (25, 5), 25, 25, tb.ACT.RELU6),
    # Over 4096 cells (the scalar division) and one cell (no division), in chunks of 4 and 20.
    "avg_global_c4_4225": lambda: pool_model(4, (65, 65), 65, 65),
    "avg_1x1_s2_c20": lambda: pool_model(20, (5, 6), 1, 2),
    "max_2x2_s2_c20": lambda: pool_model(20, (7, 6), 2, 2, out_q=(0.05, -3), op=MAX),
    "max_3x3_s2_c36_relu6": lambda: pool_model(36, (7, 6), 3, 2, tb.ACT.RELU6, op=MAX),
}
CASES = {**FC_CASES, **CONV_CASES, **DW_CASES, **DW_TAPS_CASES, **POOL_CASES, **ADD_CASES}
CASES |= ELEMENTWISE_CASES


@pytest.fixture(scope="module")
def models(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("mve_models")
    paths = {}
    for name, build in CASES.items():
        paths[name] = root / f"{name}.tflite"
        paths[name].write_bytes(build())
    return paths


def compiled(path: Path) -> Compiled:
    return compile_graph(frontend.load(path), Options(name="m"), path.name)


def test_fc_mve_layout(models: dict[str, Path]) -> None:
    """Each block's four units with their depth weights in a row: the model's own weights,
    in fast.block_channels' order (the highest block the last four units, or zero units)."""
    for name in FC_CASES:
        path = models[name]
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


def test_conv_mve_routine_and_layout(models: dict[str, Path]) -> None:
    """On Helium, every fast convolution but the shallow one names the one-pass routine where
    its runs are whole steps of 16 inputs (1x1 windows, rows of k_w * in_c a multiple of 16,
    taps of in_c a multiple of 16 where the columns are dilated),
    per block each 16 inputs' weights of the four channels in turn, then their depth % 16 last
    ones, on the vector table (line 0), the _relu variant where the clamp hides every output
    under the zero point; else tinyaot_conv_pairs_mve, each channel's weights in a row (in block
    order), the line tables where the ReLU gives them. The shallow one takes the DSP routine and
    its layout (mve None)."""
    one_pass = {"conv_1x1_c32_oc24", "conv_1x1_c16_oc8", "conv_3x3_s2_c16_oc6"}
    one_pass |= {"conv_1x1_c8_oc3", "conv_1x1_c20_oc10_relu", "conv_3x3_d2_c32_oc8"}
    # Every window copied to the patch (rows of 4 and 3 bytes): one run of the whole depth.
    patched = {"conv_10x4_s2_c1_oc12", "conv_3x3_c1_oc8"}
    for name in CONV_CASES:
        c = compiled(models[name])
        call = c.steps[-1].call
        assert call.function == CONV, name
        params = call.params
        if name == "conv_1x1_c4_oc8":
            assert params["pairs"].mve is None and params["weights"].mve is None
            assert params["pairs"].dsp == Routine("tinyaot_conv_pairs_dsp16")
            continue
        assert params["single"] is None or params["single"].mve is None, name
        model = frontend.load(models[name])
        w = model.tensor(model.ops[0].inputs[1]).data.astype(np.int8)
        out_c = w.shape[0]
        w = w.reshape(out_c, -1)
        depth = w.shape[1]
        order = fast.block_channels(out_c)
        want = fast.padded(w[order], 4 * ((out_c + 3) // 4))
        got = params["weights"].mve.values
        if name not in one_pass | patched:
            assert params["pairs"].mve == Routine("tinyaot_conv_pairs_mve"), name
            assert np.array_equal(got.reshape(want.shape), want), name
            continue
        mode = params["mode"]
        if isinstance(mode, ByTarget):
            mode = mode.dsp if mode.mve is None else mode.mve
        if name in patched:  # tinyaot/conv_fast.h: PATCH is 0
            assert mode == 0, name
        relu = "_relu" if "_relu" in name else ""
        assert params["pairs"].mve == Routine(f"tinyaot_conv_pairs_mve16{relu}"), name
        assert params["line"].mve == 0, name
        at = 0
        for block in want.reshape(-1, 4, depth):
            for step in range(0, depth - depth % 16, 16):
                for row in block:
                    assert np.array_equal(got[at : at + 16], row[step : step + 16]), name
                    at += 16
            for row in block:
                tail = row[depth - depth % 16 :]
                assert np.array_equal(got[at : at + tail.size], tail), name
                at += tail.size
        assert at == got.size, name
    line = compiled(models["conv_1x1_c20_oc10_relu"]).steps[-1].call.params["line"]
    assert line.default == 1 and line.mve == 0


def test_conv_vector_table(models: dict[str, Path]) -> None:
    """The vector table of a one-pass case: per block the folded biases, left shifts,
    multipliers, minus the right shifts and the output zero point, TFLite's own multipliers
    and shifts, the padding channels all zero."""
    path = models["conv_1x1_c8_oc3"]
    params = compiled(path).steps[-1].call.params
    table = params["table"].mve.values.reshape(-1, 5, 4)
    assert table.shape[0] == 1
    model = frontend.load(path)
    op = model.ops[0]
    inp, filt, bias, out = (model.tensor(i) for i in [*op.inputs, *op.outputs])
    w = filt.data.astype(np.int64).reshape(3, -1)
    folded = bias.data.astype(np.int64) - inp.zero_point * w.sum(axis=1)
    assert table[0, 0].tolist() == [*folded.tolist(), 0]
    for ch in range(3):
        scale = inp.scale * filt.quant.scales[ch] / out.scale
        mant, exp = np.frexp(scale)
        mult = int(round(mant * (1 << 31)))
        left, mult_got, neg_right = table[0, 1, ch], table[0, 2, ch], table[0, 3, ch]
        assert (mult_got, int(left) + int(neg_right)) == (mult, exp), ch
        assert min(left, -neg_right) == 0, ch
    assert table[0, 1:4, 3].tolist() == [0, 0, 0]
    assert table[0, 4].tolist() == [out.zero_point] * 3 + [0]


def check_vector_records(path: Path, records: np.ndarray) -> None:
    """Per four channels, 32 words: each tap's weights of the four channels as the bytes of a
    word, the folded biases, left shifts, multipliers, minus the right shifts and the output
    zero point, three zero words."""
    model = frontend.load(path)
    op = model.ops[0]
    inp, filt, bias, out = (model.tensor(i) for i in [*op.inputs, *op.outputs])
    c = filt.shape[-1]
    taps = filt.data.astype(np.int8).reshape(9, c)
    blocks = records.reshape(c // 4, 32)
    assert np.array_equal(
        blocks[:, :9].view(np.int8).reshape(c // 4, 9, 4),
        taps.reshape(9, c // 4, 4).transpose(1, 0, 2),
    ), path.name
    folded = bias.data.astype(np.int64) - inp.zero_point * taps.astype(np.int64).sum(axis=0)
    assert np.array_equal(blocks[:, 9:13].reshape(-1), folded), path.name
    for ch in range(c):
        scale = inp.scale * filt.quant.scales[ch] / out.scale
        mant, exp = np.frexp(scale)
        left, mult, neg_right = (int(blocks[ch // 4, w + ch % 4]) for w in (13, 17, 21))
        assert (mult, left + neg_right, min(left, -neg_right)) == (
            int(round(mant * (1 << 31))),
            exp,
            0,
        ), (path.name, ch)
    assert set(blocks[:, 25:29].reshape(-1).tolist()) == {out.zero_point}, path.name
    assert not blocks[:, 29:].any(), path.name


def test_dw_mve_routines(models: dict[str, Path]) -> None:
    """The depthwise cases take the fast kernel, Helium's routine for the stride (_relu for
    the output zero point -128) for the group and the tail alike, on the vector records (line
    0 there), and the group widths their comments say; the clamp inside int8 the portable
    routine, on the default records everywhere."""
    for name in DW_CASES:
        call = compiled(models[name]).steps[-1].call
        assert call.function == "tinyaot_dwconv_fast_s8", name
        params = call.params
        if name == "dw_c12_relu6":
            assert params["block"] == Routine("tinyaot_dw3x3_c")
            assert not isinstance(params["records"], ByTarget)
            continue
        stride = params["d"]["stride_w"]
        assert params["line"].default == ("relu" in name) and params["line"].mve == 0, name
        mve = Routine(f"tinyaot_dw3x3_mve_{'relu_' if 'relu' in name else ''}s{stride}")
        routines = [params["block"]] + ([params["tail"]] if params["tail"] else [])
        assert all(r.mve == mve for r in routines), name
        check_vector_records(models[name], params["records"].mve.values)
    widths = {"dw_c20_s1_w9": (6, 3), "dw_c24_s1_w7_relu": (6, 1), "dw_c16_s1_w5": (5, 0)}
    widths |= {"dw_c8_s1_w8_relu": (6, 2), "dw_c12_s1_w4": (4, 0), "dw_c40_s2_w9_relu": (4, 1)}
    widths |= {"dw_c8_s2_w4": (2, 0), "dw_c12_s2_w6_relu": (3, 0)}
    for name, (group, tail) in widths.items():
        params = compiled(models[name]).steps[-1].call.params
        out_w = params["d"]["out_w"]
        assert (params["group"], out_w % params["group"]) == (group, tail), name


def test_dw_taps_vector_table(models: dict[str, Path]) -> None:
    """The taps cases take tinyaot_dwconv_taps_s8, whose table on Helium's cores is the vector
    table (line 0 there): per four channels the folded biases, left shifts, multipliers, minus
    the right shifts and the output zero point, the padding channels zero."""
    for name in DW_TAPS_CASES:
        path = models[name]
        call = compiled(path).steps[-1].call
        assert call.function == "tinyaot_dwconv_taps_s8", name
        assert call.params["line"].mve == 0, name
        table = call.params["table"].mve.values.reshape(-1, 5, 4)
        model = frontend.load(path)
        op = model.ops[0]
        inp, filt, bias, out = (model.tensor(i) for i in [*op.inputs, *op.outputs])
        c = filt.shape[-1]
        taps = filt.data.astype(np.int64).reshape(-1, c)
        folded = bias.data.astype(np.int64) - inp.zero_point * taps.sum(axis=0)
        words = table.transpose(0, 2, 1).reshape(-1, 5)
        assert np.array_equal(words[:c, 0], folded), name
        for ch in range(c):
            mant, exp = np.frexp(inp.scale * filt.quant.scales[ch] / out.scale)
            left, mult, neg_right = (int(x) for x in words[ch, 1:4])
            want = (int(round(mant * (1 << 31))), exp, 0)
            assert (mult, left + neg_right, min(left, -neg_right)) == want, (name, ch)
        assert set(words[:c, 4].tolist()) == {out.zero_point}, name
        assert not words[c:].any(), name


def test_pool_and_elementwise_cases_run_their_kernels(models: dict[str, Path]) -> None:
    """The pooling, ADD, MUL, MAXIMUM and MINIMUM cases are the kernels with a Helium path (the
    int8 pooling kernels, the fast ADD and MUL), not a rewrite into another op."""
    for name in POOL_CASES:
        kernel = "tinyaot_max_pool_s8" if name.startswith("max") else "tinyaot_avg_pool_s8"
        assert compiled(models[name]).steps[-1].call.function == kernel, name
    for name in ADD_CASES:
        assert compiled(models[name]).steps[-1].call.function == "tinyaot_add_fast_s8", name
    kernels = {"mul": "tinyaot_mul_fast_s8", "max": "tinyaot_maximum_s8"}
    kernels["min"] = "tinyaot_minimum_s8"
    for name in ELEMENTWISE_CASES:
        function = compiled(models[name]).steps[-1].call.function
        assert function == kernels[name[:3]], name


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
