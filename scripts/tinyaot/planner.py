"""Static memory plan: an offset in one arena for every activation buffer.

A buffer is live from the step that writes it (graph inputs: before the first
step) to the last step that reads it (graph outputs: after the last step). Two
buffers live at the same step never overlap, unless the kernel of that step
declared that its output may take over an input's bytes.
"""

from __future__ import annotations

from dataclasses import dataclass, field

TENSOR_ALIGNMENT = 4


@dataclass
class Buffer:
    key: int
    size: int
    start: int
    end: int
    # Buffers this one may share bytes with although both are live at one step:
    # the step that writes this one reads them for the last time, and its kernel
    # works in place.
    may_overlap: frozenset[int] = frozenset()

    def live_with(self, other: Buffer) -> bool:
        return self.start <= other.end and other.start <= self.end


@dataclass
class Plan:
    offsets: dict[int, int]
    size: int
    buffers: dict[int, Buffer] = field(default_factory=dict)


def _align(x: int, a: int) -> int:
    return (x + a - 1) // a * a


def conflicts(a: Buffer, b: Buffer) -> bool:
    """Must a and b occupy disjoint bytes?"""
    if not a.live_with(b):
        return False
    return not (a.key in b.may_overlap or b.key in a.may_overlap)


def plan(buffers: list[Buffer], alignment: int = TENSOR_ALIGNMENT) -> Plan:
    """Greedy by size (largest first), each at the lowest offset that fits beside its conflicts."""
    order = sorted(buffers, key=lambda b: (-b.size, b.start, b.key))
    placed: list[tuple[int, Buffer]] = []
    offsets: dict[int, int] = {}
    for buf in order:
        busy = sorted((off, off + other.size) for off, other in placed if conflicts(buf, other))
        offset = 0
        for lo, hi in busy:
            if offset + buf.size <= lo:
                break
            offset = max(offset, _align(hi, alignment))
        offsets[buf.key] = offset
        placed.append((offset, buf))
    size = max((offsets[b.key] + b.size for b in buffers), default=0)
    return Plan(offsets=offsets, size=_align(size, alignment), buffers={b.key: b for b in buffers})


def check(plan_: Plan, alignment: int = TENSOR_ALIGNMENT) -> list[str]:
    """Every violation of the plan's invariants, for tests and the compiler's own assertion."""
    problems = []
    bufs = list(plan_.buffers.values())
    for b in bufs:
        off = plan_.offsets[b.key]
        if off % alignment or off < 0 or off + b.size > plan_.size:
            problems.append(f"buffer {b.key} at {off}+{b.size} is misaligned or outside the arena")
    for i, a in enumerate(bufs):
        for b in bufs[i + 1 :]:
            if not conflicts(a, b):
                continue
            oa, ob = plan_.offsets[a.key], plan_.offsets[b.key]
            if oa < ob + b.size and ob < oa + a.size:
                problems.append(f"buffers {a.key} and {b.key} are live together and overlap")
    return problems
