"""BATCH_MATMUL: int8 and int16 (per-tensor, TFLM's FullyConnected-style requantisation; int16
with zero points 0 and an int64 sum, as TFLM) and float32.

adj_x / adj_y read the operand transposed in place (strides), where TFLM copies it
transposed first; up to three batch dims broadcast as NumPy does. Either operand may be
constant. Each output sums over the shared dim in ascending order from zero, as TFLM does,
so the float results are the same too.
"""

from __future__ import annotations

from .. import quant
from ..ir import DType, Graph, Op
from ..lowering import KernelCall, OpDef, TensorArg, op_error, require_quant
from . import hybrid_common

RANK = 5  # TFLM's limit: two matrix dims and three batch dims


def batch_strides(shape: tuple[int, ...]) -> list[int]:
    """Element strides of the three batch dims, 0 where the dim is 1 (broadcast)."""
    strides, step = [0] * RANK, 1
    for d in range(RANK - 1, -1, -1):
        strides[d] = step if shape[d] > 1 else 0
        step *= shape[d]
    return strides[:3]


def lower(graph: Graph, op: Op) -> KernelCall:
    lhs, rhs, out = (graph.tensor(i) for i in (op.inputs[0], op.inputs[1], op.outputs[0]))
    hybrid = lhs.dtype == DType.FLOAT32 and rhs.dtype == DType.INT8
    if rhs.dtype != lhs.dtype and not hybrid:
        raise op_error(
            graph, op, f"input dtypes {lhs.dtype.short} and {rhs.dtype.short} differ", rhs.index
        )
    for t in (lhs, rhs):
        if not 2 <= len(t.shape) <= RANK:
            raise op_error(graph, op, f"rank {len(t.shape)}; 2 to {RANK} are supported", t.index)
    a = (1,) * (RANK - len(lhs.shape)) + tuple(lhs.shape)
    b = (1,) * (RANK - len(rhs.shape)) + tuple(rhs.shape)
    adj_x, adj_y = bool(op.options.get("AdjX", False)), bool(op.options.get("AdjY", False))
    rows, depth = (a[4], a[3]) if adj_x else (a[3], a[4])
    b_depth, cols = (b[4], b[3]) if adj_y else (b[3], b[4])
    batch = []
    for d in range(3):
        if a[d] != b[d] and 1 not in (a[d], b[d]):
            raise op_error(
                graph,
                op,
                f"batch dims of {list(lhs.shape)} and {list(rhs.shape)} do not broadcast",
                rhs.index,
            )
        batch.append(max(a[d], b[d]))
    rank = max(len(lhs.shape), len(rhs.shape))
    expected = (batch + [rows, cols])[RANK - rank :]
    if b_depth != depth or list(out.shape) != expected:
        raise op_error(
            graph,
            op,
            f"{list(lhs.shape)} (adj_x {adj_x}) times {list(rhs.shape)} (adj_y {adj_y}) "
            f"does not make output {list(out.shape)}",
            out.index,
        )
    dims = {
        "batch": batch,
        "lhs_batch": batch_strides(a),
        "rhs_batch": batch_strides(b),
        "rows": rows,
        "cols": cols,
        "depth": depth,
        # Element strides of a row and a depth step of the lhs, a depth step and a column
        # of the rhs.
        "lhs_row": 1 if adj_x else depth,
        "lhs_depth": rows if adj_x else 1,
        "rhs_depth": 1 if adj_y else cols,
        "rhs_col": depth if adj_y else 1,
    }
    if hybrid:
        return hybrid_common.matmul(graph, op, dims, out)
    args = [TensorArg(lhs.index), TensorArg(rhs.index), TensorArg(out.index, writable=True)]
    macs = out.num_elements * depth
    if lhs.dtype == DType.FLOAT32:
        return KernelCall(
            "tinyaot_batch_matmul_f32",
            "tinyaot/batch_matmul.h",
            "struct tinyaot_batch_matmul_f32_params",
            {"d": dims},
            args,
            macs=macs,
        )
    require_quant(graph, op, [lhs.index, rhs.index, out.index])
    # GetQuantizedConvolutionMultipler: the input scales' product over the output's, in double.
    real = float(lhs.scale) * float(rhs.scale) / float(out.scale)
    mult, shift = quant.quantize_multiplier(real)
    if lhs.dtype == DType.INT16:
        for t in (lhs, rhs, out):
            if t.zero_point != 0:
                why = f"int16 operands and output must have zero point 0, not {t.zero_point}"
                raise op_error(graph, op, why, t.index)
        return KernelCall(
            "tinyaot_batch_matmul_s16",
            "tinyaot/batch_matmul.h",
            "struct tinyaot_batch_matmul_s16_params",
            {"d": dims, "multiplier": mult, "shift": shift},
            args,
            macs=macs,
        )
    params = {
        "d": dims,
        "lhs_offset": -lhs.zero_point,
        "rhs_offset": -rhs.zero_point,
        "output_offset": out.zero_point,
        "multiplier": mult,
        "shift": shift,
    }
    return KernelCall(
        "tinyaot_batch_matmul_s8",
        "tinyaot/batch_matmul.h",
        "struct tinyaot_batch_matmul_s8_params",
        params,
        args,
        macs=macs,
    )


OP = OpDef(
    "BATCH_MATMUL",
    ("int8", "int16", "float32"),
    lower,
    "adj_x, adj_y, ranks 2 to 5 with broadcast batch dims, constant or variable operands; "
    "int8 and int16 per-tensor",
    inputs=(2, 2),
    hybrid=1,
)
