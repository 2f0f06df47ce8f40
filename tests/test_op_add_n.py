"""ADD_N, float32 and int8 (TFLite Micro's two): float32 as the converter writes it, int8
hand-built (the converter keeps ADD_N float between DEQUANTIZE and QUANTIZE)."""

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


def _int_model(dtype: int, groups: list[tuple]) -> bytes:
    """One ADD_N per (inputs, input quantisation, output quantisation) group."""
    tensors, ops, inputs, outputs = [], [], [], []
    for g, (count, quant, out_quant) in enumerate(groups):
        base = len(tensors)
        tensors += [tb.Tensor(f"in{g}_{i}", SHAPE, dtype, 0, *quant) for i in range(count)]
        tensors.append(tb.Tensor(f"out{g}", SHAPE, dtype, 0, *out_quant))
        ops.append(tb.Operator(0, list(range(base, base + count)), [base + count]))
        inputs += range(base, base + count)
        outputs.append(base + count)
    return tb.build(
        tb.Model(
            subgraphs=[tb.SubGraph(tensors=tensors, operators=ops, inputs=inputs, outputs=outputs)],
            opcodes=[tb.OpCode(tb.OPS.ADD_N)],
        )
    )


def test_add_n_float32(tmp_path):
    import tensorflow as tf

    data = tfmodels.convert(lambda a, b, c: tf.math.add_n([a, b, c]), [SHAPE] * 3, False)
    path = write_model(data, tmp_path)
    assert op_kinds(path) == ["ADD_N"]
    check_against_tflm(path, tmp_path, sets=2)


# (inputs, (input scale, zero point), (output scale, zero point)), and the outputs when every
# input is at -128, and when every input is at its zero point: not the output zero point, as
# TFLM's sum starts from the input offset, -zero point, halved (-3 * 0.05 / 0.05 + 3 and
# 7 * 0.02 / 0.07 + 100).
INT8 = [
    ((2, ([0.05], [3]), ([0.05], [3])), -128, 0),
    # The output's wider scale and its zero point near the end of the range: at -128,
    # (4 * (-128 + 7) + 7) * 0.02 / 0.07 + 100.
    ((4, ([0.02], [-7]), ([0.07], [100])), -36, 102),
]


def test_add_n_int8(tmp_path):
    groups = [g for g, _, _ in INT8]
    path = write_model(_int_model(tb.INT8, groups), tmp_path)
    assert op_kinds(path) == ["ADD_N"] * len(groups)
    check_against_tflm(path, tmp_path, sets=2)

    def every(value: object) -> list[np.ndarray]:
        return [
            np.full(SHAPE, quant[1][0] if value == "zero point" else value, np.int8)
            for count, quant, _ in groups
            for _ in range(count)
        ]

    mixed = [(np.arange(30, dtype=np.int8) * 8 - 120).reshape(SHAPE)] * sum(c for c, _, _ in groups)
    sets = [every(-128), every(127), every("zero point"), mixed]
    got = check_inputs(path, tmp_path, sets).outputs
    for g, (_, at_min, at_zero) in enumerate(INT8):
        assert (got[0][g] == at_min).all()
        assert (got[1][g] == 127).all()
        assert (got[2][g] == at_zero).all()


def test_add_n_rejects_int32(tmp_path):
    graph = load(write_model(_int_model(tb.INT32, [(2, (None, None), (None, None))]), tmp_path))
    with pytest.raises(CompileError, match="ADD_N.*int8, float32"):
        lower_op(graph, graph.ops[0])
