"""Static memory plan: an offset in one arena for every activation buffer.

A buffer is live from the step that writes it (graph inputs: before the first
step) to the last step that reads it (graph outputs: after the last step). Two
buffers live at one step never share a byte, with one exception: an op's output
may overlap an input that dies at that op, when the kernel's element order keeps
every input byte intact until its last read (an Overlap, from inplace.py).

Offsets come from several greedy orders (lowest feasible offset for each buffer
in turn); the smallest arena wins. Everything is deterministic.
"""

from __future__ import annotations

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
    """Buffer `out` may overlap buffer `inp` if inp - out >= forward or out - inp >= reverse."""

    out: int
    inp: int
    forward: int
    reverse: int | None


@dataclass
class Plan:
    offsets: dict[int, int]
    size: int
    buffers: dict[int, Buffer] = field(default_factory=dict)
    overlaps: dict[tuple[int, int], Overlap] = field(default_factory=dict)


def _align(x: int, a: int) -> int:
    return (x + a - 1) // a * a


def forbidden(b: Buffer, a: Buffer, a_off: int, rule: Overlap | None) -> tuple[int, int] | None:
    """Offsets of b strictly between the bounds clash with a placed at a_off."""
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


def _greedy(
    order: list[Buffer], rules: dict[tuple[int, int], Overlap], alignment: int
) -> dict[int, int]:
    offsets: dict[int, int] = {}
    placed: list[Buffer] = []
    for b in order:
        bans = []
        for a in placed:
            ban = forbidden(b, a, offsets[a.key], rules.get((min(a.key, b.key), max(a.key, b.key))))
            if ban:
                bans.append(ban)
        candidates = sorted({0, *(_align(hi, alignment) for _, hi in bans if hi > 0)})
        offsets[b.key] = next(c for c in candidates if all(c <= lo or c >= hi for lo, hi in bans))
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
            ban = forbidden(b, a, p.offsets[a.key], p.overlaps.get((a.key, b.key)))
            if ban and ban[0] < p.offsets[b.key] < ban[1]:
                problems.append(f"buffers {a.key} and {b.key} are live together and clash")
    return problems
