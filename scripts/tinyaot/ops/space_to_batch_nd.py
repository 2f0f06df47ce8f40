"""SPACE_TO_BATCH_ND (3-D or 4-D) without paddings: a strided walk (tinyaot_copy).

TFLM pads with a value it never sets (SpaceToBatchParams::output_offset is left as the
arena holds it), so padded models are refused rather than given a guess."""

from __future__ import annotations

from ..ir import Graph, Op
from ..lowering import op_error
from .batch_to_space_nd import block_and_pads, nhwc
from .movement_common import Walk, check_shape, strided_op


def walk(graph: Graph, op: Op) -> Walk:
    inp, out = graph.tensor(op.inputs[0]), graph.tensor(op.outputs[0])
    (bh, bw), pads = block_and_pads(graph, op, inp, "paddings")
    if any(pads):
        raise op_error(
            graph,
            op,
            f"paddings {pads} are not supported (TFLM's pad value is undefined); supported: none",
        )
    n, h, w, c = nhwc(inp)
    if h % bh or w % bw:
        raise op_error(graph, op, f"height {h} and width {w} are not multiples of {bh}x{bw}")
    oh, ow = h // bh, w // bw
    expected = [n * bh * bw, oh, ow, c]
    check_shape(graph, op, out, expected if len(inp.shape) == 4 else [n * bh, oh, c])
    # Output ((i * bw + j) * n + b, y, x, d) is input (b, y * bh + i, x * bw + j, d).
    return Walk(
        0,
        [
            (bh, w * c),
            (bw, c),
            (n, h * w * c),
            (oh, bh * w * c),
            (ow, bw * c),
            (c, 1),
        ],
    )


OP = strided_op(
    "SPACE_TO_BATCH_ND",
    ("int8", "float32"),
    walk,
    "3-D or 4-D, constant block, no paddings (TFLM's pad value is undefined)",
    inputs=(3, 3),
)
