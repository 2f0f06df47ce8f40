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


def _int_model(count: int, dtype: int, quant: tuple, out_quant: tuple) -> bytes:
    tensors = [tb.Tensor(f"in{i}", SHAPE, dtype, 0, *quant) for i in range(count)]
    tensors.append(tb.Tensor("output", SHAPE, dtype, 0, *out_quant))
    return tb.build(
        tb.Model(
            subgraphs=[
                tb.SubGraph(
                    tensors=tensors,
                    operators=[tb.Operator(0, list(range(count)), [count])],
                    inputs=list(range(count)),
                    outputs=[count],
                )
            ],
            opcodes=[tb.OpCode(tb.OPS.ADD_N)],
        )
    )


def test_add_n_float32(tmp_path):
    import tensorflow as tf

    data = tfmodels.convert(lambda a, b, c: tf.math.add_n([a, b, c]), [SHAPE] * 3, False)
    path = write_model(data, tmp_path)
    assert op_kinds(path) == ["ADD_N"]
    check_against_tflm(path, tmp_path, sets=2)


# name: (inputs, (input scale, zero point), (output scale, zero point), the output when every
# input is at its zero point: not the output zero point, as TFLM's sum starts from the input
# offset, -zero point, halved: -3 * 0.05 / 0.05 + 3 and 7 * 0.02 / 0.07 + 100)
INT8 = {
    "two_same_quant": (2, ([0.05], [3]), ([0.05], [3]), 0),
    # The output's wider scale and its zero point near the end of the range.
    "four_wider_out": (4, ([0.02], [-7]), ([0.07], [100]), 102),
}


@pytest.mark.parametrize("count,quant,out_quant,at_zero", INT8.values(), ids=INT8.keys())
def test_add_n_int8(tmp_path, count, quant, out_quant, at_zero):
    path = write_model(_int_model(count, tb.INT8, quant, out_quant), tmp_path)
    assert op_kinds(path) == ["ADD_N"]
    check_against_tflm(path, tmp_path, sets=2)
    # Every input at either end and at its zero point: the clamps at both ends and the
    # zero point TFLM's sum starts from.
    ends = [np.full(SHAPE, v, np.int8) for v in (-128, 127, quant[1][0])]
    mixed = [(np.arange(30, dtype=np.int8) * 8 - 120).reshape(SHAPE)] * count
    got = check_inputs(path, tmp_path, [[e] * count for e in ends] + [mixed]).outputs
    assert (got[1][0] == 127).all() and (got[2][0] == at_zero).all()
    # (count * (-128 - zero point) - zero point) * input scale / output scale + zero point.
    assert (got[0][0] == (-128 if count == 2 else -36)).all()


def test_add_n_rejects_int32(tmp_path):
    graph = load(write_model(_int_model(2, tb.INT32, (None, None), (None, None)), tmp_path))
    with pytest.raises(CompileError, match="ADD_N.*int8, float32"):
        lower_op(graph, graph.ops[0])
