"""RESIZE_NEAREST_NEIGHBOR: int8 and float32, align_corners and half_pixel_centers.

TFLM picks each output row's and column's source with float32 arithmetic that depends only
on the sizes and flags, so the compiler evaluates it (in float32, as TFLM does) and the
kernel only copies pixels from the offsets it is given. TFLM has no uint8 kernel.
"""

from __future__ import annotations

import math

import numpy as np

from .. import quant
from ..ir import Graph, Op
from ..lowering import TILE_ROWS, KernelCall, OpDef, TensorArg, int32_array
from .resize_common import float_scale, resize_geometry


def nearest(v: int, in_size: int, out_size: int, align_corners: bool, half: bool) -> int:
    """TFLM's GetNearestNeighbor."""
    scale = float_scale(in_size, out_size, align_corners)
    x = (np.float32(v) + np.float32(0.5 if half else 0.0)) * scale
    i = quant.round_half_away(float(x)) if align_corners else math.floor(float(x))
    i = min(i, in_size - 1)
    return max(i, 0) if half else i


def source_rows(graph: Graph, op: Op) -> list[int]:
    """The input row each output row copies."""
    r = resize_geometry(graph, op)
    flags = (r.align_corners, r.half_pixel_centers)
    return [nearest(y, r.in_h, r.out_h, *flags) for y in range(r.out_h)]


def lower(graph: Graph, op: Op) -> KernelCall:
    # A stripe of a patch stage (patch.py): its rows of the full op's output, from a window of
    # the full op's input rows.
    out0, in0, in_h = op.options.get(TILE_ROWS, (0, 0, None))
    r = resize_geometry(graph, op, in_h)
    pixel = r.depth * r.inp.dtype.size
    flags = (r.align_corners, r.half_pixel_centers)
    out_h = r.out.shape[1]
    rows = [
        (nearest(y, r.in_h, r.out_h, *flags) - in0) * r.in_w * pixel
        for y in range(out0, out0 + out_h)
    ]
    cols = [nearest(x, r.in_w, r.out_w, *flags) * pixel for x in range(r.out_w)]
    params = {
        "batches": r.batches,
        "out_h": out_h,
        "out_w": r.out_w,
        "image_bytes": r.inp.shape[1] * r.in_w * pixel,
        "pixel_bytes": pixel,
        "rows": int32_array(rows),
        "cols": int32_array(cols),
    }
    return KernelCall(
        "tinyaot_resize_nearest_neighbor",
        "tinyaot/resize_nearest_neighbor.h",
        "struct tinyaot_resize_nearest_neighbor_params",
        params,
        [TensorArg(r.inp.index), TensorArg(r.out.index, writable=True)],
    )


OP = OpDef(
    "RESIZE_NEAREST_NEIGHBOR",
    ("int8", "float32"),
    lower,
    "4-D, constant size, align_corners and half_pixel_centers; int8 not rescaled (as in TFLM)",
    inputs=(2, 2),
)
