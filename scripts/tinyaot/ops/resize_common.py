"""What RESIZE_NEAREST_NEIGHBOR and RESIZE_BILINEAR share: the geometry and its checks."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..ir import DType, Graph, Op, Tensor
from ..lowering import op_error, require_const


@dataclass(frozen=True)
class Resize:
    inp: Tensor
    out: Tensor
    batches: int
    in_h: int
    in_w: int
    depth: int
    out_h: int
    out_w: int
    align_corners: bool
    half_pixel_centers: bool


def resize_geometry(graph: Graph, op: Op, stripe_in_h: int | None = None) -> Resize:
    """The 4-D input, the constant 2-value size and the output they make, as TFLM's Prepare
    requires them. Neither kernel rescales int8: like TFLM's, they write values in the input's
    quantisation whatever the output's says (the converter gives both the same). With
    `stripe_in_h`, the tensors are a stripe of rows of an op whose input has that height: the
    heights are the full op's."""
    inp, out = graph.tensor(op.inputs[0]), graph.tensor(op.outputs[0])
    if len(inp.shape) != 4:
        raise op_error(
            graph, op, f"input of rank {len(inp.shape)}; only 4-D is supported", inp.index
        )
    size = require_const(graph, op, op.inputs[1], "size", DType.INT32)
    assert size.data is not None
    if size.num_elements != 2 or len(size.shape) != 1:
        raise op_error(graph, op, "size must be 2 int32 values (height, width)", size.index)
    out_h, out_w = (int(v) for v in size.data)
    n, in_h, in_w, depth = inp.shape
    rows = out_h
    if stripe_in_h is not None:
        in_h, rows = stripe_in_h, out.shape[1]
    if tuple(out.shape) != (n, rows, out_w, depth) or min(out_h, out_w) < 1:
        raise op_error(
            graph,
            op,
            f"output shape {list(out.shape)} should be {[n, out_h, out_w, depth]}",
            out.index,
        )
    return Resize(
        inp,
        out,
        n,
        in_h,
        in_w,
        depth,
        out_h,
        out_w,
        bool(op.options.get("AlignCorners", False)),
        bool(op.options.get("HalfPixelCenters", False)),
    )


def float_scale(in_size: int, out_size: int, align_corners: bool) -> np.float32:
    """The float32 ratio both reference kernels step the input by."""
    if align_corners and out_size > 1:
        return np.float32(in_size - 1) / np.float32(out_size - 1)
    return np.float32(in_size) / np.float32(out_size)
