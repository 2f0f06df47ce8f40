"""PAD folded into the convolution that reads it.

Converters often write a convolution's padding as a PAD of the input zero point followed by a
VALID CONV_2D or DEPTHWISE_CONV_2D (MobileNets, FOMO). The padded cells then add
(zero point - zero point) * weight = 0 to each sum, exactly what a padded window's cells outside
the input add in the convolution itself. So the convolution can read the PAD's input, with the
PAD's leading rows and columns as its own padding (lowering.EXPLICIT_PADS): the same outputs,
bit for bit, without the PAD's time or its buffer.

Folded only where nothing else can tell: int8, the PAD's output read by that convolution alone
and not a graph output, its quantisation the input's, padding on height and width only, and
each side at most the window less one with no more before than after, as SAME padding has it,
which every convolution kernel takes.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from .ir import DType, Graph, Op, Tensor
from .lowering import EXPLICIT_PADS, PADDING_VALID

INTO = ("CONV_2D", "DEPTHWISE_CONV_2D")


def fold(graph: Graph) -> Graph:
    """The graph with every PAD that can be folded folded; the graph itself is left as it is."""
    readers = graph.consumers()
    by_index = {op.index: op for op in graph.ops}
    folded: dict[int, Op] = {}
    dropped: set[int] = set()
    for pad in graph.ops:
        reader = _fold_target(graph, pad, readers, by_index)
        if reader is None or reader.index in folded:
            continue
        top, left = _leading(graph, pad)
        folded[reader.index] = dataclasses.replace(
            reader,
            inputs=[pad.inputs[0], *reader.inputs[1:]],
            options={**reader.options, EXPLICIT_PADS: (top, left)},
        )
        dropped.add(pad.index)
    if not folded:
        return graph
    ops = [folded.get(op.index, op) for op in graph.ops if op.index not in dropped]
    return dataclasses.replace(graph, ops=ops)


def _paddings(graph: Graph, pad: Op) -> np.ndarray | None:
    """The PAD's [4, 2] paddings, or None where they are not constant 4-D int32."""
    if len(pad.inputs) < 2 or pad.inputs[1] is None:
        return None
    t = graph.tensor(pad.inputs[1])
    if t.data is None or t.dtype != DType.INT32 or t.num_elements != 8:
        return None
    return t.data.reshape(4, 2).astype(np.int64)


def _leading(graph: Graph, pad: Op) -> tuple[int, int]:
    p = _paddings(graph, pad)
    assert p is not None
    return int(p[1, 0]), int(p[2, 0])


def _fold_target(
    graph: Graph, pad: Op, readers: dict[int, list[int]], by_index: dict[int, Op]
) -> Op | None:
    """The convolution `pad` folds into, or None."""
    if pad.kind not in ("PAD", "PADV2") or len(pad.outputs) != 1 or pad.inputs[0] is None:
        return None
    inp, out = graph.tensor(pad.inputs[0]), graph.tensor(pad.outputs[0])
    if inp.dtype != DType.INT8 or out.dtype != DType.INT8 or inp.is_const:
        return None
    if inp.quant is None or inp.quant != out.quant or out.index in graph.outputs:
        return None
    if not _pads_with_zero_point(graph, pad, out):
        return None
    p = _paddings(graph, pad)
    users = readers.get(out.index, [])
    if p is None or len(users) != 1 or np.any(p[[0, 3]] != 0) or np.any(p < 0):
        return None
    reader = by_index[users[0]]
    if reader.kind not in INTO or reader.inputs[0] != out.index or out.index in reader.inputs[1:]:
        return None
    opts = reader.options
    if opts.get("Padding") != PADDING_VALID or EXPLICIT_PADS in opts:
        return None
    if (opts.get("DilationHFactor", 1), opts.get("DilationWFactor", 1)) != (1, 1):
        return None
    filt = graph.tensor(reader.inputs[1])
    if len(filt.shape) != 4:
        return None
    for (before, after), k in zip(p[1:3], filt.shape[1:3], strict=True):
        if before > after or after > k - 1:
            return None
    return reader


def _pads_with_zero_point(graph: Graph, pad: Op, out: Tensor) -> bool:
    """The pad value is the output zero point: PAD's own, or a constant of the output's
    quantisation that is that value."""
    if len(pad.inputs) < 3 or pad.inputs[2] is None:
        return True
    value = graph.tensor(pad.inputs[2])
    return (
        value.data is not None
        and value.num_elements == 1
        and value.quant == out.quant
        and int(value.data.reshape(-1)[0]) == out.zero_point
    )
