"""How far an op's output may overlap an input that dies at that op.

A streaming kernel writes its output elements in a fixed order and, before
writing each one, reads a known range of input elements. Placing the output
below the input (forward order) or above it (reverse order) by at least a gap
keeps every input element intact until its last read. The gaps computed here
are exact for the element order of the crt kernels; the planner uses them, and
codegen tells the kernel which order the plan chose.
"""

from __future__ import annotations

import numpy as np

from .ir import Tensor
from .lowering import InPlace

# A gap so negative that it never binds.
UNCONSTRAINED = 1 << 40


def gaps(rmin: np.ndarray, rmax: np.ndarray, in_size: int, out_size: int) -> tuple[int, int]:
    """(forward, reverse) gaps in bytes from the input element range each output element reads.

    rmin/rmax[e]: lowest/highest input element read to produce output element e
    (elements in forward write order). Forward: input offset - output offset must
    be >= the first gap. Reverse: output offset - input offset >= the second.
    """
    n = rmin.size
    if n < 2:
        # One element is read whole before it is written: any overlap is safe.
        return -UNCONSTRAINED, -UNCONSTRAINED
    e = np.arange(n, dtype=np.int64)
    # Forward: writing element e must not reach input still read by elements > e.
    need_after = np.minimum.accumulate(rmin[::-1])[::-1]
    need_after = np.append(need_after[1:], np.iinfo(np.int64).max // 4)[:n]
    fwd = (e + 1) * out_size - need_after * in_size
    # Reverse: writing element e must stay above input still read by elements < e.
    need_before = np.maximum.accumulate(rmax)
    rev = need_before[:-1] * in_size + in_size - e[1:] * out_size
    return int(np.max(fwd[:-1])), int(np.max(rev))


def window_ranges(
    batches: int,
    in_hw: tuple[int, int],
    out_hw: tuple[int, int],
    k_hw: tuple[int, int],
    stride: tuple[int, int],
    pad: tuple[int, int],
) -> tuple[np.ndarray, np.ndarray]:
    """Lowest and highest input pixel (NHW order) read by each output pixel's window."""
    (h, w), (oh, ow), (kh, kw), (sh, sw), (ph, pw) = in_hw, out_hw, k_hw, stride, pad
    y0 = np.clip(np.arange(oh) * sh - ph, 0, h - 1)
    y1 = np.clip(np.arange(oh) * sh - ph + kh - 1, 0, h - 1)
    x0 = np.clip(np.arange(ow) * sw - pw, 0, w - 1)
    x1 = np.clip(np.arange(ow) * sw - pw + kw - 1, 0, w - 1)
    b = np.arange(batches)[:, None, None] * (h * w)
    lo = b + (y0[None, :, None] * w + x0[None, None, :])
    hi = b + (y1[None, :, None] * w + x1[None, None, :])
    return lo.reshape(-1).astype(np.int64), hi.reshape(-1).astype(np.int64)


def windowed(
    input_index: int,
    dims: dict[str, int],
    in_channels: int,
    out_channels: int,
    channel_of: np.ndarray | None,
    elem_in: int,
    elem_out: int,
) -> InPlace:
    """Gaps for conv-like kernels: pixels in NHW order, channels ascending within a pixel.

    channel_of[oc] is the one input channel output channel oc reads (depthwise,
    pooling); None means every input channel (full convolution).
    """
    lo, hi = window_ranges(
        dims["batches"],
        (dims["in_h"], dims["in_w"]),
        (dims["out_h"], dims["out_w"]),
        (dims["k_h"], dims["k_w"]),
        (dims["stride_h"], dims["stride_w"]),
        (dims["pad_h"], dims["pad_w"]),
    )
    if channel_of is None:
        rmin = np.repeat(lo * in_channels, out_channels)
        rmax = np.repeat(hi * in_channels + in_channels - 1, out_channels)
    else:
        rmin = (lo[:, None] * in_channels + channel_of[None, :]).reshape(-1)
        rmax = (hi[:, None] * in_channels + channel_of[None, :]).reshape(-1)
    forward, reverse = gaps(rmin, rmax, elem_in, elem_out)
    return InPlace(input_index, forward, reverse)


def elementwise(input_index: int, count: int, elem_in: int, elem_out: int) -> InPlace:
    """Output element i reads input element i only; forward order only."""
    idx = np.arange(count, dtype=np.int64)
    forward, _ = gaps(idx, idx, elem_in, elem_out)
    return InPlace(input_index, forward, None)


def unary(inp: Tensor, out: Tensor) -> tuple[InPlace, ...]:
    """The rule for a one-input element-wise kernel (activations, (de)quantisation)."""
    return (elementwise(inp.index, inp.num_elements, inp.dtype.size, out.dtype.size),)


def binary(a: Tensor, b: Tensor, out: Tensor) -> tuple[InPlace, ...]:
    """Either input of a two-input element-wise kernel, unless it broadcasts."""
    if not a.shape == b.shape == out.shape:
        return ()
    return tuple(
        elementwise(t.index, out.num_elements, t.dtype.size, out.dtype.size) for t in (a, b)
    )
