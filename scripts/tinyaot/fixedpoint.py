"""gemmlowp's integer arithmetic on Python ints, as crt/include/tinyaot/fixedpoint.h has it.

The compiler evaluates element-wise int8 ops into tables with these; a table is only exact
if every rounding step matches the interpreter's.
"""

from __future__ import annotations

INT32_MIN, INT32_MAX = -(1 << 31), (1 << 31) - 1


def wrap32(x: int) -> int:
    """x as an int32 holds it after an overflow (two's complement)."""
    return (x + (1 << 31)) % (1 << 32) - (1 << 31)


def srdhm(a: int, b: int) -> int:
    """SaturatingRoundingDoublingHighMul (tinyaot_srdhm)."""
    if a == INT32_MIN and b == INT32_MIN:
        return INT32_MAX
    ab = a * b
    v = ab + ((1 << 30) if ab >= 0 else (1 - (1 << 30)))
    return v >> 31 if v >= 0 else -((-v) >> 31)


def rdbpot(x: int, e: int) -> int:
    """RoundingDivideByPOT: halves away from zero (tinyaot_rdbpot)."""
    mask = (1 << e) - 1
    threshold = (mask >> 1) + (1 if x < 0 else 0)
    return (x >> e) + (1 if (x & mask) > threshold else 0)


def mbqm(x: int, mult: int, shift: int) -> int:
    """tflite::MultiplyByQuantizedMultiplier with either sign of shift (tinyaot_mbqm)."""
    left, right = max(shift, 0), max(-shift, 0)
    return rdbpot(srdhm(wrap32(x << left), mult), right)


def saturate(x: int, lo: int, hi: int) -> int:
    return min(max(x, lo), hi)
