"""Static memory plan: an offset in one arena for every activation buffer.

A buffer is live from the step that writes it (graph inputs: before the first
step) to the last step that reads it (graph outputs: after the last step). Two
buffers live at one step never share a byte, with one exception: an op's output
may overlap an input that dies at that op, when the kernel's element order keeps
every input byte intact until its last read (an Overlap, from inplace.py): at
least a gap apart, and for kernels that work channel by channel, a whole number
of pixels apart.

Offsets come from several greedy orders (lowest feasible offset for each buffer
in turn); the smallest arena wins. Everything is deterministic.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

TENSOR_ALIGNMENT = 4


@dataclass(frozen=True)
class Buffer:
    key: int
    size: int
    start: int
    end: int

    def live_with(self, other: Buffer) -> bool:
        return self.start <= other.end and other.start <= self.end


@dataclass(frozen=True)
class Overlap:
    """Buffer `out` may overlap buffer `inp` if inp - out >= forward or out - inp >= reverse,
    and inp - out is a multiple of modulus."""

    out: int
    inp: int
    forward: int
    reverse: int | None
    modulus: int = 1


@dataclass
class Plan:
    offsets: dict[int, int]
    size: int
    buffers: dict[int, Buffer] = field(default_factory=dict)
    overlaps: dict[tuple[int, int], Overlap] = field(default_factory=dict)


def _align(x: int, a: int) -> int:
    return (x + a - 1) // a * a


def clashes(b: Buffer, b_off: int, a: Buffer, a_off: int, rule: Overlap | None) -> bool:
    """Whether b at b_off shares a byte with a at a_off that no overlap rule allows."""
    if not b.live_with(a) or b_off + b.size <= a_off or a_off + a.size <= b_off:
        return False
    if rule is None:
        return True
    out_minus_inp = b_off - a_off if rule.out == b.key else a_off - b_off
    if out_minus_inp % rule.modulus:
        return True
    forward = -out_minus_inp >= rule.forward
    return not (forward or (rule.reverse is not None and out_minus_inp >= rule.reverse))


def forbidden(b: Buffer, a: Buffer, a_off: int, rule: Overlap | None) -> tuple[int, int] | None:
    """Offsets of b strictly between the bounds clash with a placed at a_off (ignoring the
    rule's modulus, which clashes() adds)."""
    if not b.live_with(a):
        return None
    lo, hi = a_off - b.size, a_off + a.size
    if rule is not None and rule.out == b.key:
        lo = max(lo, a_off - rule.forward)
        if rule.reverse is not None:
            hi = min(hi, a_off + rule.reverse)
    elif rule is not None:
        hi = min(hi, a_off + rule.forward)
        if rule.reverse is not None:
            lo = max(lo, a_off - rule.reverse)
    return (lo, hi) if lo + 1 < hi else None


def _candidates(b: Buffer, near: list[tuple[Buffer, int, Overlap | None]], alignment: int):
    """Offsets worth trying for b, lowest first: 0 and the upper end of each ban; with an
    overlap rule's modulus, also just above its buffer, and each of those moved up to the
    next offset the modulus allows; and above every live buffer, which never clashes."""
    found = {
        0,
        _align(max((o + a.size for a, o, _ in near if b.live_with(a)), default=0), alignment),
    }
    for a, a_off, rule in near:
        ban = forbidden(b, a, a_off, rule)
        if ban and ban[1] > 0:
            found.add(_align(ban[1], alignment))
        if ban and rule is not None and rule.modulus > 1:
            found.add(_align(a_off + a.size, alignment))
    for a, a_off, rule in near:
        if rule is not None and rule.modulus > 1 and b.live_with(a):
            step = math.lcm(rule.modulus, alignment)
            found |= {c + (a_off - c) % step for c in found}
    return sorted(found)


def _greedy(
    order: list[Buffer], rules: dict[tuple[int, int], Overlap], alignment: int
) -> dict[int, int]:
    offsets: dict[int, int] = {}
    placed: list[Buffer] = []
    for b in order:
        near = [
            (a, offsets[a.key], rules.get((min(a.key, b.key), max(a.key, b.key)))) for a in placed
        ]
        offsets[b.key] = next(
            c
            for c in _candidates(b, near, alignment)
            if not any(clashes(b, c, a, a_off, rule) for a, a_off, rule in near)
        )
        placed.append(b)
    return offsets


def plan(
    buffers: list[Buffer], overlaps: list[Overlap] = (), alignment: int = TENSOR_ALIGNMENT
) -> Plan:
    rules = {(min(o.out, o.inp), max(o.out, o.inp)): o for o in overlaps}
    orders = [
        sorted(buffers, key=lambda b: (-b.size, b.start, b.key)),
        sorted(buffers, key=lambda b: (b.start, -b.size, b.key)),
        sorted(buffers, key=lambda b: (b.start - b.end, -b.size, b.key)),
    ]
    best: dict[int, int] | None = None
    best_size = 0
    for order in orders:
        offsets = _greedy(order, rules, alignment)
        size = max((offsets[b.key] + b.size for b in buffers), default=0)
        if best is None or size < best_size:
            best, best_size = offsets, size
    assert best is not None or not buffers
    return Plan(
        offsets=best or {},
        size=_align(best_size, alignment),
        buffers={b.key: b for b in buffers},
        overlaps=rules,
    )


def check(p: Plan, alignment: int = TENSOR_ALIGNMENT) -> list[str]:
    """Every violation of the plan's invariants, for tests and the compiler's own assertion."""
    problems = []
    bufs = sorted(p.buffers.values(), key=lambda b: b.key)
    for b in bufs:
        off = p.offsets[b.key]
        if off % alignment or off < 0 or off + b.size > p.size:
            problems.append(f"buffer {b.key} at {off}+{b.size} is misaligned or outside the arena")
    for i, a in enumerate(bufs):
        for b in bufs[i + 1 :]:
            rule = p.overlaps.get((a.key, b.key))
            if clashes(b, p.offsets[b.key], a, p.offsets[a.key], rule):
                problems.append(f"buffers {a.key} and {b.key} are live together and clash")
    return problems
