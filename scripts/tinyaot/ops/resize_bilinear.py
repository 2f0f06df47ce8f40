"""RESIZE_BILINEAR: int8 (TFLM's integer ResizeBilinearInteger) and float32.

Where each output row and column reads, and with what weights, depends only on the sizes
and flags: the compiler evaluates TFLM's index arithmetic (10-bit fixed point for int8,
float32 for float) and the kernel only blends. TFLM has no uint8 kernel, and refuses
align_corners together with half_pixel_centers.
"""

from __future__ import annotations

import math

import numpy as np

from ..ir import DType, Graph, Op
from ..lowering import ConstArray, KernelCall, OpDef, TensorArg, int32_array, op_error
from .resize_common import float_scale, resize_geometry

ONE = 1 << 10  # ResizeBilinearInteger's fixed-point 1


def trunc_div(a: int, b: int) -> int:
    """C's integer division (toward zero) for a positive b."""
    return a // b if a >= 0 else -(-a // b)


def integer_taps(
    in_size: int, out_size: int, align: bool, half: bool
) -> list[tuple[int, int, int]]:
    """(lower, upper, weight of upper in 1/1024) per output index, as
    ComputeInterpolationValuesInteger."""
    if align and out_size > 1:
        scale = (ONE * (in_size - 1) + (out_size - 1) // 2) // (out_size - 1)
    else:
        scale = (ONE * in_size + out_size // 2) // out_size
    taps = []
    for v in range(out_size):
        scaled = v * scale + scale // 2 - (1 << 9) if half else v * scale
        lower = max(trunc_div(scaled, ONE), 0)
        upper = min(trunc_div(scaled + ONE - 1, ONE), in_size - 1)
        taps.append((lower, upper, scaled - ONE * lower))
    return taps


def float_taps(
    in_size: int, out_size: int, align: bool, half: bool
) -> list[tuple[int, int, float]]:
    """(lower, upper, input position minus lower) per output index, in float32 as
    ComputeInterpolationValues."""
    scale = float_scale(in_size, out_size, align)
    taps = []
    for v in range(out_size):
        if half:
            pos = (np.float32(v) + np.float32(0.5)) * scale - np.float32(0.5)
        else:
            pos = np.float32(v) * scale
        lower = max(math.floor(pos), 0)
        upper = min(math.ceil(pos), in_size - 1)
        taps.append((lower, upper, float(pos - np.float32(lower))))
    return taps


def offsets(
    graph: Graph, op: Op, taps: list, in_size: int, step: int, name: str
) -> tuple[ConstArray, list[float]]:
    """The taps' two input offsets (in elements, `step` apart per index) with the integer
    weight, or the float weights on their own."""
    if any(lower >= in_size for lower, _, _ in taps):
        # TFLM would read past the input here (a rounding of the scale at large sizes).
        raise op_error(graph, op, f"output {name} {len(taps)} reads past input {name} {in_size}")
    ints = []
    for lower, upper, w in taps:
        ints += [lower * step, upper * step] + ([w] if isinstance(w, int) else [])
    return int32_array(ints), [w for _, _, w in taps if isinstance(w, float)]


def lower(graph: Graph, op: Op) -> KernelCall:
    r = resize_geometry(graph, op)
    align, half = r.align_corners, r.half_pixel_centers
    if align and half:
        raise op_error(
            graph, op, "align_corners with half_pixel_centers is not supported (nor by TFLM)"
        )
    taps = integer_taps if r.inp.dtype == DType.INT8 else float_taps
    rows, fy = offsets(
        graph, op, taps(r.in_h, r.out_h, align, half), r.in_h, r.in_w * r.depth, "height"
    )
    cols, fx = offsets(graph, op, taps(r.in_w, r.out_w, align, half), r.in_w, r.depth, "width")
    params: dict = {
        "batches": r.batches,
        "out_h": r.out_h,
        "out_w": r.out_w,
        "depth": r.depth,
        "image": r.in_h * r.in_w * r.depth,
        "rows": rows,
        "cols": cols,
    }
    kind = "s8"
    if r.inp.dtype == DType.FLOAT32:
        kind = "f32"
        params["fy"] = ConstArray("float", np.asarray(fy, np.float32))
        params["fx"] = ConstArray("float", np.asarray(fx, np.float32))
    return KernelCall(
        f"tinyaot_resize_bilinear_{kind}",
        "tinyaot/resize_bilinear.h",
        f"struct tinyaot_resize_bilinear_{kind}_params",
        params,
        [TensorArg(r.inp.index), TensorArg(r.out.index, writable=True)],
        macs=4 * r.batches * r.out_h * r.out_w * r.depth,
    )


OP = OpDef(
    "RESIZE_BILINEAR",
    ("int8", "float32"),
    lower,
    "4-D, constant size, align_corners or half_pixel_centers; int8 not rescaled (as in TFLM)",
    inputs=(2, 2),
)
