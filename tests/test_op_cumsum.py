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


def _int8_model(quant: tuple, out_quant: tuple, const_axis: bool = True) -> bytes:
    axes = [tb.Tensor(f"axis{i}", [1], tb.INT32, i + 1 if const_axis else 0) for i in range(4)]
    outs = [tb.Tensor(f"out{i}", SHAPE, tb.INT8, 0, *out_quant) for i in range(4)]
    tensors = [tb.Tensor("input", SHAPE, tb.INT8, 0, *quant), *axes, *outs]
    ops = [
        tb.Operator(0, [0, 1 + i], [5 + i], "CumsumOptions", {"Exclusive": excl, "Reverse": rev})
        for i, (_, excl, rev) in enumerate(CASES)
    ]
    buffers = [tb.Buffer()] + [tb.Buffer(tb.int32_bytes([axis])) for axis, _, _ in CASES]
    return tb.build(
        tb.Model(
            subgraphs=[
                tb.SubGraph(
                    tensors=tensors,
                    operators=ops,
                    inputs=[0] if const_axis else [0, 1, 2, 3, 4],
                    outputs=[5, 6, 7, 8],
                )
            ],
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


# name: ((input scale, zero point), (output scale, zero point))
INT8 = {
    "same_quant": (([0.05], [3]), ([0.05], [3])),
    "wider_out": (([0.02], [-7]), ([0.09], [20])),
}


@pytest.mark.parametrize("quant,out_quant", INT8.values(), ids=INT8.keys())
def test_cumsum_int8(tmp_path, quant, out_quant):
    path = write_model(_int8_model(quant, out_quant), tmp_path)
    assert op_kinds(path) == ["CUMSUM"] * 4
    check_against_tflm(path, tmp_path, sets=2)
    ends = [np.full(SHAPE, v, np.int8) for v in (-128, 127, quant[1][0])]
    got = check_inputs(path, tmp_path, [[e] for e in ends]).outputs
    # All at the top: the running sums climb to the clamp; all at the zero point: every sum
    # is TFLM's starting value, the zero point's negative halved and rescaled.
    assert max(o.max() for o in got[1]) == 127
    start = round(-quant[1][0] * quant[0][0] / out_quant[0][0]) + out_quant[1][0]
    assert all((o == start).all() for o in got[2])


def test_cumsum_rejects_runtime_axis(tmp_path):
    graph = load(write_model(_int8_model(([0.05], [3]), ([0.05], [3]), False), tmp_path))
    with pytest.raises(CompileError, match="CUMSUM.*axis must be a constant"):
        lower_op(graph, graph.ops[0])
