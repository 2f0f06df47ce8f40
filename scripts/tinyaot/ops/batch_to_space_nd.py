"""BATCH_TO_SPACE_ND (3-D or 4-D, crops a multiple of the block): a strided walk
(tinyaot_copy). Other crops cut through the interleaving and are refused."""

from __future__ import annotations

from ..ir import Graph, Op, Tensor
from ..lowering import op_error
from .movement_common import Walk, check_shape, int_vector, strided_op


def block_and_pads(graph: Graph, op: Op, t: Tensor, what: str) -> tuple[list[int], list[int]]:
    """The block (height, width) and the crops or paddings (top, bottom, left, right) of a
    3-D or 4-D NHWC tensor, whose width is 1 when it is 3-D, as TFLM extends it."""
    if len(t.shape) not in (3, 4):
        raise op_error(graph, op, f"input rank {len(t.shape)} is not supported (3 or 4)", t.index)
    spatial = len(t.shape) - 2
    block = int_vector(graph, op, op.inputs[1], "block shape", spatial)
    pads = int_vector(graph, op, op.inputs[2], what, 2 * spatial)
    if spatial == 1:
        block, pads = [block[0], 1], [*pads, 0, 0]
    if min(block) < 1 or min(pads) < 0:
        raise op_error(graph, op, f"block {block} and {what} {pads} must be positive")
    return block, pads


def nhwc(t: Tensor) -> tuple[int, int, int, int]:
    n, h, *w, c = t.shape
    return n, h, w[0] if w else 1, c


def walk(graph: Graph, op: Op) -> Walk:
    inp, out = graph.tensor(op.inputs[0]), graph.tensor(op.outputs[0])
    (bh, bw), crops = block_and_pads(graph, op, inp, "crops")
    if any(p % (bh, bh, bw, bw)[i] for i, p in enumerate(crops)):
        raise op_error(
            graph,
            op,
            f"crops {crops} are not supported; supported: multiples of the block {bh}x{bw}",
        )
    top, bottom, left, right = crops
    n, h, w, c = nhwc(inp)
    if n % (bh * bw):
        raise op_error(graph, op, f"batch {n} is not a multiple of the block {bh}x{bw}")
    batch = n // (bh * bw)
    oh, ow = h - (top + bottom) // bh, w - (left + right) // bw
    expected = [batch, oh * bh, ow * bw, c]
    check_shape(graph, op, out, expected if len(inp.shape) == 4 else [batch, oh * bh, c])
    # Output (b, y * bh + i, x * bw + j, d) is input ((i * bw + j) * batch + b, y, x, d)
    # once the crops, whole blocks, are taken off y and x.
    image = h * w * c
    return Walk(
        (top // bh) * w * c + (left // bw) * c,
        [
            (batch, image),
            (oh, w * c),
            (bh, bw * batch * image),
            (ow, c),
            (bw, batch * image),
            (c, 1),
        ],
    )


OP = strided_op(
    "BATCH_TO_SPACE_ND",
    ("int8", "float32"),
    walk,
    "3-D or 4-D, constant block; crops multiples of the block",
    inputs=(3, 3),
)
