"""Compile-time preparation shared by the fast int8 kernels (conv, depthwise, fully connected).

The fast kernels compute acc = bias + sum(w * x) over raw int8 inputs, with the input zero
point folded into the bias (padding reads the zero point, so it contributes nothing), and
requantise with tinyaot/requant.h. Everything here checks, with bounds taken from the
actual weights, that the rewritten arithmetic gives TFLite's results bit for bit; when it
cannot, it returns None and the op keeps its reference kernel.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .fixedpoint import INT32_MAX, INT32_MIN, rdbpot, srdhm
from .ir import Tensor
from .lowering import ByTarget, ConstArray, InPlace, KernelCall, TensorArg

# Tests turn this off to compile the same model with the reference kernels only.
ENABLED = True


# The largest magnitude of an int8 input.
X_MAX = 128


def folded_bias(weights: np.ndarray, bias: np.ndarray | None, input_offset: int) -> np.ndarray:
    """bias + input_offset * sum(w) per output channel; weights are [channels, depth]."""
    w = weights.astype(np.int64)
    b = np.zeros(w.shape[0], dtype=np.int64) if bias is None else bias.astype(np.int64)
    return b + input_offset * w.sum(axis=1)


def acc_range(weights: np.ndarray, bias: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The least and greatest bias + sum(w * x) over all int8 inputs x, per channel (int64)."""
    w = weights.astype(np.int64)
    b = bias.astype(np.int64)
    least = b + np.where(w > 0, -128 * w, 127 * w).sum(axis=1)
    greatest = b + np.where(w > 0, 127 * w, -128 * w).sum(axis=1)
    return least, greatest


def fits_int32(weights: np.ndarray, bias: np.ndarray) -> bool:
    """No partial sum of the fast kernels' accumulation can overflow int32.

    Every partial sum (bias plus the products of some of the inputs) is within
    |bias| + 128 * sum(|w|) of zero.
    """
    w = np.abs(weights.astype(np.int64))
    return bool(np.all(np.abs(bias.astype(np.int64)) + X_MAX * w.sum(axis=1) <= INT32_MAX))


def mbqm(x: int, mult: int, shift: int) -> int:
    """tinyaot_mbqm for a right shift (shift <= 0), on Python ints."""
    return rdbpot(srdhm(x, mult), -shift)


def requant_entry(
    mult: int, shift: int, offset: int, acc: tuple[int, int]
) -> tuple[int, int, int] | None:
    """(m, h, e - 1) for tinyaot_requant(), or None when it would not be exact.

    tinyaot_requant() computes hi32(acc * m + h * 2^32 +- 2^30) >> (e - 1), which equals
    rdbpot(srdhm(acc, m), e) + offset for a right shift e >= 2 and m >= 0 as long as the
    upper word fits int32 for every acc in the range [acc[0], acc[1]]. A channel whose output
    is the same at both ends of the range (the requantisation is monotone), such as one with
    all weights zero, gets m = 0, e - 1 = 1 and h = 2 * output + 1: (h + s) >> 1 is the output
    whether the sign term s is 0 or -1.
    """
    lo, hi = acc
    if not (INT32_MIN <= lo <= hi <= INT32_MAX) or not 0 <= mult <= INT32_MAX or shift > 0:
        return None
    first, last = mbqm(lo, mult, shift), mbqm(hi, mult, shift)
    if first == last:
        return 0, 2 * (first + offset) + 1, 1
    e = -shift
    if e < 2:
        return None
    high = (1 << (e - 2)) + offset * (1 << (e - 1))
    if not INT32_MIN < high <= INT32_MAX:
        return None
    bound = max(-lo, hi)
    low_word = -bound * mult - (1 << 30) + (high << 32)
    high_word = bound * mult + (1 << 30) + (high << 32)
    if low_word >> 32 < INT32_MIN or high_word >> 32 > INT32_MAX:
        return None
    return mult, high, e - 1


def rounding_low_word(mult: int, acc: tuple[int, int]) -> int | None:
    """c of tinyaot_requant_c (tinyaot/requant.h) for a channel, or None.

    Its low word of the constant is 2^30 or -2^30 - 1 for c = 0x40000000, 2^30 - 1 or -2^30
    for c = 0x3fffffff: one off from tinyaot_requant's when the accumulator is negative, or
    positive, respectively. The 1 only reaches the upper word when acc * m + 2^30 (or - 2^30)
    is a multiple of 2^32, which needs acc * m = t * 2^30 with t odd: acc = u * 2^(30 - v)
    where 2^v is the largest power of two dividing m and u is odd, with u * (m >> v) = 1
    (negative acc) or 3 (positive acc) modulo 4. c is safe when the smallest such acc is
    outside the channel's range [acc[0], acc[1]].
    """
    if mult == 0:
        return 0x40000000
    v = (mult & -mult).bit_length() - 1
    odd = (mult >> v) % 4
    step = 1 << (30 - v)
    # u = odd (mod 4): the negative u nearest zero; u = 3 * odd: the positive one.
    if acc[0] > -(1 if odd == 3 else 3) * step:
        return 0x40000000
    if acc[1] < (1 if odd == 3 else 3) * step:
        return 0x3FFFFFFF
    return None


def requant_rows(
    mults: list[int], shifts: list[int], offset: int, acc: tuple[np.ndarray, np.ndarray]
) -> np.ndarray | None:
    """(m, h, e - 1) per channel for tinyaot_requant(), or None when one is not exact."""
    rows = []
    for m, s, lo, hi in zip(mults, shifts, acc[0].tolist(), acc[1].tolist(), strict=True):
        entry = requant_entry(int(m), int(s), offset, (int(lo), int(hi)))
        if entry is None:
            return None
        rows.append(entry)
    return np.asarray(rows, dtype=np.int64).reshape(-1, 3)


@dataclass(frozen=True)
class Requant:
    """What a fast kernel's table is made of: the bias with the input zero point folded in,
    the accumulator range per channel, and (m, h, e - 1) per channel for tinyaot_requant(), or
    None when a channel has none (channels() may still find a requantisation for it)."""

    folded: np.ndarray
    ranges: tuple[np.ndarray, np.ndarray]
    rows: np.ndarray | None


def exact_requant(
    weights: np.ndarray,
    bias: np.ndarray | None,
    zero_points: tuple[int, int],
    mults: list[int],
    shifts: list[int],
) -> Requant | None:
    """The fast kernels' accumulation for weights [channels, depth] and the input and output
    zero points, or None where it would not give TFLite's results bit for bit."""
    folded = folded_bias(weights, bias, -zero_points[0])
    if not fits_int32(weights, folded):
        return None
    ranges = acc_range(weights, folded)
    return Requant(folded, ranges, requant_rows(mults, shifts, zero_points[1], ranges))


def mbqm_array(acc: np.ndarray, mult: int, shift: int) -> np.ndarray:
    """mbqm for a right shift on int64 arrays, |acc| < 2^31 (srdhm is floor((a m + 2^30) / 2^31)
    for m >= 0, its saturating case needing m = INT32_MIN)."""
    e = -shift
    x = (acc.astype(np.int64) * mult + (1 << 30)) >> 31
    mask = (1 << e) - 1
    return (x >> e) + ((x & mask) > (mask >> 1) + (x < 0))


def clamped(acc: np.ndarray, mult: int, shift: int, offset: int) -> np.ndarray:
    """The int8 output TFLite gives for acc with the clamp of all of int8."""
    return np.clip(mbqm_array(acc, mult, shift) + offset, -128, 127)


def transitions(mult: int, shift: int, offset: int, acc: tuple[int, int]) -> np.ndarray | None:
    """(o, t) rows: t is the least accumulator in (acc[0], acc[1]] whose output is o or more, for
    every output above the one at acc[0]; None when a closed-form t fails the check.

    The output is at least o when RoundingDivideByPOT(y, e) >= v = o - offset, that is when
    y >= v * 2^e - 2^(e-1), plus 1 for v <= 0 (half rounds away from zero); and y = srdhm(acc, m)
    >= Y when acc * m + 2^30 >= Y * 2^31.
    """
    lo, hi = acc
    first, last = clamped(np.array([lo, hi]), mult, shift, offset).tolist()
    o = np.arange(first + 1, last + 1, dtype=np.int64)
    if o.size == 0:
        return np.zeros((0, 2), dtype=np.int64)
    e = -shift
    v = o - offset
    y = v if e == 0 else (v << e) - (1 << (e - 1)) + (v <= 0)
    t = -((-((y << 31) - (1 << 30))) // mult)
    if not (np.all(t > lo) and np.all(t <= hi)):
        return None
    if not (
        np.all(clamped(t, mult, shift, offset) >= o)
        and np.all(clamped(t - 1, mult, shift, offset) < o)
    ):
        return None
    return np.stack([o, t], axis=1)


def line_slopes(bounds: tuple[np.ndarray, np.ndarray]) -> tuple[int, int] | None:
    """The integer slopes m in [1, 2^31] for which some C has C >= o * 2^S - t * m for every
    (o, t) of bounds[0] and C < o * 2^S - t * m for every (o, t) of bounds[1], S = 32 +
    LINE_SHIFT: one pair of rows at a time, (t_i - t_j) m > (o_i - o_j) 2^S."""
    low, up = bounds
    m_lo, m_hi = 1, 1 << 31
    if low.size and up.size:
        a = ((low[:, None, 0] - up[None, :, 0]) << (32 + LINE_SHIFT)).ravel()
        b = (low[:, None, 1] - up[None, :, 1]).ravel()
        if np.any((b == 0) & (a >= 0)):
            return None
        if np.any(b > 0):
            m_lo = max(m_lo, int((a[b > 0] // b[b > 0]).max()) + 1)
        if np.any(b < 0):
            m_hi = min(m_hi, int((-((-a[b < 0]) // b[b < 0])).min()) - 1)
    return (m_lo, m_hi) if m_lo <= m_hi else None


# How many slopes, nearest the middle of those that fit, line_entry tries.
LINE_SLOPES = 8
# The right shift SSAT applies to the upper word (TINYAOT_LINE_SHIFT): 2 bits more precision
# for the slope, which a few channels of VWW and ResNet-8 need, while every layer of the shared
# models keeps m + 1 <= 2^31.
LINE_SHIFT = 2


def least_multiple(a: int, n: int, lo: int, hi: int) -> int | None:
    """The least x >= 0 with lo <= a * x mod n <= hi (0 <= lo <= hi < n), or None.

    Without a wrap (a * x in [lo, hi]) it is ceil(lo / a). Otherwise hi - lo < a, and x with
    a * x - n * y in [lo, hi] exists for the y with n * y mod a in [-hi mod a, -lo mod a],
    the same problem for (n mod a, a): Euclid's steps.
    """
    a %= n
    if lo == 0:
        return 0
    if a == 0:
        return None
    x = -(-lo // a)
    if a * x <= hi:
        return x
    y = least_multiple(n % a, a, (-hi) % a, (-lo) % a)
    return None if y is None else -(-(lo + n * y) // a)


def line_entry(
    mult: int, shift: int, offset: int, acc: tuple[int, int], headroom: int
) -> tuple[int, int, int] | None:
    """(b, m, h) of tinyaot_requant_line (tinyaot/requant.h) for a channel whose activation
    clamps to all of int8, or None.

    tinyaot_requant_line(acc + b, m, h) is SSAT8 of the upper word of h * 2^32 + (acc + b) *
    (m + 1), for acc + b >= 0, shifted right by LINE_SHIFT: floor((acc * (m + 1) + C) / 2^S)
    with C = h * 2^32 + b * (m + 1) and S = 32 + LINE_SHIFT. TFLite's output is one only where
    the two roundings' asymmetry around zero is clamped away, as it is under a ReLU whose zero
    point is -128: then its steps are those of a single line, every step t of transitions()
    fixes C to an interval for a slope, and line_slopes() finds the slopes for which the
    intervals meet. b (at most headroom, so that no partial sum overflows) is then the least
    for which C = h * 2^32 + b * (m + 1) falls inside (least_multiple).
    """
    lo, hi = acc
    if shift > 0 or not 0 <= mult <= INT32_MAX or not INT32_MIN <= lo <= hi <= INT32_MAX:
        return None
    ts = transitions(mult, shift, offset, acc) if mult else np.zeros((0, 2), dtype=np.int64)
    if ts is None:
        return None
    first, last = clamped(np.array([lo, hi]), mult, shift, offset).tolist()
    low, up = ts, ts - np.array([0, 1])
    if first > -128:
        low = np.concatenate([low, [[first, lo]]])
    if last < 127:
        up = np.concatenate([up, [[last + 1, hi]]])
    slopes = line_slopes((low, up))
    if slopes is None or -lo > headroom:
        return None
    S = 32 + LINE_SHIFT
    middle = (slopes[0] + slopes[1]) // 2
    nearest = (middle + (k // 2 if k % 2 else -k // 2) for k in range(LINE_SLOPES))
    for m in (m for m in nearest if slopes[0] <= m <= slopes[1]):
        c_min = int(((low[:, 0] << S) - low[:, 1] * m).max()) if low.size else -(1 << 62)
        c_max = int(((up[:, 0] << S) - up[:, 1] * m).min()) if up.size else 1 << 62
        # C = h * 2^32 + b * m in [c_min, c_max): b * m - c_min is 0 to c_max - c_min - 1
        # modulo 2^32, b counted from the least that keeps acc + b >= 0.
        start = max(-lo, 0)
        base = (start * m - c_min) % (1 << 32)
        width = min(c_max - c_min, 1 << 32)
        if base < width:
            x: int | None = 0
        else:
            x = least_multiple(m, 1 << 32, (1 << 32) - base, (1 << 32) - base + width - 1)
        if x is None or start + x > headroom or hi + start + x > INT32_MAX:
            continue
        b = start + x
        high = (c_min - b * m + (b * m - c_min) % (1 << 32)) >> 32
        if INT32_MIN <= high <= INT32_MAX:
            return b, m - 1, high
    return None


def line_rows(
    weights: np.ndarray, rq: Requant, mults: list[int], shifts: list[int], offset: int
) -> np.ndarray | None:
    """(b, m, h) per channel for tinyaot_requant_line, or None when one channel has none."""
    headroom = INT32_MAX - X_MAX * np.abs(weights.astype(np.int64)).sum(axis=1) - rq.folded
    rows = []
    for ch, (m, s) in enumerate(zip(mults, shifts, strict=True)):
        acc = (int(rq.ranges[0][ch]), int(rq.ranges[1][ch]))
        entry = line_entry(int(m), int(s), offset, acc, int(headroom[ch]))
        if entry is None:
            return None
        rows.append(entry)
    return np.asarray(rows, dtype=np.int64).reshape(-1, 3)


def padded(values: np.ndarray, length: int) -> np.ndarray:
    """values with zeros appended along the first axis up to length."""
    extra = length - values.shape[0]
    if extra <= 0:
        return values
    return np.concatenate([values, np.zeros((extra, *values.shape[1:]), dtype=values.dtype)])


def block_channels(channels: int) -> np.ndarray:
    """The channel at each place of the blocks of four of tinyaot_conv_fast_s8: over four
    channels, the highest block holds the last four, so that the Thumb-2 routines never
    store past them (tinyaot/conv_fast.h, `back`); under four, the padding follows."""
    blocks = (channels + 3) // 4
    if channels <= 4 or channels % 4 == 0:
        return np.arange(channels)
    return np.concatenate([np.arange(4 * (blocks - 1)), np.arange(channels - 4, channels)])


def block_table(bias: np.ndarray, words: np.ndarray, pad: tuple[int, ...]) -> ConstArray:
    """Per block of four channels: bias[4], then each channel's words (struct tinyaot_pair_job,
    struct fc_job). Channels past the last get bias 0 and the words pad, whose output is 0."""
    blocks = (bias.size + 3) // 4
    b = padded(bias.astype(np.int64), 4 * blocks).reshape(blocks, 4)
    fill = np.tile(np.array([pad], dtype=np.int64), (4 * blocks - words.shape[0], 1))
    r = np.concatenate([words, fill]).reshape(blocks, 4 * words.shape[1])
    return ConstArray("int32_t", np.concatenate([b, r], axis=1).reshape(-1).astype(np.int32))


def vector_table(
    folded: np.ndarray, mults: list[int], shifts: list[int], offset: int, order: np.ndarray
) -> ConstArray:
    """The Helium routines' table (crt/src/mve/conv_quads_mve.S): per block of four channels (in
    `order`, padded to whole blocks with zeros, whose output is 0), five vectors of the four
    channels' words: the folded bias, the left shift, the multiplier, minus the right shift
    (TFLite's MultiplyByQuantizedMultiplier), the output zero point."""
    shift = np.asarray(shifts, dtype=np.int64)[order]
    words = [
        folded.astype(np.int64)[order],
        np.maximum(shift, 0),
        np.asarray(mults, dtype=np.int64)[order],
        np.minimum(shift, 0),
        np.full(order.size, offset, dtype=np.int64),
    ]
    blocks = (order.size + 3) // 4
    vectors = [padded(w, 4 * blocks).reshape(blocks, 4) for w in words]
    return ConstArray("int32_t", np.stack(vectors, axis=1).reshape(-1).astype(np.int32))


# A padding channel's words: tinyaot_requant's (m 0, h 1, e - 1 = 1), then c, and the line's.
SIGN_PAD, SIGN_C_PAD, LINE_PAD = (0, 1, 1), (0, 1, 1, 1 << 30), (0, 0)


@dataclass(frozen=True)
class Channels:
    """What the conv and depthwise tables hold per channel: the accumulator's start (the
    folded bias, plus b for a line) and the requantisation's words, (m, h) of
    tinyaot_requant_line when line, else (m, h, e - 1, c) of tinyaot_requant_c; pad is a
    padding channel's words."""

    bias: np.ndarray
    words: np.ndarray
    line: bool

    @property
    def pad(self) -> tuple[int, ...]:
        return LINE_PAD if self.line else SIGN_C_PAD


def channels(
    weights: np.ndarray,
    rq: Requant,
    quant: tuple[list[int], list[int], int],
    act: tuple[int, int],
) -> Channels | None:
    """The line requantisation where the clamp is all of int8 and every channel has one, else
    tinyaot_requant_c where every channel has a low word, else None. quant: the multipliers,
    shifts and output zero point."""
    mults, shifts, offset = quant
    if act == (-128, 127):
        rows = line_rows(weights, rq, mults, shifts, offset)
        if rows is not None:
            return Channels(rq.folded + rows[:, 0], rows[:, 1:], True)
    words = []
    for ch, (m, s) in enumerate(zip(mults, shifts, strict=True)):
        acc = (int(rq.ranges[0][ch]), int(rq.ranges[1][ch]))
        entry = sign_words(int(m), int(s), offset, acc, act[0])
        if entry is None:
            return None
        words.append(entry)
    return Channels(rq.folded, np.asarray(words, dtype=np.int64).reshape(-1, 4), False)


def sign_words(
    mult: int, shift: int, offset: int, acc: tuple[int, int], act_min: int
) -> tuple[int, int, int, int] | None:
    """(m, h, e - 1, c) of tinyaot_requant_c for a channel: requant_entry's with
    rounding_low_word's c where both exist, else one_sided's."""
    entry = requant_entry(mult, shift, offset, acc)
    c = rounding_low_word(entry[0], acc) if entry is not None else None
    if entry is not None and c is not None:
        return (*entry, c)
    return one_sided(mult, shift, offset, acc, act_min)


def requant_c(acc: int, words: tuple[int, int, int, int]) -> int:
    """tinyaot_requant_c (tinyaot/requant.h) on Python ints, before the clamp."""
    m, h, shift, c = words
    s = -1 if acc < 0 else 0
    x = ((((h + s) & 0xFFFFFFFF) << 32) | ((c ^ s) & 0xFFFFFFFF)) + acc * m
    upper = (x >> 32) & 0xFFFFFFFF
    return (upper - (1 << 32) if upper >= 1 << 31 else upper) >> shift


def one_sided(
    mult: int, shift: int, offset: int, acc: tuple[int, int], act_min: int
) -> tuple[int, int, int, int] | None:
    """(m, h, e - 1, c) of tinyaot_requant_c exact for the channel's accumulators >= 0, where
    every negative one gives act_min or less both in TFLite and here; else None.

    For acc >= 0 TFLite's output is floor((acc * m + 2^30 + 2^(30 + e)) / 2^(31 + e)) +
    offset (SaturatingRoundingDoublingHighMul, then RoundingDivideByPOT rounding half up),
    which is the upper word of acc * m + K, K = h * 2^32 + c, shifted right by e - 1 for
    K = 2^30 + 2^(30 + e) + offset * 2^(31 + e). This holds for a right shift of 1 as well,
    which requant_entry cannot do, and whatever the rounding's low word. A negative acc gets
    the low word ~c and h - 1: both outputs are non-decreasing in acc, so it is enough that
    both are at most act_min at acc = -1, as they are for a ReLU whose clamp is the zero point.
    """
    lo, hi = acc
    e = -shift
    if e < 1 or not 0 <= mult <= INT32_MAX or not INT32_MIN <= lo <= hi <= INT32_MAX:
        return None
    k = (1 << 30) + (1 << (30 + e)) + offset * (1 << (31 + e))
    h, c = k >> 32, k & 0xFFFFFFFF
    words = (mult, h, e - 1, c - (1 << 32) if c >= 1 << 31 else c)
    if not INT32_MIN <= h or (k + max(hi, 0) * mult) >> 32 > INT32_MAX:
        return None
    if lo < 0:
        low = ((h - 1) << 32) + (c ^ 0xFFFFFFFF) + lo * mult
        if low >> 32 < INT32_MIN or mbqm(-1, mult, shift) + offset > act_min:
            return None
        if requant_c(-1, words) > act_min:
            return None
    return words


# tinyaot/dwconv_fast.h: TINYAOT_DWCONV_TAPS_MAX.
DW_TAPS_MAX = 32


def lower_dw_taps(
    inp: Tensor,
    filters: np.ndarray,
    bias: Tensor | None,
    out: Tensor,
    dims: dict[str, int],
    quant: tuple[list[int], list[int]],
    act: tuple[int, int],
    overlap: tuple[InPlace, ...],
) -> KernelCall | None:
    """tinyaot_dwconv_taps_s8 for a DEPTHWISE_CONV_2D of depth multiplier 1 and at most
    DW_TAPS_MAX taps, when exact; else None. filters are [1, k_h, k_w, channels]; overlap is
    the reference kernel's, whose gaps its element order keeps."""
    c, taps = dims["in_c"], dims["k_h"] * dims["k_w"]
    if not ENABLED or dims["out_c"] != c or taps > DW_TAPS_MAX:
        return None
    mults, shifts = quant
    weights = filters.astype(np.int64).reshape(taps, c).T
    bias_data = bias.data if bias is not None else None
    rq = exact_requant(weights, bias_data, (inp.zero_point, out.zero_point), mults, shifts)
    ch = channels(weights, rq, (mults, shifts, out.zero_point), act) if rq else None
    if ch is None:
        return None
    words = np.concatenate([ch.bias.astype(np.int64)[:, None], ch.words], axis=1)
    table = ConstArray("int32_t", words.reshape(-1).astype(np.int32))
    # Helium's path (crt/src/dwconv_fast.c) reads the vector table, which any multiplier takes.
    vectors = vector_table(rq.folded, mults, shifts, out.zero_point, np.arange(c))
    params = {
        "d": dims,
        "act_min": act[0],
        "act_max": act[1],
        "line": ByTarget(int(ch.line), int(ch.line), 0),
        "zero_row": ConstArray("int8_t", np.full(c, inp.zero_point, np.int8)),
        "weights": ConstArray("int8_t", filters.reshape(-1).astype(np.int8)),
        "table": ByTarget(table, table, vectors),
    }
    return KernelCall(
        "tinyaot_dwconv_taps_s8",
        "tinyaot/dwconv_fast.h",
        "struct tinyaot_dwconv_taps_params",
        params,
        [TensorArg(inp.index), TensorArg(out.index, writable=True)],
        macs=dims["batches"] * dims["out_h"] * dims["out_w"] * c * taps,
        inplace=overlap,
        reverse_param="d.reverse",
    )


ADD_MIN_ELEMENTS = 512


def add_table(zero_point: int, mult: int, shift: int, left_shift: int) -> np.ndarray | None:
    """MultiplyByQuantizedMultiplier((x - zero point) << left_shift, mult, shift) for every int8
    x, as TFLite's ADD rescales an input; None for a left shift of the multiplier."""
    if shift > 0:
        return None
    values = [mbqm((x - zero_point) << left_shift, mult, shift) for x in range(-128, 128)]
    return np.asarray(values, dtype=np.int64)


def lower_add(
    a: Tensor,
    b: Tensor,
    out: Tensor,
    left_shift: int,
    inputs: tuple[tuple[int, int], tuple[int, int]],
    output: tuple[int, int],
    act: tuple[int, int],
    overlap: tuple[InPlace, ...],
) -> KernelCall | None:
    """tinyaot_add_fast_s8 for int8 ADD without broadcasting, when exact; else None.

    Under ADD_MIN_ELEMENTS elements the two 1 KB tables would cost more flash than the time
    they save is worth, and the reference kernel stays.
    """
    if not ENABLED or not (a.shape == b.shape == out.shape):
        return None
    if out.num_elements < ADD_MIN_ELEMENTS:
        return None
    t1 = add_table(a.zero_point, inputs[0][0], inputs[0][1], left_shift)
    t2 = add_table(b.zero_point, inputs[1][0], inputs[1][1], left_shift)
    if t1 is None or t2 is None:
        return None
    lo, hi = int(t1.min() + t2.min()), int(t1.max() + t2.max())
    entry = requant_entry(output[0], output[1], out.zero_point, (lo, hi))
    if entry is None:
        return None
    params = {
        "count": out.num_elements,
        "mult": entry[0],
        "high": entry[1],
        "shift": entry[2],
        "act_min": act[0],
        "act_max": act[1],
        "table1": ConstArray("int32_t", t1.astype(np.int32)),
        "table2": ConstArray("int32_t", t2.astype(np.int32)),
    }
    return KernelCall(
        "tinyaot_add_fast_s8",
        "tinyaot/add_fast.h",
        "struct tinyaot_add_fast_params",
        params,
        [TensorArg(a.index), TensorArg(b.index), TensorArg(out.index, writable=True)],
        inplace=overlap,
    )
