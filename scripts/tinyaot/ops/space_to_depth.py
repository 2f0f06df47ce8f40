"""SPACE_TO_DEPTH (NHWC): a strided walk (tinyaot_copy)."""

from __future__ import annotations

from ..ir import Graph, Op
from ..lowering import int_option, op_error
from .movement_common import Walk, check_shape, strided_op


def walk(graph: Graph, op: Op) -> Walk:
    inp, out = graph.tensor(op.inputs[0]), graph.tensor(op.outputs[0])
    block = int_option(graph, op, "BlockSize")
    if len(inp.shape) != 4 or block < 1 or inp.shape[1] % block or inp.shape[2] % block:
        raise op_error(
            graph,
            op,
            f"input {list(inp.shape)} with block {block} is not supported; supported: 4-D "
            "NHWC with height and width divisible by the block",
        )
    n, h, w, c = inp.shape
    check_shape(graph, op, out, [n, h // block, w // block, c * block * block])
    # Output (n, y, x, (i * block + j) * c + d) is input (n, y * block + i, x * block + j, d).
    return Walk(
        0,
        [
            (n, h * w * c),
            (h // block, block * w * c),
            (w // block, block * c),
            (block, w * c),
            (block, c),
            (c, 1),
        ],
    )


OP = strided_op("SPACE_TO_DEPTH", ("int8", "float32"), walk, "4-D NHWC; folds constant data")
