"""PAD folded into the VALID convolution that reads it (scripts/tinyaot/fold_pad.py): where it
folds, the PAD is gone from the steps and the outputs are TFLite Micro's, bit for bit; where it
must not (channels padded, a second reader, a side wider than the window allows, more before
than after, a pad value other than the zero point), the PAD stays."""

from __future__ import annotations

import numpy as np
import pytest
import tflite_builder as tb
from harness import check_against_tflm
from opcheck import load, write_model
from tinyaot.compiler import Options, compile_graph
from tinyaot.lowering import EXPLICIT_PADS

SCALE, ZP = 0.05, -3


def pad_conv(
    pads: list[list[int]],
    depthwise: bool = False,
    stride: int = 2,
    readers: int = 1,
    value: int | None = None,
) -> bytes:
    """A PAD of a [1, 9, 8, 4] int8 input (paddings `pads`, PADV2 with `value` when given)
    read by `readers` VALID 3x3 convolutions of 4 channels."""
    rng = np.random.default_rng(len(str(pads)) + stride + readers)
    n, h, w, c = 1, 9, 8, 4
    ph = h + pads[1][0] + pads[1][1]
    pw = w + pads[2][0] + pads[2][1]
    pc = c + pads[3][0] + pads[3][1]
    oh, ow = (ph - 3) // stride + 1, (pw - 3) // stride + 1
    buffers = [tb.Buffer(), tb.Buffer(tb.int32_bytes(pads))]
    tensors = [
        tb.Tensor("x", [n, h, w, c], tb.INT8, 0, [SCALE], [ZP]),
        tb.Tensor("paddings", [4, 2], tb.INT32, 1),
        tb.Tensor("padded", [n, ph, pw, pc], tb.INT8, 0, [SCALE], [ZP]),
    ]
    pad_inputs = [0, 1]
    if value is not None:
        buffers.append(tb.Buffer(np.array([value], np.int8).tobytes()))
        tensors.append(tb.Tensor("value", [1], tb.INT8, len(buffers) - 1, [SCALE], [ZP]))
        pad_inputs.append(len(tensors) - 1)
    opcodes = [tb.OpCode(tb.OPS.PADV2 if value is not None else tb.OPS.PAD)]
    options_name = "PadV2Options" if value is not None else "PadOptions"
    ops = [tb.Operator(0, pad_inputs, [2], options_name, {})]
    kind = tb.OPS.DEPTHWISE_CONV_2D if depthwise else tb.OPS.CONV_2D
    opcodes.append(tb.OpCode(kind))
    options = {"Padding": tb.PADDING.VALID, "StrideH": stride, "StrideW": stride}
    options |= {"DilationHFactor": 1, "DilationWFactor": 1, "FusedActivationFunction": 1}
    if depthwise:
        options["DepthMultiplier"] = 1
    outputs = []
    for r in range(readers):
        shape = [1, 3, 3, pc] if depthwise else [4, 3, 3, pc]
        out_c = pc if depthwise else 4
        buffers.append(tb.Buffer(tb.int8_bytes(rng.integers(-127, 128, size=shape))))
        buffers.append(tb.Buffer(tb.int32_bytes(rng.integers(-400, 400, size=out_c))))
        base = len(tensors)
        tensors += [
            tb.Tensor(f"w{r}", shape, tb.INT8, len(buffers) - 2, [0.02], [0]),
            tb.Tensor(f"b{r}", [out_c], tb.INT32, len(buffers) - 1, [0.001], [0]),
            tb.Tensor(f"y{r}", [n, oh, ow, out_c], tb.INT8, 0, [0.04], [-128]),
        ]
        table = "DepthwiseConv2DOptions" if depthwise else "Conv2DOptions"
        ops.append(tb.Operator(1, [2, base, base + 1], [base + 2], table, options))
        outputs.append(base + 2)
    graph = tb.SubGraph(tensors, ops, [0], outputs)
    return tb.build(tb.Model([graph], opcodes, buffers))


H0, W0 = [0, 0], [0, 0]
# name: (paddings, pad_conv's other arguments, folds)
CASES = {
    "conv_s2_11": ([H0, [1, 1], [1, 1], W0], {}, True),
    "conv_s2_01": ([H0, [0, 1], [0, 1], W0], {}, True),
    "dw_s2_11": ([H0, [1, 1], [1, 1], W0], {"depthwise": True}, True),
    "dw_s1_12": ([H0, [1, 2], [0, 2], W0], {"depthwise": True, "stride": 1}, True),
    "padv2_zero_point": ([H0, [1, 1], [1, 1], W0], {"value": ZP}, True),
    "channels": ([H0, [1, 1], [1, 1], [0, 2]], {"depthwise": True}, False),
    "two_readers": ([H0, [1, 1], [1, 1], W0], {"readers": 2}, False),
    "wider_than_window": ([H0, [1, 3], [1, 1], W0], {}, False),
    "more_before": ([H0, [2, 1], [1, 1], W0], {}, False),
    "padv2_other_value": ([H0, [1, 1], [1, 1], W0], {"value": 5}, False),
}


@pytest.mark.parametrize("name", CASES)
def test_pad_folds_where_exact(name, tmp_path):
    pads, kwargs, folds = CASES[name]
    path = write_model(pad_conv(pads, **kwargs), tmp_path)
    graph = load(path)
    compiled = compile_graph(graph, Options(name="m"), path.name)
    kinds = [step.op.kind for step in compiled.steps]
    assert ("PAD" not in kinds and "PADV2" not in kinds) == folds, kinds
    # The caller's graph keeps its PAD.
    assert graph.ops[0].kind in ("PAD", "PADV2")
    if folds:
        conv = compiled.steps[0]
        d = conv.call.params["d"]
        assert (d["pad_h"], d["pad_w"]) == (pads[1][0], pads[2][0])
        assert conv.op.options[EXPLICIT_PADS] == (pads[1][0], pads[2][0])
        assert conv.op.inputs[0] == graph.inputs[0]
    assert check_against_tflm(path, tmp_path, sets=4).exact
