"""The fast int8 kernels (conv_fast, dwconv_fast, fully_connected_fast) against TFLite Micro.

Each case is a one-op model built with TensorFlow, chosen to reach one path of a kernel or
one of its borders: strides, SAME/VALID padding, odd pixel counts, output channels that do not
fill a block, channel chunks, rows narrower than a group, clipped windows (patch) and long
ones (per-tap runs), activation clamps narrower than int8 (the portable C loops). Each model
runs as compiled, and again with its output moved onto its input at exactly the overlap gap
inplace.py computed, forward and in reverse: on the host (the C versions) and on the emulated
Cortex-M3 (the Thumb-2 loops). Every output must equal TFLite Micro's byte for byte.
"""

from __future__ import annotations

import dataclasses
import itertools
import sys
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pytest
import tensorflow as tf
import tflite_builder as tb
import tfmodels
from harness import REPO, split_outputs
from host import runner as host
from reference import MODELS as SHARED
from reference import Reference
from tfmodels import conv, dwconv
from tinyaot import codegen, fast, frontend, inplace, planner
from tinyaot.compiler import Compiled, Options, compile_graph
from tinyaot.lowering import ByTarget, KernelCall, Routine
from tinyaot.ops.conv_2d import DSP16_DEPTH, MVE_MIN_DEPTH, PATCH, ROWS
from tinyaot.ops.depthwise_conv_2d import dw3x3_dsp_records

sys.path.insert(0, str(Path(__file__).resolve().parent / "cortex_m3"))
import runner as m3  # noqa: E402

CONV, DWCONV, FC = "tinyaot_conv_fast_s8", "tinyaot_dwconv_fast_s8", "tinyaot_fc_fast_s8"
DW_TAPS = "tinyaot_dwconv_taps_s8"
# A convolution handed a scratch of the arena to widen its inputs into (deep DSP windows).
WIDE = "tinyaot_conv_fast_wide_s8"
SETS = 3


def avg_pool(k: int, s: int, padding: str):
    return lambda x: tf.keras.layers.AveragePooling2D(k, strides=s, padding=padding)(x)


def max_pool(k: int, s: int, padding: str):
    return lambda x: tf.keras.layers.MaxPooling2D(k, strides=s, padding=padding)(x)


def pooled(layer: Callable) -> Callable:
    """layer after a 2x2 max pool: the pool's step is the arena's peak, so that a scratch of
    layer's step costs the arena nothing."""
    return lambda x: layer(max_pool(2, 2, "valid")(x))


def padded(pads: tuple[tuple[int, int], tuple[int, int]], layer: Callable) -> Callable:
    """layer after Keras's ZeroPadding2D: a PAD that becomes the layer's padding (pad_fold.py)."""
    return lambda x: layer(tf.keras.layers.ZeroPadding2D(pads)(x))


def dense(units: int, act: str | None = None):
    return lambda x: tf.keras.layers.Dense(units, activation=act)(x)


# name: (layers, input shape, the kernel it must lower to)
CASES: dict[str, tuple[Callable, list[int], str]] = {
    # Pointwise: one run per pixel, read in place.
    "conv_1x1": (conv(24, (1, 1), 1, "same"), [1, 5, 7, 16], CONV),
    # Pointwise over 12 channels: runs of 16q + 12 bytes enter the DSP loop at its last step.
    "conv_1x1_c12": (conv(8, (1, 1), 1, "same"), [1, 3, 5, 12], CONV),
    # Pointwise with stride 2, nine pixels (the last pair is one pixel).
    "conv_1x1_s2": (conv(12, (1, 1), 2, "same"), [1, 6, 6, 8], CONV),
    # The last of 15 pixels alone (the pixel routine): runs of 6 bytes (a 4-step group and two
    # single steps) and of 3 (single steps only).
    "conv_1x1_odd_k6": (conv(8, (1, 1), 1, "same"), [1, 3, 5, 6], CONV),
    "conv_1x1_odd_k3": (conv(4, (1, 1), 1, "same"), [1, 5, 3, 3], CONV),
    # Three input channels: whole windows read in place, clipped ones copied.
    "conv_3x3_c3": (conv(8, (3, 3), 1, "same"), [1, 7, 6, 3], CONV),
    # Windows that are not whole words, with MACs enough per pixel (conv_2d.PAD4_MIN_MACS): on
    # DSP cores the patch, read padded to 28 and 64 inputs; the second a partial block.
    "conv_3x3_c3_oc16": (conv(16, (3, 3), 1, "same"), [1, 7, 6, 3], CONV),
    "conv_3x3_c7_oc10": (conv(10, (3, 3), 1, "same"), [1, 6, 5, 7], CONV),
    # Output channels not a multiple of four: the highest block is the last four channels,
    # stored two bytes early (tinyaot_conv_pairs_part).
    "conv_3x3_s2_oc6": (conv(6, (3, 3), 2, "same"), [1, 9, 9, 16], CONV),
    # Even rows of whole windows: a row's pairs in one job (all of them; the first three of
    # four, the last window being clipped).
    "conv_3x3_valid_w10": (conv(8, (3, 3), 1, "valid"), [1, 5, 12, 8], CONV),
    "conv_3x3_s2_w8": (conv(8, (3, 3), 2, "same"), [1, 7, 16, 4], CONV),
    # Windows over 128 bytes, never clipped.
    "conv_3x3_valid_c40": (conv(8, (3, 3), 1, "valid"), [1, 6, 5, 40], CONV),
    # Windows over 128 bytes, clipped: per-tap runs.
    "conv_3x3_same_c40": (conv(8, (3, 3), 1, "same"), [1, 5, 5, 40], CONV),
    # Windows deeper than conv_2d.DSP16_DEPTH where a scratch is free (after a pool): on DSP
    # cores the routine that widens a pair's inputs once, into it. A 3x3 over 16 channels (144
    # inputs, clipped windows a tap per run); a 1x1 over 160 into 6 (a partial block, 25 pixels,
    # the last alone).
    "conv_3x3_c16_wide": (pooled(conv(8, (3, 3), 1, "same")), [1, 24, 24, 16], WIDE),
    "conv_1x1_c160_oc6_wide": (pooled(conv(6, (1, 1), 1, "same")), [1, 10, 10, 160], WIDE),
    # One input channel, short rows: every window copied (KWS's first layer).
    "conv_10x4_s2_c1": (conv(12, (10, 4), 2, "same"), [1, 13, 10, 1], CONV),
    # micro_speech's windows, rows of 8 bytes over an even output width: in place, but the
    # patch (two words a row) where the DSP kernels are built.
    "conv_10x8_s2_c1": (conv(8, (10, 8), 2, "same"), [1, 20, 16, 1], CONV),
    # Whole windows copied to the patch in rows that are not whole words: rows of 2 bytes (a
    # byte at a time, the window's last word padded with the zero point) and, over an odd
    # width, of 6 (words, the last one ending on the row's last byte).
    "conv_3x2_c1": (conv(8, (3, 2), 1, "same"), [1, 7, 6, 1], CONV),
    "conv_2x3_c2_odd": (conv(8, (2, 3), 1, "same"), [1, 6, 7, 2], CONV),
    # One input channel, rows of 3 and 5 bytes read in place (clipped windows: the patch).
    "conv_3x3_c1": (conv(8, (3, 3), 1, "same"), [1, 9, 7, 1], CONV),
    "conv_5x5_s2_c1": (conv(8, (5, 5), 2, "same"), [1, 13, 11, 1], CONV),
    # 25 taps: clipped windows are copied to the patch.
    "conv_5x5": (conv(8, (5, 5), 1, "same"), [1, 7, 7, 4], CONV),
    # Dilated windows (TF's converter emits them as such; Keras allows no stride with them, see
    # BUILT_CASES): columns 3 apart are runs of a tap, clipped windows copied to the patch tap
    # by tap; over 40 channels (360 bytes) clipped windows read in place, the zero point's run
    # where a tap is outside; a causal dilated Conv1D's 1x3 (VALID after its PAD), every window
    # whole, a row's pairs in one job; rows dilated only, of one channel (copied).
    "conv_3x3_d23": (conv(8, (3, 3), 1, "same", d=(2, 3)), [1, 9, 10, 8], CONV),
    "conv_3x3_d2_c40": (conv(8, (3, 3), 1, "same", d=2), [1, 7, 8, 40], CONV),
    "conv_1x3_d4_valid": (conv(8, (1, 3), 1, "valid", d=(1, 4)), [1, 2, 20, 8], CONV),
    "conv_5x1_d3_c1": (conv(8, (5, 1), 1, "same", d=(3, 1)), [1, 16, 6, 1], CONV),
    # ReLU6: TF's converter gives the output the range [0, 6], so the clamp is all of int8
    # (BUILT_CASES below clamp inside it).
    "conv_relu6": (conv(8, (3, 3), 1, "same", "relu6"), [1, 6, 6, 8], CONV),
    # ReLU (zero point -128) gives line tables (fast.line_entry): pointwise with an odd pixel
    # (the pixel routine), single steps of the pixel routine, a partial block
    # (tinyaot_conv_pairs_line_part), pointwise with a partial block and an odd pixel (the
    # lone pixel through the _part pair routine).
    "conv_1x1_relu": (conv(24, (1, 1), 1, "same", "relu"), [1, 5, 7, 16], CONV),
    "conv_1x1_odd_k6_relu": (conv(8, (1, 1), 1, "same", "relu"), [1, 3, 5, 6], CONV),
    "conv_3x3_s2_oc6_relu": (conv(6, (3, 3), 2, "same", "relu"), [1, 9, 9, 16], CONV),
    "conv_1x1_oc10_relu": (conv(10, (1, 1), 1, "same", "relu"), [1, 3, 5, 8], CONV),
    # Depthwise: a row of five, four chunks of 16 channels (KWS's shape).
    "dw_s1_w5": (dwconv((3, 3), 1, "same"), [1, 5, 5, 64], DWCONV),
    # Stride 2 with a padded right column, eight channels.
    "dw_s2": (dwconv((3, 3), 2, "same"), [1, 9, 8, 8], DWCONV),
    # A 4-channel chunk tail; rows of nine in groups of four.
    "dw_valid_c20": (dwconv((3, 3), 1, "valid"), [1, 6, 11, 20], DWCONV),
    # 128 channels: groups of two pixels.
    "dw_c128": (dwconv((3, 3), 1, "same"), [1, 3, 6, 128], DWCONV),
    # One column: every window is clipped on both sides.
    "dw_w1": (dwconv((3, 3), 1, "same"), [1, 4, 1, 8], DWCONV),
    # Stride 2, VALID, rows of three.
    "dw_s2_valid": (dwconv((3, 3), 2, "valid"), [1, 7, 7, 24], DWCONV),
    "dw_relu6": (dwconv((3, 3), 1, "same", act="relu6"), [1, 6, 6, 16], DWCONV),
    # Line records: stride 2 with tails of 1, and a partial chunk (the C chunk loop).
    "dw_s2_w5_relu": (dwconv((3, 3), 2, "same", act="relu"), [1, 5, 10, 8], DWCONV),
    "dw_valid_c20_relu": (dwconv((3, 3), 1, "valid", act="relu"), [1, 6, 11, 20], DWCONV),
    # Line records in a group of 6 and a tail of 5 (the DSP routines requantise them by SMMLA).
    "dw_s1_w11_relu": (dwconv((3, 3), 1, "same", act="relu"), [1, 3, 11, 8], DWCONV),
    # The other block widths: 4, then 6 with a tail of 2 (12 channels: one partial chunk);
    # stride 2: 4 with tails of 1 and 2.
    "dw_s1_w4": (dwconv((3, 3), 1, "same"), [1, 3, 4, 16], DWCONV),
    "dw_s1_w8_c12": (dwconv((3, 3), 1, "same"), [1, 4, 8, 12], DWCONV),
    "dw_s2_w5": (dwconv((3, 3), 2, "same"), [1, 5, 10, 8], DWCONV),
    "dw_s2_w10": (dwconv((3, 3), 2, "same"), [1, 4, 20, 16], DWCONV),
    # Six outputs at stride 2: two groups of 3 rather than 4 and a tail of 2.
    "dw_s2_w6": (dwconv((3, 3), 2, "same"), [1, 4, 12, 16], DWCONV),
    # Other windows (tinyaot_dwconv_taps_s8): 1x5 over 24 channels; 5x1 at stride 2 over 10
    # channels, a last chunk of two, with line words.
    "dw_1x5": (dwconv((1, 5), 1, "same"), [1, 2, 9, 24], DW_TAPS),
    "dw_5x1_s2_c10_relu": (dwconv((5, 1), 2, "same", act="relu"), [1, 9, 3, 10], DW_TAPS),
    # Dilated 3x3 windows, which the 3x3 routines do not take; one input channel into four.
    "dw_3x3_d2": (dwconv((3, 3), 1, "same", d=2), [1, 9, 9, 16], DW_TAPS),
    "dw_c1_mult4_d2": (dwconv((3, 3), 1, "same", mult=4, d=(2, 1)), [1, 8, 8, 1], CONV),
    # A PAD before the window, folded into its padding (a strided "same" layer as TensorFlow
    # exports it, then uneven borders): the fast kernels take the sum of both paddings.
    "conv_3x3_s2_c3_folded": (
        padded(((1, 1), (1, 1)), conv(16, (3, 3), 2, "valid")),
        [1, 12, 11, 3],
        CONV,
    ),
    "conv_3x3_folded_uneven": (
        padded(((2, 0), (0, 1)), conv(8, (3, 3), 1, "same")),
        [1, 6, 7, 8],
        CONV,
    ),
    "dw_s2_folded": (padded(((0, 1), (0, 1)), dwconv((3, 3), 2, "valid")), [1, 10, 12, 16], DWCONV),
    "dw_folded_uneven_relu": (
        padded(((2, 1), (1, 2)), dwconv((3, 3), 1, "valid", act="relu")),
        [1, 5, 7, 16],
        DWCONV,
    ),
    # Two images: groups and pixel pairs run on across the batch.
    "dw_batch2": (dwconv((3, 3), 1, "same"), [2, 3, 5, 16], DWCONV),
    "conv_3x3_batch2": (conv(8, (3, 3), 1, "same"), [2, 3, 5, 8], CONV),
    # One input channel and a multiplier of 8 is a convolution (micro_speech's layer).
    "dw_c1_mult8": (dwconv((4, 3), 2, "same", mult=8), [1, 11, 9, 1], CONV),
    # The reference AVERAGE_POOL_2D, four channels at a time or (6 channels) one: clipped
    # windows, and in place like the kernels above.
    "avg_pool_c8": (avg_pool(3, 2, "same"), [1, 7, 6, 8], "tinyaot_avg_pool_s8"),
    "avg_pool_c6": (avg_pool(2, 1, "same"), [1, 5, 5, 6], "tinyaot_avg_pool_s8"),
    # MAX_POOL_2D four channels at a time (one packed word with the DSP extension) and the
    # last channels % 4 one at a time: clipped windows, and in place.
    "max_pool_c8": (max_pool(3, 2, "same"), [1, 7, 6, 8], "tinyaot_max_pool_s8"),
    "max_pool_c12": (max_pool(2, 2, "valid"), [1, 6, 9, 12], "tinyaot_max_pool_s8"),
    "max_pool_c7": (max_pool(2, 2, "same"), [1, 7, 9, 7], "tinyaot_max_pool_s8"),
    "max_pool_c2_s1": (max_pool(3, 1, "same"), [1, 5, 6, 2], "tinyaot_max_pool_s8"),
    "fc_12": (dense(12), [1, 100], FC),
    "fc_batches_relu": (dense(8, "relu"), [3, 130], FC),
    # Units not a multiple of four: the highest block is the last four (6 units, a depth with
    # a tail for the DSP loop), or zero weights fill it (3 units, two batch rows).
    "fc_6": (dense(6), [1, 201], FC),
    "fc_3_batches": (dense(3), [2, 343], FC),
}
ADD = "tinyaot_add_fast_s8"
# name: (function of two inputs, their shapes, the kernel it must lower to)
ADD_CASES: dict[str, tuple[Callable, list[list[int]], str]] = {
    "add": (lambda x, y: x + y, [[1, 8, 8, 16], [1, 8, 8, 16]], ADD),
    "add_relu": (lambda x, y: tf.nn.relu(x + 2.0 * y), [[2, 16, 20], [2, 16, 20]], ADD),
    # Broadcasting keeps the reference kernel.
    "add_broadcast": (lambda x, y: x + y, [[1, 4, 4, 8], [1, 1, 1, 8]], "tinyaot_add_s8"),
}


def hand_conv(
    c: tuple[int, int],
    k: int,
    size: int,
    act: int,
    out_q: tuple[float, int],
    seed: int,
    stride: int = 1,
    dil: tuple[int, int] = (1, 1),
) -> bytes:
    """A SAME CONV_2D of c = (in, out) channels, k x k dilated by dil, over size x size, with
    small weights so that outputs spread over the range; out_q: the output's scale and zero
    point."""
    c_in, c_out = c
    rng = np.random.default_rng(seed)
    w_scales = [0.016 + 0.002 * i for i in range(c_out)]
    out = -(-size // stride)
    tensors = [
        tb.Tensor("input", [1, size, size, c_in], tb.INT8, 0, [0.05], [1]),
        tb.Tensor("filter", [c_out, k, k, c_in], tb.INT8, 1, w_scales, [0] * c_out),
        tb.Tensor("bias", [c_out], tb.INT32, 2, [0.05 * s for s in w_scales], [0] * c_out),
        tb.Tensor("output", [1, out, out, c_out], tb.INT8, 0, [out_q[0]], [out_q[1]]),
    ]
    options = {
        "Padding": tb.PADDING.SAME,
        "StrideH": stride,
        "StrideW": stride,
        "DilationHFactor": dil[0],
        "DilationWFactor": dil[1],
        "FusedActivationFunction": act,
    }
    op = tb.Operator(0, [0, 1, 2], [3], "Conv2DOptions", options)
    return tb.build(
        tb.Model(
            subgraphs=[tb.SubGraph(tensors, [op], [0], [3])],
            opcodes=[tb.OpCode(tb.OPS.CONV_2D)],
            buffers=[
                tb.Buffer(),
                tb.Buffer(tb.int8_bytes(rng.integers(-4, 5, size=(c_out, k, k, c_in)))),
                tb.Buffer(tb.int32_bytes(rng.integers(-300, 300, size=c_out))),
            ],
        )
    )


def conv_shift1() -> bytes:
    """A pointwise CONV_2D with a fused RELU (output zero point -128) whose scales put every
    channel's multiplier at a right shift of 1, which neither the line nor requant_entry can
    do: fast.one_sided's words. Six channels (tinyaot_conv_pairs_part), 25 pixels (a lone
    last one)."""
    return hand_conv((8, 6), 1, 5, tb.ACT.RELU, (0.003, -128), 5)


def conv_relu6(c_out: int, k: int, size: int) -> Callable[[], bytes]:
    """A CONV_2D whose RELU6 clamps inside int8 (output scale 0.05: 6.0 is 119), so that the
    Thumb-2 routines saturate and clamp_after narrows."""
    return lambda: hand_conv((4, c_out), k, size, tb.ACT.RELU6, (0.05, -1), c_out)


# Hand-built models (tests/tflite_builder.py): "clamped" ones, whose RELU6 clamps inside int8,
# which TF's converter does not produce (the portable routines on every target), and
# quantisations it does not choose.
# name: (the model, the kernel it must lower to)
BUILT_CASES: dict[str, tuple[Callable[[], bytes], str]] = {
    "conv_clamped": (lambda: tb.build(tb.conv2d(tb.ACT.RELU6, tb.PADDING.SAME, size=8)), CONV),
    "dw_clamped": (lambda: tb.build(tb.depthwise_conv2d(tb.ACT.RELU6)), DWCONV),
    "conv_shift1": (conv_shift1, CONV),
    # Whole blocks and 49 pixels (the pixel routine; runs of 4 bytes: the DSP routine);
    # six channels (_part); ten channels over 3x3 windows, 25 pixels (the DSP _part routine
    # with three blocks, the highest moved back two bytes, and a lone last pixel).
    "conv_relu6_c8": (conv_relu6(8, 3, 7), CONV),
    "conv_relu6_c6": (conv_relu6(6, 1, 5), CONV),
    "conv_relu6_c10": (conv_relu6(10, 3, 5), CONV),
    # Under four channels (tinyaot_conv_pairs_c1 and _c2): a 3x3 over five input channels,
    # 49 pixels; a detection head's pointwise two channels over 48.
    "conv_c1": (lambda: hand_conv((5, 1), 3, 7, tb.ACT.NONE, (0.08, 5), 11), CONV),
    "conv_1x1_c2": (lambda: hand_conv((48, 2), 1, 6, tb.ACT.RELU, (0.05, -128), 12), CONV),
    # Stride and dilation at once, which Keras does not build but TFLite runs: stride 2 with
    # dilation 2x3 over 8 channels (the patch for clipped windows), and over 24 channels (216
    # bytes: taps read in place) with a ReLU (line tables) over 3 output channels.
    "conv_s2_d23": (
        lambda: hand_conv((8, 8), 3, 11, tb.ACT.NONE, (0.08, 3), 13, 2, (2, 3)),
        CONV,
    ),
    "conv_s2_d32_c24_relu": (
        lambda: hand_conv((24, 3), 3, 10, tb.ACT.RELU, (0.05, -128), 14, 2, (3, 2)),
        CONV,
    ),
    # MAX_POOL_2D's clamp at both ends of a RELU6 (3x3 SAME, stride 2), over a four and three
    # single channels.
    "max_pool_relu6_c7": (
        lambda: tb.max_pool2d(True, tb.ACT.RELU6, [1, 7, 9, 7]),
        "tinyaot_max_pool_s8",
    ),
}
PLACEMENTS = ["planned", "forward", "reverse"]


@pytest.fixture(scope="module")
def models(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("fast_models")
    paths = {}
    for name, (layers, shape, _) in CASES.items():
        path = root / f"{name}.tflite"
        path.write_bytes(tfmodels.keras(layers, shape, int8=True, seed=len(name)))
        paths[name] = path
    for name, (fn, shapes, _) in ADD_CASES.items():
        path = root / f"{name}.tflite"
        path.write_bytes(tfmodels.convert(fn, shapes, int8=True, seed=len(name), low=-2.0))
        paths[name] = path
    for name, (build, _) in BUILT_CASES.items():
        path = root / f"{name}.tflite"
        path.write_bytes(build())
        paths[name] = path
    return paths


def expected_kernel(name: str) -> str:
    if name in BUILT_CASES:
        return BUILT_CASES[name][1]
    return CASES[name][2] if name in CASES else ADD_CASES[name][2]


def compiled(path: Path, placement: str) -> Compiled:
    """The model compiled; for forward/reverse, its output re-placed at the overlap gap."""
    c = compile_graph(frontend.load(path), Options(name="m"), path.name)
    if placement == "planned":
        return c
    activations = [
        t for s in c.steps for t in s.op.inputs if t is not None and not c.graph.tensors[t].is_const
    ]
    if len(c.steps) != 1 or len(activations) != 1 or not c.steps[0].call.inplace:
        pytest.skip("placed by the planner only (no overlap, or several activation inputs)")
    step = c.steps[0]
    rule = step.call.inplace[0]
    inp, out = c.root[step.op.inputs[0]], c.root[step.op.outputs[0]]
    size_in, size_out = c.plan.buffers[inp].size, c.plan.buffers[out].size
    # The closest placement the rule allows: its gap, rounded up to its modulus.
    m = rule.modulus
    if placement == "forward":
        gap = -(-max(rule.forward, -size_out) // m) * m
        offsets = {inp: max(gap, 0) + 8, out: max(gap, 0) + 8 - gap}
        reverse = 0
    else:
        assert rule.reverse is not None
        gap = -(-max(rule.reverse, -size_in) // m) * m
        offsets = {inp: max(-gap, 0) + 8, out: max(-gap, 0) + 8 + gap}
        reverse = 1
    step.call.params["d"]["reverse"] = reverse
    end = max(offsets[inp] + size_in, offsets[out] + size_out)
    plan = planner.Plan(offsets, (end + 15) // 16 * 16, c.plan.buffers, c.plan.overlaps)
    return dataclasses.replace(c, plan=plan)


def generate(c: Compiled, out: Path) -> Path:
    out.mkdir(parents=True, exist_ok=True)
    for name, text in codegen.generate(c).items():
        (out / name).write_text(text)
    return out


def inputs_for(ref: Reference, seed: int) -> list[list[np.ndarray]]:
    rng = np.random.default_rng(seed)
    sets = [ref.random_inputs(rng) for _ in range(SETS)]
    # Extremes: every accumulator at the end of its range for some channel.
    sets.append([np.full(x.shape, np.iinfo(x.dtype).min, x.dtype) for x in sets[0]])
    sets.append([np.full(x.shape, np.iinfo(x.dtype).max, x.dtype) for x in sets[0]])
    return sets


SetsFor = Callable[[Reference, int], list[list[np.ndarray]]]


def check_host(name: str, path: Path, c: Compiled, tmp_path: Path, sets_for: SetsFor) -> None:
    """c built for the host and run on sets_for's inputs: each output TFLite Micro's."""
    exe = host.build(generate(c, tmp_path / "gen"), "m", tmp_path)
    ref = Reference(path)
    for inputs in sets_for(ref, len(name)):
        want = ref.run(inputs)
        got = split_outputs(host.run(exe, [x.tobytes() for x in inputs]), want)
        assert got[0].tobytes() == want[0].tobytes(), name


def cortex_m_failures(
    models: dict[str, Path], tmp_path: Path, board: str, sets_for: SetsFor
) -> list[str]:
    """Every model in every placement built at -O2 for board and run under qemu on
    sets_for's inputs: those whose output differs from TFLite Micro's."""
    jobs = []
    for name, path in models.items():
        for placement in PLACEMENTS:
            c = compiled_or_none(path, placement)
            if c is not None:
                jobs.append((name, placement, path, c))

    def run(job: tuple[str, str, Path, Compiled]) -> str | None:
        name, placement, path, c = job
        work = tmp_path / f"{name}_{placement}"
        gen = generate(c, work / "gen")
        ref = Reference(path)
        sets = sets_for(ref, len(name))
        result = m3.build_and_run(
            gen,
            "m",
            [[x.tobytes() for x in s] for s in sets],
            board=board,
            opt="-O2",
            workdir=work / "build",
            jobs=1,
        )
        for s, got in zip(sets, result.outputs, strict=True):
            if got[0] != ref.run(s)[0].tobytes():
                return f"{name} {placement}"
        return None

    with ThreadPoolExecutor() as pool:
        return [f for f in pool.map(run, jobs) if f]


@pytest.mark.parametrize("placement", PLACEMENTS)
@pytest.mark.parametrize("name", [*CASES, *ADD_CASES, *BUILT_CASES])
def test_host_matches_tflm(name, placement, models, tmp_path):
    path = models[name]
    c = compiled(path, placement)
    assert c.steps[-1].call.function == expected_kernel(name)
    check_host(f"{name} {placement}", path, c, tmp_path, inputs_for)


def test_fast_kernels_can_be_turned_off(models, monkeypatch):
    monkeypatch.setattr(fast, "ENABLED", False)
    for name, path in models.items():
        c = compile_graph(frontend.load(path), Options(name="m"), path.name)
        assert not any("fast" in step.call.function for step in c.steps), name


@pytest.mark.skipif(bool(m3.missing_tools()), reason="needs arm-none-eabi-gcc and qemu")
@pytest.mark.parametrize("board", ["mps2-an385", "mps2-an386"])
def test_cortex_m_matches_tflm(models, tmp_path, board):
    """Every case and placement on the emulated Cortex-M3 and Cortex-M4 at -O2 (the Thumb-2
    loops; on the M4 also the DSP routine, for the convolutions whose runs allow it)."""
    assert cortex_m_failures(models, tmp_path, board, inputs_for) == []


def compiled_or_none(path: Path, placement: str) -> Compiled | None:
    try:
        return compiled(path, placement)
    except pytest.skip.Exception:
        return None


def test_requant_matches_reference():
    """tinyaot_requant() (as modelled here) equals mbqm + offset on random and edge values."""
    rng = np.random.default_rng(7)
    for _ in range(4000):
        shift = -int(rng.integers(1, 32))
        mult = int(rng.choice([0, 1 << 30, (1 << 31) - 1, int(rng.integers(1 << 30, 1 << 31))]))
        offset = int(rng.integers(-128, 128))
        lo = int(rng.integers(-(1 << 24), 1 << 24))
        hi = lo + int(rng.integers(0, 1 << int(rng.integers(0, 25))))
        entry = fast.requant_entry(mult, shift, offset, (lo, hi))
        if entry is None:
            continue
        m, h, e = entry
        for acc in {lo, hi, (lo + hi) // 2, int(rng.integers(lo, hi + 1))}:
            # The C code's 64-bit constant: h * 2^32 + 2^30, or h * 2^32 - 2^30 for acc < 0.
            x = acc * m + h * (1 << 32) + ((1 << 30) if acc >= 0 else -(1 << 30))
            assert (x >> 32) >> e == fast.mbqm(acc, mult, shift) + offset, (acc, mult, shift)


def dw3x3_upper(acc: int, m: int, h: int, c: int | None) -> int:
    """The upper word of tinyaot_requant_c's sum (low word c ^ s, upper h + s), or of
    tinyaot_requant's for c = None."""
    s = -1 if acc < 0 else 0
    low = (c ^ s) & 0xFFFFFFFF if c is not None else (0x40000000 ^ (s << 31)) & 0xFFFFFFFF
    return (((h + s) << 32) + low + acc * m) >> 32


def test_dw3x3_rounding_low_word():
    """The c fast.rounding_low_word picks keeps tinyaot_requant_c exact wherever the
    accumulator that would make a choice wrong lies: in range, out of range, or at its
    border; and a choice it rejects does carry into the upper word there."""
    rng = np.random.default_rng(11)
    picked = {0x40000000: 0, 0x3FFFFFFF: 0, None: 0}
    for _ in range(3000):
        v = int(rng.integers(0, 31))
        mult = (int(rng.integers(1 << 29, 1 << 31)) >> v | 1) << v
        odd = (mult >> v) % 4
        step = 1 << (30 - v)
        # The accumulators where one of the two choices carries a 1 into the upper word.
        bad_negative = -(1 if odd == 3 else 3) * step
        bad_positive = (1 if odd == 3 else 3) * step
        limit = int(rng.choice([1 << 18, 1 << 22, 1 << 26]))
        lo = int(rng.choice([-limit, bad_negative, bad_negative + 1]))
        hi = int(rng.choice([limit, bad_positive, bad_positive - 1]))
        shift = -int(rng.integers(2, 12))
        entry = fast.requant_entry(mult, shift, 0, (lo, hi))
        if entry is None or entry[0] != mult:
            continue
        m, h, e = entry
        c = fast.rounding_low_word(m, (lo, hi))
        picked[c] += 1
        edges = [a for a in (bad_negative, bad_positive, lo, hi, 0, -1, 1) if lo <= a <= hi]
        for acc in [*edges, *rng.integers(lo, hi + 1, 20).tolist()]:
            if c is not None:
                assert dw3x3_upper(acc, m, h, c) >> e == fast.mbqm(acc, mult, shift), (acc, c)
        for choice, bad in ((0x40000000, bad_negative), (0x3FFFFFFF, bad_positive)):
            if c != choice and lo <= bad <= hi:
                assert dw3x3_upper(bad, m, h, choice) != dw3x3_upper(bad, m, h, None)
    assert min(picked.values()) > 50, picked


def on_thumb2(value: object) -> object:
    """A params field's value on the Thumb-2 and DSP cores: the one-pass Helium routine has
    its own table and line (0), test_mve_kernels checks them."""
    if isinstance(value, ByTarget):
        assert value.dsp == value.default
        return value.default
    return value


def helium_pairs(params: dict, path: Path) -> Routine | None:
    """Helium's pair routine for the convolution of the model at path: None (Helium's cores
    take the dsp value) for a window shallower than conv_2d.MVE_MIN_DEPTH that the DSP routine
    reads; the one-pass tinyaot_conv_pairs_mve16 where every run is whole steps of 16 inputs but
    a 1x1 window's tail (_relu where the clamp hides every output under the zero point); else
    tinyaot_conv_pairs_mve."""
    d = params["d"]
    dsp = params["weights"].dsp is not params["weights"].default
    if dsp and d["k_h"] * d["k_w"] * d["in_c"] < MVE_MIN_DEPTH:
        return None
    mode = params["mode"]
    if isinstance(mode, ByTarget):
        mode = mode.dsp if mode.mve is None else mode.mve
    patch = mode == PATCH
    if d["k_h"] * d["k_w"] == 1 or d["k_w"] * d["in_c"] % 16 == 0 or patch:
        model = frontend.load(path)
        zero_point = model.tensor(model.ops[-1].outputs[0]).zero_point
        return Routine(f"tinyaot_conv_pairs_mve16{'_relu' * (params['act_min'] >= zero_point)}")
    return Routine("tinyaot_conv_pairs_mve")


def dsp_pairs(call: KernelCall, part: str = "") -> Routine:
    """The DSP routine for the call's window: tinyaot_conv_pairs_dsp16 (a pair's inputs widened
    once) up to conv_2d.DSP16_DEPTH inputs or with a scratch, else tinyaot_conv_pairs_dsp; part
    "_part" or ""."""
    d = call.params["d"]
    deep = d["k_h"] * d["k_w"] * d["in_c"] > DSP16_DEPTH
    wide = "" if deep and call.function != WIDE else "16"
    return Routine(f"tinyaot_conv_pairs_dsp{wide}{part}")


def test_dsp_layout_where_runs_allow(models):
    """Convolutions whose runs are all multiples of 4 bytes get the DSP routine's weights where
    TINYAOT_DSP_KERNELS: the same weights, per block, half, four inputs and channel; a partial
    block takes the _part routine; windows of up to conv_2d.DSP16_DEPTH inputs the routine that
    widens a pair's inputs once, deeper ones too where a scratch of 4 bytes per input is free
    in the arena (after a pool), else the other (all among these cases). Other windows
    of up to DSP16_DEPTH inputs take it on the patch, their weights padded with zeros to a
    multiple of 4 (block_bytes says so on DSP cores). Helium's routine for all: none is
    shallower than conv_2d.MVE_MIN_DEPTH (tests/test_mve_kernels.py has one that is)."""
    seen = set()
    want = {
        "conv_1x1": True,
        "conv_1x1_c12": True,
        "conv_1x1_s2": True,
        "conv_3x3_s2_oc6": True,  # a partial block: tinyaot_conv_pairs_dsp_part
        "conv_3x3_valid_c40": True,
        "conv_5x5": True,
        "conv_10x4_s2_c1": True,  # one input channel, but the patch is 40 bytes
        "conv_10x8_s2_c1": True,  # the patch where the DSP kernels are built
        "conv_3x3_c3": False,  # rows of 9 bytes, 216 MACs a pixel: the MLA routine
        "conv_3x3_c3_oc16": True,  # 432: the patch, 27 inputs read as 28
        "conv_3x3_c7_oc10": True,  # 630: 63 read as 64, a partial block
        "conv_3x3_c16_wide": True,  # 144 inputs, a scratch
        "conv_1x1_c160_oc6_wide": True,  # 160, a scratch, a partial block
    }
    for name, dsp in want.items():
        c = compile_graph(frontend.load(models[name]), Options(name="m"), name)
        call = c.steps[-1].call
        params = call.params
        # Helium's layout and routine where deep enough (test_mve_kernels checks them).
        assert (params["weights"].dsp is not params["weights"].default) == dsp, name
        mve = helium_pairs(params, models[name])
        assert mve is not None, name
        assert params["pairs"].mve == mve, name
        assert (params["weights"].mve is None) == (mve is None), name
        if not dsp:
            assert params["pairs"].dsp == params["pairs"].default, name
            continue
        d = params["d"]
        part = "_part" if d["out_c"] % 4 else ""
        pairs = Routine(f"tinyaot_conv_pairs{part}")
        want = ByTarget(pairs, dsp_pairs(call, part), mve)
        assert params["pairs"] == want, name
        seen.add(want.dsp.name.removesuffix("_part"))
        depth = d["k_h"] * d["k_w"] * d["in_c"]
        depth4 = (depth + 3) // 4 * 4
        if name.endswith("_wide"):
            # The scratch, 4 bytes per input, in the plan; the call without it on the other
            # DSP routine, its params otherwise the same.
            assert call.function == WIDE and call.narrow is not None, name
            scratch = call.args[-1].index
            assert c.plan.buffers[scratch].size == 4 * depth4, name
            narrow = call.narrow.params
            assert narrow["pairs"].dsp == Routine(f"tinyaot_conv_pairs_dsp{part}"), name
            assert {**narrow, "pairs": params["pairs"]} == params, name
        else:
            assert call.function == CONV and call.narrow is None, name
        blocks = (d["out_c"] + 3) // 4
        # The default layout: per block, per input, the block's four channels.
        plain = params["weights"].default.values.reshape(blocks, depth, 4)
        plain = np.pad(plain, ((0, 0), (0, depth4 - depth), (0, 0)))
        layout = params["weights"].dsp.values.reshape(blocks, 2, depth4 // 4, 2, 4)
        for b, h, g, ch, k in np.ndindex(layout.shape):
            assert layout[b, h, g, ch, k] == plain[b, 4 * g + k, 2 * h + ch], name
        if depth4 > depth:
            assert params["block_bytes"] == ByTarget(4 * depth, 4 * depth4, 4 * depth), name
            assert params["mode"].dsp == PATCH, name
        else:
            assert params["block_bytes"] == 4 * depth, name
    assert seen == {"tinyaot_conv_pairs_dsp", "tinyaot_conv_pairs_dsp16"}


def test_dsp16_depth_is_the_runtimes():
    """The compiler's limit for the routine that widens a pair's inputs is the one its stack
    buffer is sized by."""
    header = (REPO / "crt/include/tinyaot/asm_layout.h").read_text()
    assert f"#define TINYAOT_CONV_DSP16_DEPTH {DSP16_DEPTH}\n" in header


def test_clamped_cases_clamp(models):
    """The hand-built cases really clamp inside int8. Under four channels, and for depthwise,
    the portable routines run; with four or more, the Thumb-2 ones and clamp_after (on
    Helium, tinyaot_conv_pairs_mve but for the 1x1 window over 4 channels, which takes the
    DSP routine)."""
    for name in (n for n in BUILT_CASES if "clamped" in n):
        c = compile_graph(frontend.load(models[name]), Options(name="m"), name)
        params = c.steps[-1].call.params
        assert (params["act_min"], params["act_max"]) == (-1, 59), name
        if name.startswith("dw"):
            assert params["block"].name == "tinyaot_dw3x3_c"
        else:
            assert params["weights"].dsp is params["weights"].default
            c_pairs = Routine(f"tinyaot_conv_pairs_c{params['d']['out_c']}")
            mve = helium_pairs(params, models[name])
            assert params["pairs"] == ByTarget(c_pairs, c_pairs, mve)
            assert params["clamp_after"] == 0
    part = Routine("tinyaot_conv_pairs_part")
    c8 = compile_graph(frontend.load(models["conv_relu6_c8"]), Options(name="m"), "c8")
    mve = helium_pairs(c8.steps[-1].call.params, models["conv_relu6_c8"])
    # name: the Thumb-2 routine, the DSP routine's suffix, Helium's routine, the pixel routine
    want = {
        "conv_relu6_c8": (
            Routine("tinyaot_conv_pairs"),
            "",
            mve,
            ByTarget(Routine("tinyaot_conv_single"), None, None),
        ),
        "conv_relu6_c6": (part, "_part", None, None),
    }
    for name, (thumb2, dsp_part, on_mve, single) in want.items():
        c = compile_graph(frontend.load(models[name]), Options(name="m"), name)
        params = c.steps[-1].call.params
        pairs = ByTarget(thumb2, dsp_pairs(c.steps[-1].call, dsp_part), on_mve)
        assert (params["act_min"], params["act_max"]) == (-1, 119), name
        assert (params["pairs"], params["single"], params["clamp_after"]) == (pairs, single, 1)


def test_short_rows_read_in_place(models):
    """Rows of more than conv_2d.SHORT bytes are read in place, unless the DSP routine could
    read the patch (whole words, whole blocks) and they are SHORT_DSP bytes or fewer: then the
    patch where the DSP kernels are built, and on every target over an odd output width (a job
    per pair); on Helium rows of SHORT_DSP bytes or fewer go to the patch (its one-pass routine
    reads one run). Windows that are not whole words, with MACs enough per pixel, go to the
    patch where the DSP kernels are built (read padded), Helium's rows of more than SHORT_DSP
    bytes staying in place. The overlap rule holds for every mode."""
    both = ByTarget(ROWS, PATCH)
    helium = ByTarget(ROWS, ROWS, PATCH)
    want = {"conv_3x3_c1": helium, "conv_5x5_s2_c1": helium, "conv_10x4_s2_c1": PATCH}
    want |= {"dw_c1_mult8": PATCH, "conv_3x3_c3": ROWS, "conv_10x8_s2_c1": both}
    want |= {"conv_3x3_c3_oc16": ByTarget(ROWS, PATCH, ROWS)}
    for name, mode in want.items():
        c = compile_graph(frontend.load(models[name]), Options(name="m"), name)
        call = c.steps[-1].call
        assert call.params["mode"] == mode, name
        d, (rule,) = call.params["d"], call.inplace
        modes = [mode] if mode in (ROWS, PATCH) else [ROWS, PATCH]
        for m, reverse in itertools.product(modes, (False, True)):
            steps = inplace.conv_fast_steps(d, d["in_c"], d["out_c"], m == PATCH, reverse)
            gap = inplace.reverse_gap if reverse else inplace.forward_gap
            assert gap(steps, 1, 1) <= (rule.reverse if reverse else rule.forward), name


def test_partial_blocks(models):
    """Over four channels not a multiple of 4, the highest block holds the last four and the
    _part routines run (on DSP cores the DSP routines' _part, whose runs all allow it);
    the shift-1 case has one_sided's words (e - 1 = 0, c = 3 * 2^30). On Helium
    tinyaot_conv_pairs_mve."""
    want = {
        "conv_3x3_s2_oc6": "tinyaot_conv_pairs_part",
        "conv_3x3_s2_oc6_relu": "tinyaot_conv_pairs_line_part",
        "conv_1x1_oc10_relu": "tinyaot_conv_pairs_line_part",
        "conv_shift1": "tinyaot_conv_pairs_part",
    }
    for name, routine in want.items():
        c = compile_graph(frontend.load(models[name]), Options(name="m"), name)
        params = c.steps[-1].call.params
        mve = helium_pairs(params, models[name])
        assert mve is not None, name
        pairs = ByTarget(Routine(routine), dsp_pairs(c.steps[-1].call, "_part"), mve)
        assert params["pairs"] == pairs and params["single"] is None, name
        out_c = params["d"]["out_c"]
        np.testing.assert_array_equal(
            fast.block_channels(out_c)[-4:], np.arange(out_c - 4, out_c), name
        )
    params = (
        compile_graph(frontend.load(models["conv_shift1"]), Options(name="m"), "conv_shift1")
        .steps[-1]
        .call.params
    )
    words = on_thumb2(params["table"]).values.reshape(-1, 20)[:, 4:].reshape(-1, 4)
    assert on_thumb2(params["line"]) == 0 and set(words[:, 2]) == {0}
    assert set(words[:, 3]) == {np.int32(-(1 << 30))}


def test_dw_taps_requantisations(models):
    """The other-window depthwise cases run both requantisations: ReLU's line, else
    tinyaot_requant_c's words."""
    for name, line in (("dw_1x5", 0), ("dw_5x1_s2_c10_relu", 1)):
        c = compile_graph(frontend.load(models[name]), Options(name="m"), name)
        assert on_thumb2(c.steps[-1].call.params["line"]) == line, name


def test_one_sided_matches_reference():
    """fast.one_sided's words, through requant_c (tinyaot_requant_c), give TFLite's clamped
    output on every accumulator of the range it accepts, for right shifts from 1."""
    rng = np.random.default_rng(11)
    accepted = 0
    for _ in range(600):
        e = int(rng.choice([1, 1, 2, 5, 11]))
        mult = int(rng.integers(1 << 30, 1 << 31))
        offset = int(rng.choice([-128, -128, -90, 3]))
        act_min = int(rng.choice([-128, max(offset, -128)]))
        lo, hi = -int(rng.integers(0, 1 << 16)), int(rng.integers(0, 1 << 16))
        words = fast.one_sided(mult, -e, offset, (lo, hi), act_min)
        if words is None:
            continue
        accepted += 1
        accs = np.unique(
            np.concatenate(
                [
                    np.arange(max(lo, -600), min(hi, 600) + 1),
                    rng.integers(lo, hi + 1, 400),
                    [lo, hi],
                ]
            )
        )
        want = np.clip(fast.mbqm_array(accs, mult, -e) + offset, act_min, 127)
        got = np.clip([fast.requant_c(int(a), words) for a in accs], act_min, 127)
        np.testing.assert_array_equal(got, want, f"{mult} {e} {offset} {act_min}")
    assert accepted > 100


def test_line_tables_where_relu(models):
    """The cases whose clamp is a ReLU's get line tables and routines; the others keep
    tinyaot_requant_c's."""
    for name, (_, _, kernel) in CASES.items():
        if kernel not in (CONV, DWCONV):
            continue
        c = compile_graph(frontend.load(models[name]), Options(name="m"), name)
        params = c.steps[-1].call.params
        relu = "relu" in name
        assert on_thumb2(params["line"]) == int(relu), name
        if kernel == DWCONV:
            block = params["block"]
            assert block.default.name.startswith("tinyaot_dw3x3_line_") == relu, name
            assert block.dsp.name.startswith("tinyaot_dw3x3_dsp_line_") == relu, name
            # Helium's vector records take any requantisation; _relu for zero point -128.
            assert block.mve.name.startswith("tinyaot_dw3x3_mve_relu_") == relu, name


def shared_requants(name: str) -> list[tuple[np.ndarray, fast.Requant, int, list, list]]:
    """Every fast conv or depthwise layer's exact_requant arguments and result, compiling name."""
    seen = []
    real = fast.exact_requant

    def spy(weights, bias, zero_points, mults, shifts):
        rq = real(weights, bias, zero_points, mults, shifts)
        if rq is not None:
            seen.append((weights, rq, zero_points[1], list(mults), list(shifts)))
        return rq

    fast.exact_requant = spy
    try:
        compile_graph(frontend.load(SHARED / f"{name}.tflite"), Options(name="m"), name)
    finally:
        fast.exact_requant = real
    return seen


@pytest.mark.parametrize("name", ["mlperf_tiny_kws_dscnn_int8", "mlperf_tiny_vww_mobilenetv1_int8"])
def test_line_exact_on_shared_models(name):
    """Every ReLU layer of KWS and VWW has a line, and for three channels of each layer it gives
    TFLite's output for every accumulator in the channel's range."""
    lines = 0
    for weights, rq, offset, mults, shifts in shared_requants(name):
        rows = fast.line_rows(weights, rq, mults, shifts, offset)
        if offset != -128:
            continue
        assert rows is not None
        lines += 1
        for ch in np.linspace(0, len(mults) - 1, 3).astype(int).tolist():
            lo, hi = int(rq.ranges[0][ch]), int(rq.ranges[1][ch])
            b, m, h = (int(v) for v in rows[ch])
            acc = np.arange(lo, hi + 1, dtype=np.int64)
            assert acc[0] + b >= 0 and acc[-1] + b <= fast.INT32_MAX
            # tinyaot_requant_line: the upper word of h * 2^32 + (acc + b) * (m + 1), shifted
            # and saturated by SSAT.
            got = np.clip(((h << 32) + (acc + b) * (m + 1)) >> (32 + fast.LINE_SHIFT), -128, 127)
            want = fast.clamped(acc, mults[ch], shifts[ch], offset)
            assert np.array_equal(got, want), (name, ch)
    assert lines >= 9


def test_line_entry_random():
    """Where line_entry gives a line for random channels, it is exact over the whole range and
    within the headroom; under a zero point of -128 it nearly always gives one."""
    rng = np.random.default_rng(5)
    found = tried = 0
    for _ in range(300):
        mult = int(rng.integers(1 << 30, 1 << 31))
        # Multipliers from 2^-15 to 2^-3: m + 1 <= 2^31 leaves LINE_SHIFT + 1 bits of headroom.
        shift = -int(rng.integers(3, 15))
        offset = int(rng.choice([-128, -128, int(rng.integers(-128, 128))]))
        lo = -int(rng.integers(0, 1 << 17))
        hi = int(rng.integers(0, 1 << 17))
        headroom = int(rng.choice([1 << 30, -lo + int(rng.integers(0, 1 << 20))]))
        entry = fast.line_entry(mult, shift, offset, (lo, hi), headroom)
        tried += offset == -128
        if entry is None:
            continue
        found += offset == -128
        b, m, h = entry
        assert max(-lo, 0) <= b <= headroom and 0 <= m <= fast.INT32_MAX
        acc = np.arange(lo, hi + 1, dtype=np.int64)
        got = np.clip(((h << 32) + (acc + b) * (m + 1)) >> (32 + fast.LINE_SHIFT), -128, 127)
        assert np.array_equal(got, fast.clamped(acc, mult, shift, offset)), (mult, shift, lo, hi)
    assert found >= 0.9 * tried


def test_mbqm_array_matches_mbqm():
    """fast.mbqm_array, which the line's checks and tests rest on, equals the scalar mbqm (the
    C code's arithmetic) on random and edge accumulators, multipliers and shifts."""
    rng = np.random.default_rng(3)
    for _ in range(200):
        mult = int(rng.choice([0, 1 << 30, (1 << 31) - 1, int(rng.integers(1 << 30, 1 << 31))]))
        shift = -int(rng.integers(0, 20))
        edges = [fast.INT32_MIN + 1, -1, 0, 1, fast.INT32_MAX]
        acc = np.array([*edges, *rng.integers(-(1 << 24), 1 << 24, 50).tolist()], dtype=np.int64)
        want = [fast.mbqm(int(a), mult, shift) for a in acc]
        assert fast.mbqm_array(acc, mult, shift).tolist() == want, (mult, shift)


def test_least_multiple():
    """fast.least_multiple against a search, on every small case of n < 40."""
    for n in range(1, 40):
        for a in range(n):
            for lo in range(n):
                for hi in range(lo, n):
                    want = next((x for x in range(n) if lo <= a * x % n <= hi), None)
                    assert fast.least_multiple(a, n, lo, hi) == want, (a, n, lo, hi)


def test_dw_groups(models):
    """The depthwise group is the widest routine, or one narrower where that divides the row."""
    want = {
        "dw_s1_w5": (5, None),
        "dw_s1_w8_c12": (6, "tinyaot_dw3x3_s1_n2"),
        "dw_s2_w10": (4, "tinyaot_dw3x3_s2_n2"),
        "dw_s2_w5_relu": (4, "tinyaot_dw3x3_line_s2_n1"),
        "dw_s2_w6": (3, None),
    }
    for name, (group, tail) in want.items():
        c = compile_graph(frontend.load(models[name]), Options(name="m"), name)
        params = c.steps[-1].call.params
        got_tail = params["tail"].default.name if params["tail"] is not None else None
        assert (params["group"], got_tail) == (group, tail), name
        if tail is not None:
            dsp = tail.replace("tinyaot_dw3x3_", "tinyaot_dw3x3_dsp_")
            # Helium's routine takes any width: one per stride, _relu where the line records
            # are (a ReLU whose zero point is -128).
            kind = tail.removeprefix("tinyaot_dw3x3_").rsplit("_n")[0].replace("line_", "relu_")
            mve = "tinyaot_dw3x3_mve_" + kind
            want = ByTarget(Routine(tail), Routine(dsp), Routine(mve))
            assert params["tail"] == want, name


def test_dw3x3_dsp_records(models):
    """The DSP records: the default ones with the weight bytes in the DSP routines' order,
    per channel w00 w01 w10 w11, w02 w20 w12 w21, w21 0 w22 0 ((ky, kx) indices), and a line's
    m + 1 for m; none where an m + 1 would not be an int32."""
    c = compile_graph(frontend.load(models["dw_s2_w5_relu"]), Options(name="m"), "m")
    records = c.steps[-1].call.params["records"]
    plain = records.default.values.reshape(8, 6)
    dsp = records.dsp.values.reshape(8, 6)
    assert (dsp[:, [0, 5]] == plain[:, [0, 5]]).all() and (dsp[:, 4] == plain[:, 4] + 1).all()
    w = plain[:, 1:4].copy().view(np.int8)[:, :9].astype(np.int32)
    order = [w[:, i] if i >= 0 else 0 * w[:, 0] for i in (0, 1, 3, 4, 2, 6, 5, 7, 7, -1, 8, -1)]
    assert (dsp[:, 1:4].copy().view(np.int8) == np.stack(order, axis=1)).all()
    weights = np.ones((2, 9), dtype=np.int64)
    line = fast.Channels(np.zeros(2), np.array([[5, 0], [fast.INT32_MAX, 0]]), True)
    assert dw3x3_dsp_records(weights, line) is None
