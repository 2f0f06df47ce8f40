"""How far an op's output may overlap an input that dies at that op.

A streaming kernel writes its output elements in a fixed order and, before
writing each one, reads a known range of input elements. Placing the output
below the input (forward order) or above it (reverse order) by at least a gap
keeps every input element intact until its last read. The gaps computed here
are exact for the element order of the crt kernels; the planner uses them, and
codegen tells the kernel which order the plan chose.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .ir import Tensor
from .lowering import InPlace

# A gap so negative that it never binds.
UNCONSTRAINED = 1 << 40


@dataclass(frozen=True)
class Steps:
    """A kernel's element order, as a sequence of steps in the order it executes them.

    Step t first reads input elements read_lo[t]..read_hi[t] (nothing when read_lo[t] >
    read_hi[t]; a superset of the true reads is safe), then writes output elements
    write_lo[t]..write_hi[t] - 1. A kernel that reads before each of several writes is
    several steps; one that reads once for a group of writes puts the reads on the first.
    """

    write_lo: np.ndarray
    write_hi: np.ndarray
    read_lo: np.ndarray
    read_hi: np.ndarray


NO_READ = (np.iinfo(np.int64).max // 4, -1)


def reversed_steps(steps: Steps) -> Steps:
    """The same steps executed last to first."""
    return Steps(
        steps.write_lo[::-1], steps.write_hi[::-1], steps.read_lo[::-1], steps.read_hi[::-1]
    )


def forward_gap(steps: Steps, in_size: int, out_size: int) -> int:
    """The least input offset - output offset at which no write clobbers a later read."""
    n = steps.write_lo.size
    reads = steps.read_lo <= steps.read_hi
    lo = np.where(reads, steps.read_lo, NO_READ[0]).astype(np.int64)
    # The lowest input element still to be read after step t.
    after = np.append(np.minimum.accumulate(lo[::-1])[::-1][1:], NO_READ[0])
    bind = after < NO_READ[0]
    if n == 0 or not np.any(bind):
        return -UNCONSTRAINED
    need = steps.write_hi.astype(np.int64) * out_size - after * in_size
    return int(np.max(need[bind]))


def reverse_gap(steps: Steps, in_size: int, out_size: int) -> int:
    """The least output offset - input offset at which no write clobbers a later read."""
    n = steps.write_lo.size
    reads = steps.read_lo <= steps.read_hi
    hi = np.where(reads, steps.read_hi, NO_READ[1]).astype(np.int64)
    # The highest input element still to be read after step t.
    after = np.append(np.maximum.accumulate(hi[::-1])[::-1][1:], NO_READ[1])
    bind = after > NO_READ[1]
    if n == 0 or not np.any(bind):
        return -UNCONSTRAINED
    need = (after + 1) * in_size - steps.write_lo.astype(np.int64) * out_size
    return int(np.max(need[bind]))


def element_steps(rmin: np.ndarray, rmax: np.ndarray, reverse: bool) -> Steps:
    """One step per output element, element e reading rmin[e]..rmax[e] just before its write."""
    e = np.arange(rmin.size, dtype=np.int64)
    order = e[::-1] if reverse else e
    return Steps(order, order + 1, rmin[order], rmax[order])


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


def window_ranges(dims: dict[str, int]) -> tuple[np.ndarray, np.ndarray]:
    """Lowest and highest input pixel (NHW order) read by each output pixel's window, from the
    geometry of struct tinyaot_conv_dims or tinyaot_pool_dims: a dilated window's first and
    last taps inside the input bound its reads."""
    h, w, oh, ow = dims["in_h"], dims["in_w"], dims["out_h"], dims["out_w"]
    sh, sw, ph, pw = dims["stride_h"], dims["stride_w"], dims["pad_h"], dims["pad_w"]
    dh, dw = dims.get("dil_h", 1), dims.get("dil_w", 1)
    ys, y1 = axis_taps(np.arange(oh) * sh - ph, dims["k_h"], dh, h)
    xs, x1 = axis_taps(np.arange(ow) * sw - pw, dims["k_w"], dw, w)
    b = np.arange(dims["batches"])[:, None, None] * (h * w)
    lo = b + (ys[None, :, None] * w + xs[None, None, :])
    hi = b + (y1[None, :, None] * w + x1[None, None, :])
    return lo.reshape(-1).astype(np.int64), hi.reshape(-1).astype(np.int64)


def axis_taps(start: np.ndarray, k: int, dil: int, size: int) -> tuple[np.ndarray, np.ndarray]:
    """The first and last input index along one axis that windows starting at `start` (k taps,
    dil apart) read inside [0, size), clipped to it where a window reads none."""
    first = np.where(start < 0, start + (-start + dil - 1) // dil * dil, start)
    last = start + (k - 1) * dil
    last = np.where(last >= size, last - (last - size + dil) // dil * dil, last)
    return np.clip(first, 0, size - 1), np.clip(last, 0, size - 1)


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
    lo, hi = window_ranges(dims)
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


def conv_fast_steps(
    dims: dict[str, int], in_c: int, out_c: int, patch: bool, reverse: bool
) -> Steps:
    """The element order of tinyaot_conv_fast_s8 (see tinyaot/conv_fast.h).

    Pixels go in pairs (2i, 2i+1), the last alone when their number is odd; for each block of
    four output channels the kernel reads both windows (PATCH: once per pair, before the first
    block) and writes the block's channels of both pixels; reverse takes pairs and blocks last
    to first. A block's writes are two steps (one per pixel) with the reads on the first: their
    order does not change any gap, since no read happens between them.
    """
    lo, hi = window_ranges(dims)
    pixels = lo.size
    pairs = (pixels + 1) // 2
    ia = np.arange(pairs, dtype=np.int64) * 2
    ib = np.minimum(ia + 1, pixels - 1)
    r_lo = np.minimum(lo[ia], lo[ib]) * in_c
    r_hi = np.maximum(hi[ia], hi[ib]) * in_c + in_c - 1
    blocks = (out_c + 3) // 4
    # Over four channels the highest block writes the last four (some again).
    oc0 = np.minimum(np.arange(blocks, dtype=np.int64) * 4, max(out_c - 4, 0))
    oc1 = np.minimum(oc0 + 4, out_c)
    if reverse:
        ia, ib, r_lo, r_hi = ia[::-1], ib[::-1], r_lo[::-1], r_hi[::-1]
        oc0, oc1 = oc0[::-1], oc1[::-1]
        first, second = ib, ia
    else:
        first, second = ia, ib
    # [pair, block, which of the two writes]
    shape = (pairs, blocks, 2)
    pix = np.stack(
        [np.broadcast_to(first[:, None], shape[:2]), np.broadcast_to(second[:, None], shape[:2])],
        axis=2,
    )
    w_lo = pix * out_c + oc0[None, :, None]
    w_hi = pix * out_c + oc1[None, :, None]
    reads = np.zeros(shape, dtype=bool)
    if patch:
        reads[:, 0, 0] = True
    else:
        reads[:, :, 0] = True
    rl = np.where(reads, r_lo[:, None, None], NO_READ[0])
    rh = np.where(reads, r_hi[:, None, None], NO_READ[1])
    return Steps(w_lo.reshape(-1), w_hi.reshape(-1), rl.reshape(-1), rh.reshape(-1))


def conv_fast(
    input_index: int, dims: dict[str, int], in_c: int, out_c: int, modes: set[int]
) -> InPlace:
    """Gaps of tinyaot_conv_fast_s8 (int8: one byte per element) that hold in each of its
    `modes` (0: PATCH, as tinyaot/conv_fast.h numbers them), one per target."""
    forward = max(
        forward_gap(conv_fast_steps(dims, in_c, out_c, m == 0, False), 1, 1) for m in modes
    )
    reverse = max(
        reverse_gap(conv_fast_steps(dims, in_c, out_c, m == 0, True), 1, 1) for m in modes
    )
    return InPlace(input_index, forward, reverse)


def dwconv_fast_steps(dims: dict[str, int], channels: int, group: int, reverse: bool) -> Steps:
    """The element order of tinyaot_dwconv_fast_s8 (see tinyaot/dwconv_fast.h), as seen when
    the output sits a whole number of pixels from the input (the rule's modulus).

    Groups of up to `group` consecutive pixels of an output row, in NHW order. The kernel reads
    and writes a group a chunk of channels at a time; but an output byte at a whole number of
    pixels from the input can only overwrite an input byte of its own channel, which the
    group's earlier chunks never read and its later ones already have. So the gaps are those of
    reading the windows of all the group's pixels, then writing all its outputs.
    """
    lo, hi = window_ranges(dims)
    ow = dims["out_w"]
    lines = lo.size // ow
    starts = np.arange(0, ow, group)
    ends = np.minimum(starts + group, ow)
    first = (np.arange(lines)[:, None] * ow + starts[None, :]).reshape(-1)
    last = (np.arange(lines)[:, None] * ow + ends[None, :]).reshape(-1)
    r_lo = np.array([lo[a:b].min() for a, b in zip(first, last, strict=True)]) * channels
    r_hi = np.array([hi[a:b].max() for a, b in zip(first, last, strict=True)]) * channels
    steps = Steps(first * channels, last * channels, r_lo, r_hi + channels - 1)
    if reverse:
        steps = Steps(
            *(a[::-1] for a in (steps.write_lo, steps.write_hi, steps.read_lo, steps.read_hi))
        )
    return steps


def dwconv_fast(input_index: int, dims: dict[str, int], channels: int, group: int) -> InPlace:
    """Gaps of tinyaot_dwconv_fast_s8 (int8), for offsets a whole number of pixels apart."""
    forward = forward_gap(dwconv_fast_steps(dims, channels, group, False), 1, 1)
    reverse = reverse_gap(dwconv_fast_steps(dims, channels, group, True), 1, 1)
    return InPlace(input_index, forward, reverse, channels)
