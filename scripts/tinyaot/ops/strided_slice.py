"""STRIDED_SLICE: a strided walk (tinyaot_copy), or a fold for constant data such as the
int32 shape arithmetic of Keras models.

Begin, end and strides follow TFLM's StridedSliceStartForAxis / EndForAxis (negative indices
wrap once, then clamp; the masks override). TFLM drops the ellipsis and new-axis masks and
the offset attribute, so models that set them are refused rather than computed otherwise.
"""

from __future__ import annotations

from ..ir import DType, Graph, Op
from ..lowering import op_error
from .movement_common import Walk, check_rank, check_shape, int_vector, row_strides, strided_op

MAX_RANK = 4  # TFLM's Prepare: "input dim should not exceed 4"


def _clamp(v: int, lo: int, hi: int) -> int:
    return min(max(v, lo), hi)


def walk(graph: Graph, op: Op) -> Walk:
    inp, out = graph.tensor(op.inputs[0]), graph.tensor(op.outputs[0])
    rank = check_rank(graph, op, inp, MAX_RANK)
    for name in ("EllipsisMask", "NewAxisMask", "Offset"):
        if op.options.get(name):
            raise op_error(
                graph,
                op,
                f"{name} {op.options[name]} is not supported (TFLM ignores it); supported: "
                "begin, end and shrink-axis masks",
            )
    vectors = []
    for i, what in ((1, "begin"), (2, "end"), (3, "strides")):
        if graph.tensor(op.inputs[i]).dtype != DType.INT32:
            raise op_error(graph, op, f"the {what} must be int32 (TFLM reads int32)")
        vectors.append(int_vector(graph, op, op.inputs[i], what, rank))
    begin, end, strides = vectors
    begin_mask = int(op.options.get("BeginMask", 0) or 0)
    end_mask = int(op.options.get("EndMask", 0) or 0)
    shrink_mask = int(op.options.get("ShrinkAxisMask", 0) or 0)
    in_strides = row_strides(inp.shape)
    offset, dims, shape = 0, [], []
    for axis, size in enumerate(inp.shape):
        step = strides[axis]
        if step == 0:
            raise op_error(graph, op, f"stride 0 on axis {axis}")
        start = begin[axis] + size if begin[axis] < 0 else begin[axis]
        start = _clamp(start, 0, size) if step > 0 else _clamp(start, -1, size - 1)
        if begin_mask >> axis & 1:
            start = 0 if step > 0 else size - 1
        if shrink_mask >> axis & 1:
            if not 0 <= start < size or step < 0:
                raise op_error(
                    graph,
                    op,
                    f"shrinking axis {axis} at {begin[axis]} with stride {step} selects no "
                    "element; supported: an index inside the axis with a positive stride",
                )
            offset += start * in_strides[axis]
            continue
        stop = end[axis] + size if end[axis] < 0 else end[axis]
        stop = _clamp(stop, 0, size) if step > 0 else _clamp(stop, -1, size - 1)
        if end_mask >> axis & 1:
            stop = size if step > 0 else -1
        count = max(0, -((start - stop) // step))
        offset += start * in_strides[axis]
        dims.append((count, step * in_strides[axis]))
        shape.append(count)
    check_shape(graph, op, out, shape)
    return Walk(offset, dims)


OP = strided_op(
    "STRIDED_SLICE",
    ("int8", "int16", "int32", "float32", "bool"),
    walk,
    "up to 4-D, constant begin/end/strides (negative strides, begin/end/shrink masks); "
    "folds constant data",
    inputs=(4, 4),
)
