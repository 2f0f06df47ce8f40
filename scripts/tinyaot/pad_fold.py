"""A PAD of rows and columns before a convolution becomes the convolution's own padding.

Keras's ZeroPadding2D before a VALID convolution (how TensorFlow exports a strided "same"
layer) is a PAD op in the model: a copy of the whole input with a border, a tensor the arena
holds beside its input. A convolution treats a window's taps outside its input as the input
zero point, which is what such a PAD writes, so reading the unpadded input with the border
added to its padding gives the same sums, bit for bit, without the copy and its tensor.

The PAD is folded where nothing else can tell: its output feeds that one convolution and
nothing else; its border is on rows and columns only; the value it writes is the zero point
the convolution's input has (the output's, for int8; 0 for int16 and float32, which have none);
its input has the output's quantisation (PAD copies bytes, the convolution reads the input's
zero point); and every window still reads at least one row and one column of the input (the
fast kernels' padding never covers a whole window).
"""

from __future__ import annotations

from .errors import CompileError
from .ir import DType, Graph, Op, Tensor
from .lowering import FOLDED_PADS, window_extent, window_padding
from .quant import f32

# The PAD option that marks it folded into the convolution of this op index: no step.
FOLDED_INTO = "tinyaot_folded_into"

CONVOLUTIONS = ("CONV_2D", "DEPTHWISE_CONV_2D")
PADS = ("PAD", "PADV2")


def fold_pads(graph: Graph) -> None:
    """Folds every PAD that can be into the convolution that reads it (options above)."""
    # Each convolution is looked at once, so the maps of the graph as loaded serve throughout.
    producers, users = graph.producers(), graph.consumers()
    outputs = set(graph.outputs)
    for op in graph.ops:
        if op.kind not in CONVOLUTIONS or op.inputs[0] not in producers:
            continue
        pad = graph.ops[producers[op.inputs[0]]]  # type: ignore[index]
        if pad.kind not in PADS or pad.outputs[0] in outputs:
            continue
        if users.get(pad.outputs[0]) != [op.index] or op.inputs.count(pad.outputs[0]) != 1:
            continue
        border = _border(graph, pad, op)
        if border is not None:
            op.options[FOLDED_PADS] = border
            op.inputs[0] = pad.inputs[0]
            pad.options[FOLDED_INTO] = op.index


def _border(graph: Graph, pad: Op, conv: Op) -> tuple[int, int, int, int] | None:
    """(top, bottom, left, right) of a PAD the convolution can take, or None."""
    if len(pad.inputs) < 2 or pad.inputs[0] is None or pad.inputs[1] is None:
        return None
    inp, paddings = graph.tensor(pad.inputs[0]), graph.tensor(pad.inputs[1])
    out = graph.tensor(pad.outputs[0])
    if paddings.data is None or len(inp.shape) != 4 or paddings.num_elements != 8:
        return None
    p = [int(v) for v in paddings.data.reshape(-1)]
    if min(p) < 0 or p[0:2] != [0, 0] or p[6:8] != [0, 0]:
        return None
    if inp.dtype != out.dtype or inp.dtype not in (DType.INT8, DType.INT16, DType.FLOAT32):
        return None
    weights = graph.tensor(conv.inputs[1])
    if weights.dtype != (DType.FLOAT32 if inp.dtype == DType.FLOAT32 else DType.INT8):
        # A hybrid convolution quantises its float input, padding excluded.
        return None
    if _quant(inp) != _quant(out) or _pad_value(graph, pad) != out.zero_point:
        return None
    if not _windows_meet_input(graph, conv, inp.shape, p):
        return None
    return p[2], p[3], p[4], p[5]


def _quant(t: Tensor) -> tuple[tuple[float, ...], tuple[int, ...]] | None:
    if t.quant is None:
        return None
    return tuple(f32(s) for s in t.quant.scales), t.quant.zero_points


def _pad_value(graph: Graph, pad: Op) -> float | int | None:
    """What the PAD writes in the border, in the output's stored representation."""
    if len(pad.inputs) < 3 or pad.inputs[2] is None:
        out = graph.tensor(pad.outputs[0])
        return out.zero_point if out.dtype == DType.INT8 else 0
    value = graph.tensor(pad.inputs[2])
    if value.data is None or value.num_elements != 1:
        return None
    return value.data.reshape(-1)[0].item()


def _windows_meet_input(graph: Graph, conv: Op, shape: tuple[int, ...], p: list[int]) -> bool:
    weights = graph.tensor(conv.inputs[1])
    out = graph.tensor(conv.outputs[0])
    if len(weights.shape) != 4 or len(out.shape) != 4:
        return False
    dil = (conv.options.get("DilationHFactor", 1), conv.options.get("DilationWFactor", 1))
    if dil != (1, 1):
        return False
    size = (shape[1], shape[2])
    padded = (size[0] + p[2] + p[3], size[1] + p[4] + p[5])
    span = (window_extent(weights.shape[1], 1), window_extent(weights.shape[2], 1))
    try:
        own = window_padding(graph, conv, padded, span, (out.shape[1], out.shape[2]))
    except CompileError:
        return False
    for axis, before in enumerate((p[2], p[4])):
        stride = conv.options.get("StrideH" if axis == 0 else "StrideW")
        if not isinstance(stride, int):
            return False
        pad = own[axis] + before
        last = (out.shape[1 + axis] - 1) * stride - pad
        if pad > span[axis] - 1 or last > size[axis] - 1:
            return False
    return True
