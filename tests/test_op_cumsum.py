"""CUMSUM, float32 and int8 (TFLite Micro's two): every axis, exclusive and reverse. float32
as the converter writes it; int8 hand-built (the converter keeps CUMSUM float between
DEQUANTIZE and QUANTIZE). Each model holds one CUMSUM per case, one output each."""

from __future__ import annotations

import numpy as np
import pytest
import tflite_builder as tb
import tfmodels
from harness import check_against_tflm
from opcheck import check_inputs, load, op_kinds, write_model
from tinyaot.compiler import lower_op
from tinyaot.errors import CompileError

SHAPE = [2, 5, 3]
# (axis, exclusive, reverse)
CASES = [(1, False, False), (-1, True, False), (0, False, True), (1, True, True)]


def _int8_model(quants: list[tuple], const_axis: bool = True) -> bytes:
    """For each (input quantisation, output quantisation): an input and one CUMSUM per case,
    the axes shared."""
    n = len(CASES)
    tensors = [tb.Tensor(f"axis{i}", [1], tb.INT32, i + 1 if const_axis else 0) for i in range(n)]
    ops, inputs, outputs = [], [] if const_axis else list(range(n)), []
    for g, (quant, out_quant) in enumerate(quants):
        x = len(tensors)
        tensors.append(tb.Tensor(f"input{g}", SHAPE, tb.INT8, 0, *quant))
        tensors += [tb.Tensor(f"out{g}_{i}", SHAPE, tb.INT8, 0, *out_quant) for i in range(n)]
        inputs.append(x)
        outputs += range(x + 1, x + 1 + n)
        ops += [
            tb.Operator(0, [x, i], [x + 1 + i], "CumsumOptions", {"Exclusive": e, "Reverse": r})
            for i, (_, e, r) in enumerate(CASES)
        ]
    buffers = [tb.Buffer()] + [tb.Buffer(tb.int32_bytes([axis])) for axis, _, _ in CASES]
    return tb.build(
        tb.Model(
            subgraphs=[tb.SubGraph(tensors=tensors, operators=ops, inputs=inputs, outputs=outputs)],
            opcodes=[tb.OpCode(tb.OPS.CUMSUM)],
            buffers=buffers,
        )
    )


def test_cumsum_float32(tmp_path):
    import tensorflow as tf

    def fn(x):
        return tuple(tf.math.cumsum(x, axis=a, exclusive=e, reverse=r) for a, e, r in CASES)

    path = write_model(tfmodels.convert(fn, [SHAPE], False), tmp_path)
    graph = load(path)
    assert [(op.kind, op.options["Exclusive"], op.options["Reverse"]) for op in graph.ops] == [
        ("CUMSUM", e, r) for _, e, r in CASES
    ]
    check_against_tflm(path, tmp_path, sets=2)
    ones = np.ones(SHAPE, np.float32)
    got = check_inputs(path, tmp_path, [[ones]]).outputs[0]
    # The output order of a converted model is its own: find each case by its values.
    want = [
        np.broadcast_to(np.arange(1, 6)[None, :, None], SHAPE),
        np.broadcast_to(np.arange(3)[None, None, :], SHAPE),
        np.broadcast_to(np.arange(2, 0, -1)[:, None, None], SHAPE),
        np.broadcast_to(np.arange(4, -1, -1)[None, :, None], SHAPE),
    ]
    assert sorted(g.tobytes() for g in got) == sorted(w.astype(np.float32).tobytes() for w in want)


# ((input scale, zero point), (output scale, zero point))
INT8 = [(([0.05], [3]), ([0.05], [3])), (([0.02], [-7]), ([0.09], [20]))]


def test_cumsum_int8(tmp_path):
    path = write_model(_int8_model(INT8), tmp_path)
    assert op_kinds(path) == ["CUMSUM"] * len(CASES) * len(INT8)
    check_against_tflm(path, tmp_path, sets=2)
    zero_points = [quant[1][0] for quant, _ in INT8]
    sets = [[np.full(SHAPE, v, np.int8) for _ in INT8] for v in (-128, 127)]
    sets.append([np.full(SHAPE, z, np.int8) for z in zero_points])
    got = check_inputs(path, tmp_path, sets).outputs
    for g, (quant, out_quant) in enumerate(INT8):
        mine = slice(g * len(CASES), (g + 1) * len(CASES))
        # All at the top: the running sums climb to the clamp; all at the zero point: every
        # sum is TFLM's starting value, the zero point's negative halved and rescaled.
        assert max(o.max() for o in got[1][mine]) == 127
        start = round(-quant[1][0] * quant[0][0] / out_quant[0][0]) + out_quant[1][0]
        assert all((o == start).all() for o in got[2][mine])


def test_cumsum_rejects_runtime_axis(tmp_path):
    graph = load(write_model(_int8_model(INT8[:1], False), tmp_path))
    with pytest.raises(CompileError, match="CUMSUM.*axis must be a constant"):
        lower_op(graph, graph.ops[0])
