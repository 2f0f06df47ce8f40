"""DEPTH_TO_SPACE (NHWC, DCR order as TFLite): a strided walk (tinyaot_copy)."""

from __future__ import annotations

from ..ir import Graph, Op
from ..lowering import int_option, op_error
from .movement_common import Walk, check_shape, strided_op


def walk(graph: Graph, op: Op) -> Walk:
    inp, out = graph.tensor(op.inputs[0]), graph.tensor(op.outputs[0])
    block = int_option(graph, op, "BlockSize")
    if len(inp.shape) != 4 or block < 1 or inp.shape[3] % (block * block):
        raise op_error(
            graph,
            op,
            f"input {list(inp.shape)} with block {block} is not supported; supported: 4-D "
            "NHWC with a depth divisible by block * block",
        )
    n, h, w, c = inp.shape
    depth = c // (block * block)
    check_shape(graph, op, out, [n, h * block, w * block, depth])
    # Output (n, y * block + i, x * block + j, d) is input (n, y, x, (i * block + j) * depth + d).
    return Walk(
        0,
        [
            (n, h * w * c),
            (h, w * c),
            (block, block * depth),
            (w, c),
            (block, depth),
            (depth, 1),
        ],
    )


OP = strided_op("DEPTH_TO_SPACE", ("int8", "float32"), walk, "4-D NHWC; folds constant data")
