"""Patch-based execution: the first layers of a CNN run stripe by stripe under an arena budget.

A layer-by-layer plan holds a large convolution's input and output at once. A patch stage runs
windowed layers (CONV_2D, DEPTHWISE_CONV_2D, AVERAGE_POOL_2D, MAX_POOL_2D) one
stripe of the stage's output rows at a time: each stripe goes through all the stage's layers
from the rows of the stage input it needs, so only one stripe's intermediates are live.
Stripes span whole rows, so every window is contiguous in memory and the last layer writes
its rows straight into the stage output; overlapping rows are computed once per stripe that
needs them (the extra MACs).

Between them a stage may hold PADs, activations, QUANTIZE and DEQUANTIZE, elementwise ops with
a constant the same for every row (PReLU's MUL and MAXIMUM), residual blocks (an ADD without
broadcasting), nearest-neighbour resizes (each output row copies one input row the sizes
choose) and concatenations along columns or channels. Past its first layer, a layer may read
tensors made before the stage (a U-Net's skip connection), which stay whole. A tensor that
several layers read is computed, in each stripe, over the rows all of them need; the other
ops read exactly the rows they need, through views of those buffers (or of the tensors made
before).

Each layer of a stripe is the op lowered again on tensors of the stripe's shape, with its
padding relative to the stripe's window (lowering.TILE_PADS): the kernel the op would get at
that size, on the same arithmetic per output element. A window row outside the image is padding
to the kernel exactly as in the full layer, because each window holds every image row its
outputs read, so the kernel's bounds are the image's. The stripes' buffers are tensors of their
own, so the planner places them and its checker proves them free of overlaps like any other.
"""

from __future__ import annotations

import copy
import dataclasses
import itertools
from collections.abc import Callable
from typing import TYPE_CHECKING

import numpy as np

from . import planner
from .errors import CompileError
from .ir import Graph, Op, Tensor
from .lowering import (
    TILE_PADS,
    TILE_ROWS,
    InPlace,
    KernelCall,
    TensorArg,
    TensorList,
    tensor_args,
    window_extent,
)
from .ops import resize_nearest_neighbor

if TYPE_CHECKING:
    from .compiler import Step

WINDOWED = ("CONV_2D", "DEPTHWISE_CONV_2D", "AVERAGE_POOL_2D", "MAX_POOL_2D")
# Ops of one input a stage runs on rows: each output element reads the input element at its
# index.
ELEMENTWISE = (
    "HARD_SWISH",
    "RELU",
    "RELU6",
    "RELU_N1_TO_1",
    "LEAKY_RELU",
    "LOGISTIC",
    "TANH",
    "QUANTIZE",
    "DEQUANTIZE",
)
# Elementwise ops of two inputs: of two stage tensors of one shape (a residual ADD), or of one
# and a constant the same for every row (a per-channel scale, PReLU's MUL and MAXIMUM).
BINARY = ("ADD", "SUB", "MUL", "MAXIMUM", "MINIMUM")
# An overlap rule's bound that every placement meets.
ANYWHERE = 1 << 30
# Stripes beyond this many cost more in code and parameters than they save.
MAX_STRIPES = 16
# Which layers keep the rows the next stripe shares instead of recomputing them (no MAC
# repeated, the kept rows live across stripes): none, all but those reading the stage input
# (whole anyway, so their recomputed rows cost MACs and no buffer), or all.
KEEP = ("none", "inner", "all")
# The extra MACs a plan may cost by default, in percent of the layer-by-layer MACs.
DEFAULT_MAX_EXTRA_MACS = 20


@dataclasses.dataclass(frozen=True)
class Layer:
    """A stage layer's row geometry (columns stay whole)."""

    step: int
    k: int
    stride: int
    pad: int
    in_h: int
    out_h: int
    # Bytes of one output row, and MACs per output row.
    row_bytes: int
    row_macs: int
    # The stage layers whose outputs it reads, one per data input (-1: a tensor made before the
    # stage, read whole).
    sources: tuple[int, ...] = (-1,)
    # Where each output row reads one input row chosen by the sizes (RESIZE_NEAREST_NEIGHBOR):
    # that row, per output row; else its window above.
    source_rows: tuple[int, ...] = ()


@dataclasses.dataclass(frozen=True)
class Stripe:
    """One stripe: per layer, the output rows its buffer holds (every row a layer reading it
    reads), the rows it computes and the rows of its inputs those read. Without kept rows a
    layer computes all its buffer holds; with them, the rows the stripe before computed come
    from that stripe (`kept`: the rows of each buffer the next stripe takes over)."""

    out_rows: tuple[tuple[int, int], ...]
    in_rows: tuple[tuple[int, int], ...]
    new_rows: tuple[tuple[int, int], ...]
    kept: tuple[tuple[int, int], ...]


@dataclasses.dataclass(frozen=True)
class Candidate:
    start: int
    depth: int
    stripes: tuple[Stripe, ...]
    # The stage's own arena without in-place overlaps, and the MACs the stripes add.
    estimate: int
    extra_macs: int
    # The stage's own part of the estimate.
    own: int = 0
    # Which layers keep the rows the next stripe shares (KEEP).
    keep: str = "none"


@dataclasses.dataclass
class PatchPlan:
    """The stage the compiler chose, for the report."""

    first_step: int
    depth: int
    stripes: int
    kinds: tuple[str, ...]
    out_shape: tuple[int, ...]
    extra_macs: int
    base_macs: int
    base_arena: int
    # Steps per stripe: a layer a stripe needs no row of is left out of it, a copy of kept rows
    # counts.
    stripe_steps: tuple[int, ...]
    # Which layers keep the rows the next stripe shares (KEEP), kept_bytes at most at once.
    keep: str = "none"
    kept_bytes: int = 0

    @property
    def steps(self) -> int:
        """The steps the stage became."""
        return sum(self.stripe_steps)


def layers(
    graph: Graph, steps: list, root: dict[int, int], start: int, end: int | None = None
) -> list[Layer]:
    """The longest run of layers from steps[start] (up to steps[end]) that a stage can run:
    windowed layers, PADs, activations, elementwise ops, nearest-neighbour resizes and
    concatenations (a batch of one, NHWC), the first reading the stage input (steps[start]'s
    first), the others outputs of the run before them or tensors made before the stage. Which
    prefixes are stages: `depths`."""
    if not steps[start].op.inputs or steps[start].op.inputs[0] is None:
        return []
    stage_in = root[steps[start].op.inputs[0]]
    # Root -> (layer, shape) of what the run made; the stage input as layer -1.
    made = {stage_in: (-1, graph.tensors[steps[start].op.inputs[0]].shape)}
    chain: list[Layer] = []
    for i in range(start, len(steps) if end is None else end):
        step = steps[i]
        if step.call.custom is not None:
            break
        sources = _sources(graph, step, made, root, first=not chain)
        geometry = _geometry(graph, step, first=not chain)
        if sources is None or geometry is None:
            break
        out = graph.tensors[step.op.outputs[0]]
        made[root[out.index]] = (len(chain), out.shape)
        out_h = geometry[4]
        chain.append(
            Layer(
                i,
                *geometry[:5],
                out.nbytes // out_h,
                step.call.macs // out_h,
                sources,
                geometry[5],
            )
        )
    return chain


def externals(graph: Graph, steps: list, root: dict[int, int], chain: list[Layer]) -> set[int]:
    """The tensors (roots) made before the stage that its layers read: the stage input and
    those read further in."""
    found = set()
    for layer in chain:
        op = steps[layer.step].op
        for src, p in zip(layer.sources, data_positions(graph, op), strict=True):
            if src < 0:
                found.add(root[op.inputs[p]])  # type: ignore[index]
    return found


def depths(graph: Graph, steps: list, root: dict[int, int], chain: list[Layer]) -> list[int]:
    """The prefixes of the run (2 layers or more) that are stages: no layer before the last
    writes a graph output or a tensor that anything after the prefix reads."""
    readers: dict[int, int] = {}
    for s in steps:
        for a in tensor_args(s.call.args):
            if not a.writable:
                readers[root[a.index]] = readers.get(root[a.index], 0) + 1
    outputs = {root[t] for t in graph.outputs}
    found = []
    for depth in range(2, len(chain) + 1):
        inside: dict[int, int] = {}
        for layer in chain[:depth]:
            for src in layer.sources:
                inside[src] = inside.get(src, 0) + 1
        closed = all(
            root[steps[layer.step].op.outputs[0]] not in outputs
            and readers.get(root[steps[layer.step].op.outputs[0]], 0) == inside.get(j, 0)
            for j, layer in enumerate(chain[: depth - 1])
        )
        if closed:
            found.append(depth)
    return found


def _sources(
    graph: Graph,
    step: Step,
    made: dict[int, tuple[int, tuple[int, ...]]],
    root: dict[int, int],
    first: bool,
) -> tuple[int, ...] | None:
    """The stage layers (-1: a tensor made before the stage) a layer's data inputs are, or None
    when the first layer reads another than the stage input, or a layer reads a view of
    another shape than what the stage made (its rows would not be the maker's)."""
    data = [step.op.inputs[p] for p in data_positions(graph, step.op)]
    read = [a.index for a in tensor_args(step.call.args) if not a.writable]
    if step.op.kind not in BINARY and read[: len(data)] != data:
        return None
    sources: list[int] = []
    for t in data:
        assert t is not None
        if graph.tensors[t].is_const:
            return None
        layer, shape = made.get(root[t], (-1, graph.tensors[t].shape))
        if first and root[t] not in made:
            return None
        if not first and shape != graph.tensors[t].shape:
            return None
        sources.append(layer)
    return tuple(sources)


Geometry = tuple[int, int, int, int, int, tuple[int, ...]]


def _geometry(graph: Graph, step: Step, first: bool) -> Geometry | None:
    """(window, stride, padding above, input rows, output rows, source rows) of a layer a
    stage can run (Layer)."""
    if TILE_PADS in step.op.options or TILE_ROWS in step.op.options:
        # A stripe of a stage planned before.
        return None
    params = step.call.params
    d = params.get("d") if isinstance(params, dict) else None
    if step.op.kind in WINDOWED and isinstance(d, dict) and d.get("batches") == 1:
        # A dilated window reads rows of the span in between too, as far as the stage knows.
        span = window_extent(d["k_h"], d.get("dil_h", 1))
        return span, d["stride_h"], d["pad_h"], d["in_h"], d["out_h"], ()
    if not step.op.inputs or step.op.inputs[0] is None or len(step.op.outputs) != 1:
        return None
    inp, out = graph.tensor(step.op.inputs[0]), graph.tensor(step.op.outputs[0])
    if len(inp.shape) != 4 or inp.shape[0] != 1 or len(out.shape) != 4:
        return None
    h = out.shape[1]
    if step.op.kind in ELEMENTWISE and len(step.op.inputs) == 1 and inp.shape == out.shape:
        return 1, 1, 0, h, h, ()
    if step.op.kind == "RESIZE_NEAREST_NEIGHBOR":
        rows = tuple(resize_nearest_neighbor.source_rows(graph, step.op))
        return 1, 1, 0, inp.shape[1], h, rows
    if step.op.kind == "CONCATENATION":
        # Along columns or channels: output row r is row r of every input.
        axis = int(step.op.options.get("Axis", 0)) % 4
        ins = [graph.tensor(t) for t in step.op.inputs if t is not None]
        if axis < 2 or first or any(len(t.shape) != 4 or t.shape[1] != h for t in ins):
            return None
        return 1, 1, 0, h, h, ()
    if len(step.op.inputs) != 2:
        return None
    if step.op.kind in BINARY:
        # Output row r reads row r of each stage tensor, and the constant's only row.
        data = data_positions(graph, step.op)
        consts = [graph.tensor(t) for t in step.op.inputs if graph.tensor(t).is_const]
        inp = graph.tensor(step.op.inputs[data[0]]) if data else inp
        if not data or (first and len(data) > 1) or len(data) + len(consts) != 2:
            return None
        if any(graph.tensor(step.op.inputs[p]).shape != out.shape for p in data):
            return None
        if any(len(c.shape) > 2 and c.shape[-3] != 1 or len(c.shape) > 4 for c in consts):
            return None
        if out.shape != inp.shape or inp.dtype.short not in ("int8", "float32"):
            return None
        return 1, 1, 0, h, h, ()
    # A PAD of rows and columns, inside a stage (its stripes are windows of its input).
    pads = graph.tensor(step.op.inputs[1]).data
    if step.op.kind != "PAD" or pads is None:
        return None
    pads = pads.reshape(-1)
    if pads[0] or pads[1]:
        return None
    return 1, 1, int(pads[2]), inp.shape[1], h, ()


def data_positions(graph: Graph, op: Op) -> tuple[int, ...]:
    """Which of the op's inputs are its data, the tensors a stage makes or reads row by row."""
    if op.kind == "CONCATENATION":
        return tuple(range(len(op.inputs)))
    if op.kind not in BINARY:
        return (0,)
    return tuple(
        i for i, t in enumerate(op.inputs) if t is not None and not graph.tensors[t].is_const
    )


def _reads(layer: Layer, a: int, b: int) -> tuple[int, int]:
    """The input rows that output rows [a, b) of the layer read."""
    if layer.source_rows:
        if a >= b:
            lo = layer.source_rows[a] if a < layer.out_h else layer.in_h
            return lo, lo
        return layer.source_rows[a], layer.source_rows[b - 1] + 1
    # A stripe of a PAD's padding rows alone needs no row of what comes before it.
    lo = min(layer.in_h, max(0, a * layer.stride - layer.pad))
    if a >= b:
        return lo, lo
    return lo, max(lo, min(layer.in_h, (b - 1) * layer.stride - layer.pad + layer.k))


def stripes(chain: list[Layer], count: int, keep: str = "none") -> tuple[Stripe, ...] | None:
    """The stage's output rows cut into `count` stripes of near-equal height, each traced back
    through the layers to the rows it needs: of a tensor several layers read, the span of
    what each reads. A layer that keeps (`keep`, KEEP) computes only the rows no stripe before
    it did, the others taken over from the stripe before: the last rows of its buffer, or
    None when a stripe needs rows the stripe before no longer holds (an upsampled path beside
    a downsampled one reads the same rows in several stripes)."""
    last = chain[-1].out_h
    cuts = [last * k // count for k in range(count + 1)]
    result = []
    done = [0] * len(chain)
    for a, b in zip(cuts, cuts[1:], strict=False):
        outs: list[tuple[int, int] | None] = [None] * len(chain)
        news: list[tuple[int, int]] = [(0, 0)] * len(chain)
        ins: list[tuple[int, int]] = [(0, 0)] * len(chain)
        outs[-1] = (a, b)
        for j in reversed(range(len(chain))):
            rows = outs[j]
            assert rows is not None, "a stage layer nothing in the stage reads"
            inner = any(src >= 0 for src in chain[j].sources)
            keeps = keep == "all" or keep == "inner" and inner
            lo = max(rows[0], done[j]) if keeps and rows[0] < rows[1] else rows[0]
            news[j] = (min(lo, rows[1]), rows[1])
            ins[j] = _reads(chain[j], *news[j])
            for src in chain[j].sources:
                if src >= 0:
                    outs[src] = _span(outs[src], ins[j])
        for j, (lo, hi) in enumerate(news):
            if lo < hi:
                done[j] = hi
            elif outs[j][0] == outs[j][1]:  # type: ignore[index]
                # A stripe that holds none of its rows keeps none for the next.
                done[j] = 0
        result.append([tuple(outs), tuple(ins), tuple(news)])
    # What each stripe keeps: the rows of its buffers the next one holds without computing.
    for t, cur in enumerate(result):
        kept = []
        for j in range(len(chain)):
            (a, b), take = cur[0][j], (0, 0)
            if t + 1 < len(result):
                nxt, new = result[t + 1][0][j], result[t + 1][2][j]
                if a < b and nxt[0] < nxt[1] and nxt[0] < new[0]:
                    take = (nxt[0], new[0])
                    if take[0] < a or b < take[1]:
                        return None
            kept.append(take)
        cur.append(tuple(kept))
    return tuple(Stripe(*cur) for cur in result)  # type: ignore[arg-type]


def _span(have: tuple[int, int] | None, rows: tuple[int, int]) -> tuple[int, int]:
    if have is None or have[0] == have[1]:
        return rows
    if rows[0] == rows[1]:
        return have
    return min(have[0], rows[0]), max(have[1], rows[1])


def _estimate(chain: list[Layer], cut: tuple[Stripe, ...], read_whole: int) -> int:
    """The stage's peak of live bytes without in-place overlaps, to rank stages before the
    planner places the best few: the tensors it reads whole (`read_whole` bytes) and its output
    with, at each layer of each stripe, the buffer it writes and those still to be read."""
    out = chain[-1].row_bytes * chain[-1].out_h
    last_read = {src: j for j, layer in enumerate(chain) for src in layer.sources}
    peak = 0
    before = [0] * len(chain)
    for s in cut:
        rows = [(b - a) * layer.row_bytes for (a, b), layer in zip(s.out_rows, chain, strict=True)]
        kept = [(b - a) * layer.row_bytes for (a, b), layer in zip(s.kept, chain, strict=True)]
        for j in range(len(chain)):
            live = sum(rows[i] for i in range(j) if last_read[i] >= j)
            # Rows kept live from their buffer's last read to their layer in the next stripe.
            live += sum(kept[i] for i in range(j) if last_read[i] < j) + sum(before[j:])
            peak = max(peak, live + (rows[j] if j < len(chain) - 1 else 0))
        before = kept
    return read_whole + out + peak


def _live_bytes(buffers: list) -> dict[int, int]:
    """The bytes of `buffers` live at each step where one of them starts or ends, layer by
    layer."""
    points = {b.start for b in buffers} | {b.end for b in buffers}
    return {p: sum(b.size for b in buffers if b.start <= p <= b.end) for p in points}


def _outside(base: planner.Plan, first: int, last: int, inner: set[int]) -> int:
    """The most bytes live at once at a step outside the stage, layer by layer."""
    live = _live_bytes([b for b in base.buffers.values() if b.key not in inner])
    return max((size for p, size in live.items() if not first <= p <= last), default=0)


def candidates(
    graph: Graph,
    steps: list,
    root: dict[int, int],
    base: planner.Plan,
    in_place: frozenset[int] = frozenset(),
    taken: tuple[tuple[int, int], ...] = (),
) -> list[Candidate]:
    """Every stage (of two layers or more, outside the steps `taken` by stages already planned)
    and stripe count, with the arena it needs at the least: its own, or the rest of the
    network's. Stages start at the first layer of each run of layers that starts one, and at
    later layers of the run for those that span every step of the run where the most bytes
    are live layer by layer (a stage that leaves one out leaves the arena as it is). A stage
    input in `in_place` is read in the caller's buffer, outside the arena."""
    found: list[Candidate] = []
    peaks = _peaks(base)
    start = 0
    while start < len(steps):
        inside = [b for a, b in taken if a <= start < b]
        if inside:
            start = inside[0]
            continue
        end = min((a for a, _ in taken if a > start), default=len(steps))
        chain = layers(graph, steps, root, start, end)
        valid = depths(graph, steps, root, chain)
        if not valid:
            start += 1
            continue
        found += _candidates_at(graph, steps, root, base, in_place, chain, valid)
        inside = [p for p in peaks if chain[0].step <= p <= chain[-1].step]
        for later in chain[1:]:
            if not inside or later.step > min(inside):
                break
            sub = layers(graph, steps, root, later.step, end)
            spans = [d for d in depths(graph, steps, root, sub) if sub[d - 1].step >= max(inside)]
            if spans:
                found += _candidates_at(graph, steps, root, base, in_place, sub, spans)
        start = chain[-1].step + 1
    return found


def _peaks(base: planner.Plan) -> set[int]:
    """The steps at which the most bytes are live, layer by layer."""
    at = _live_bytes(list(base.buffers.values()))
    most = max(at.values(), default=0)
    return {p for p, size in at.items() if size == most} or {0}


def _candidates_at(
    graph: Graph,
    steps: list,
    root: dict[int, int],
    base: planner.Plan,
    in_place: frozenset[int],
    chain: list[Layer],
    valid: list[int],
) -> list[Candidate]:
    """The candidates of the stages that start a run: each depth, stripe count and way of
    sharing rows."""
    found: list[Candidate] = []
    start = chain[0].step
    for depth in valid:
        sub = chain[:depth]
        whole = externals(graph, steps, root, sub) - in_place
        size_in = sum(graph.tensors[t].nbytes for t in whole)
        inner = {root[steps[layer.step].op.outputs[0]] for layer in sub[:-1]}
        rest = _outside(base, sub[0].step, sub[-1].step, inner)
        for count, keep in itertools.product(range(2, min(MAX_STRIPES, sub[-1].out_h) + 1), KEEP):
            cut = stripes(sub, count, keep)
            if cut is None:
                continue
            extra = sum(
                (s.new_rows[j][1] - s.new_rows[j][0]) * sub[j].row_macs
                for s in cut
                for j in range(depth)
            ) - sum(layer.out_h * layer.row_macs for layer in sub)
            own = _estimate(sub, cut, size_in)
            found.append(Candidate(start, depth, cut, max(own, rest), extra, own, keep))
    return found


def expand(
    graph: Graph,
    steps: list[Step],
    root: dict[int, int],
    cand: Candidate,
    lower: Callable[[Graph, Op], KernelCall],
    cache: dict | None = None,
) -> tuple[list[Step], dict[int, int]]:
    """The stage's steps replaced by its stripes' steps, stripe after stripe: each layer lowered
    on the stripe's tensors (new tensors in the graph; the last layer's output a view of the
    stage output's rows). Returns (steps, views: tensor -> byte offset in its root). `cache`
    keeps lowered calls across stripes and candidates of the same geometry."""
    cache = {} if cache is None else cache
    chain = layers(graph, steps, root, cand.start)[: cand.depth]
    views: dict[int, int] = {}
    new_steps = []
    last_out = graph.tensors[steps[chain[-1].step].op.outputs[0]]
    # Per layer, the tensor of rows the stripe before kept for the next.
    kept: dict[int, int] = {}
    last_read = {src: j for j, layer in enumerate(chain) for src in layer.sources}
    for t, stripe in enumerate(cand.stripes):
        # Per layer, its output in this stripe; per (buffer, rows), a view of fewer rows.
        made: list[int] = []
        windows: dict[tuple[int, int, int], int] = {}

        for j, layer in enumerate(chain):
            op = steps[layer.step].op
            full_out = graph.tensors[op.outputs[0]]
            a, b = stripe.out_rows[j]
            out = _tensor(graph, full_out, b - a, f"{full_out.name}/stripe{t}")
            if j == len(chain) - 1:
                root[out.index] = root[last_out.index]
                views[out.index] = a * layer.row_bytes
            else:
                root[out.index] = out.index
            made.append(out.index)
            window = (graph, root, views, windows)
            c = stripe.new_rows[j][0]
            if a < c:
                # The rows the stripe before kept, first in the buffer.
                into = _rows(*window, out.index, a, (a, c))
                new_steps.append(_move(graph, op, kept.pop(j), into))
            if c < b:
                dest = _rows(*window, out.index, a, (c, b))
                call = _layer_step(steps, chain, stripe, j, made, dest, window, lower, cache)
                new_steps.append(call)
            # Rows kept for the next stripe are moved out once the last layer reading the buffer
            # has run, so that they may take its place.
            for i in range(j + 1):
                k0, k1 = stripe.kept[i]
                if k0 < k1 and last_read[i] == j:
                    i_out = graph.tensors[steps[chain[i].step].op.outputs[0]]
                    carry = _tensor(graph, i_out, k1 - k0, f"{i_out.name}/kept{t}")
                    root[carry.index] = carry.index
                    first_row = stripe.out_rows[i][0]
                    last_rows = _rows(*window, made[i], first_row, (k0, k1))
                    new_steps.append(_move(graph, op, last_rows, carry.index))
                    kept[i] = carry.index
    first = chain[0].step
    return steps[:first] + new_steps + steps[chain[-1].step + 1 :], views


def _layer_step(
    steps: list[Step],
    chain: list[Layer],
    stripe: Stripe,
    j: int,
    made: list[int],
    dest: int,
    window: tuple,
    lower: Callable[[Graph, Op], KernelCall],
    cache: dict,
) -> Step:
    """Layer j on the rows the stripe computes, into `dest` (its buffer or a view of its last
    rows)."""
    from .compiler import Step  # noqa: F811 - the compiler imports this module

    graph = window[0]
    layer = chain[j]
    op = steps[layer.step].op
    a, b = stripe.new_rows[j]
    data = [op.inputs[p] for p in data_positions(graph, op)]
    if op.kind in WINDOWED:
        # A window reads the whole buffer of its source, whose rows start at the first
        # row it holds: row 0 of the image for the stage input, which is read whole.
        src = layer.sources[0]
        srcs = [data[0] if src < 0 else made[src]]
        r0 = 0 if src < 0 else stripe.out_rows[src][0]
        pad_w = steps[layer.step].call.params["d"]["pad_w"]
        tile_op = Op(
            op.index,
            op.kind,
            [*srcs, *op.inputs[1:]],
            [dest],
            {**op.options, TILE_PADS: (layer.pad - a * layer.stride + r0, pad_w)},
        )
    else:
        # The others read exactly the rows they need.
        srcs = []
        for src, tensor in zip(layer.sources, data, strict=True):
            assert tensor is not None
            base, first = (tensor, 0) if src < 0 else (made[src], stripe.out_rows[src][0])
            srcs.append(_rows(*window, base, first, stripe.in_rows[j]))
        if op.kind == "PAD":
            tile_op = _pad_op(graph, op, srcs[0], dest, stripe.in_rows[j], (a, b), layer)
        else:
            inputs = list(op.inputs)
            for p, src in zip(data_positions(graph, op), srcs, strict=True):
                inputs[p] = src
            options = dict(op.options)
            if layer.source_rows:
                options[TILE_ROWS] = (a, stripe.in_rows[j][0], layer.in_h)
            tile_op = Op(op.index, op.kind, inputs, [dest], options)
    call = _lowered(graph, tile_op, lower, cache)
    views = window[2]
    if dest in views or any(s in views for s in srcs):
        # The in-place rules describe a buffer of the stripe's own size, read from its
        # first byte.
        call = dataclasses.replace(call, inplace=(), reverse_param=None)
    return Step(tile_op, call)


def _move(graph: Graph, op: Op, src: int, dest: int) -> Step:
    """Rows a stripe keeps for the next, moved into a buffer of their own when the stripe's
    buffer dies, and from there to the first rows of the next stripe's buffer: each may be
    placed over the other."""
    from .compiler import Step  # noqa: F811 - the compiler imports this module

    move = Op(op.index, "COPY", [src], [dest], {})
    call = KernelCall(
        "tinyaot_move",
        "tinyaot/movement.h",
        "struct tinyaot_move_params",
        {"bytes": graph.tensors[src].nbytes},
        [TensorArg(src), TensorArg(dest, writable=True)],
        # memmove: the output may overlap the input anywhere, wherever views start in their
        # buffers.
        inplace=(InPlace(src, -ANYWHERE, 0),),
    )
    return Step(move, call)


def _rows(
    graph: Graph,
    root: dict[int, int],
    views: dict[int, int],
    windows: dict[tuple[int, int, int], int],
    base: int,
    first: int,
    rows: tuple[int, int],
) -> int:
    """The tensor of image rows `rows` of buffer `base`, whose rows start at image row `first`:
    itself when it holds those rows alone, else a view (one per buffer and rows)."""
    like = graph.tensors[base]
    have = like.shape[1]
    if rows == (first, first + have) or have == 0:
        return base
    key = (base, *rows)
    if key not in windows:
        view = _tensor(graph, like, rows[1] - rows[0], f"{like.name}/rows{rows[0]}")
        root[view.index] = root[base]
        views[view.index] = views.get(base, 0) + (rows[0] - first) * (like.nbytes // have)
        windows[key] = view.index
    return windows[key]


def _pad_op(
    graph: Graph,
    op: Op,
    src: int,
    out: int,
    rows_in: tuple[int, int],
    rows_out: tuple[int, int],
    layer: Layer,
) -> Op:
    """PAD on a stripe: the rows above and below it that are padding, the columns as before
    (a constant paddings tensor of its own)."""
    full = graph.tensor(op.inputs[1]).data
    assert full is not None
    rows = rows_out[1] - rows_out[0]
    top = min(rows, max(0, rows_in[0] + layer.pad - rows_out[0]))
    bottom = rows - top - (rows_in[1] - rows_in[0])
    pads = full.reshape(4, 2).astype(np.int32).copy()
    pads[1] = (top, bottom)
    t = graph.tensor(op.inputs[1])
    const = Tensor(
        len(graph.tensors), f"{t.name}/stripe", t.dtype, t.shape, None, pads.reshape(t.shape)
    )
    graph.tensors.append(const)
    return Op(op.index, op.kind, [src, const.index], [out], dict(op.options))


def _lowered(
    graph: Graph, op: Op, lower: Callable[[Graph, Op], KernelCall], cache: dict
) -> KernelCall:
    """The op lowered on its stripe tensors; a layer of the same geometry lowered before is
    copied with its tensors renamed (the weight analysis of the fast kernels is slow)."""
    data = [op.inputs[p] for p in data_positions(graph, op)]
    out = op.outputs[0]
    shapes = tuple(graph.tensors[t].shape for t in (*data, out))  # type: ignore[index]
    pads = graph.tensor(op.inputs[1]).data if op.kind == "PAD" else None
    if pads is not None:
        geometry = tuple(pads.reshape(-1).tolist())
    else:
        geometry = op.options.get(TILE_PADS, op.options.get(TILE_ROWS))
    key = (op.index, shapes, geometry)
    if key not in cache:
        count = len(graph.tensors)
        cache[key] = (lower(graph, op), (*data, out))
        # A scratch tensor of its own would be shared by the copies.
        assert len(graph.tensors) == count, f"{op.describe()} added a tensor in a patch stage"
    call, was = cache[key]
    rename = dict(zip(was, (*data, out), strict=True))
    args = [_renamed(a, rename) for a in call.args]
    inplace = tuple(
        dataclasses.replace(r, input=rename.get(r.input, r.input)) for r in call.inplace
    )
    # The compiler sets a kernel's direction in its params, each call its own.
    return dataclasses.replace(call, params=copy.deepcopy(call.params), args=args, inplace=inplace)


def _renamed(arg: object, rename: dict[int, int]) -> object:
    if isinstance(arg, TensorArg):
        return dataclasses.replace(arg, index=rename.get(arg.index, arg.index))
    if isinstance(arg, TensorList):
        return TensorList(tuple(rename.get(i, i) for i in arg.indices))
    return arg


def _tensor(graph: Graph, like: Tensor, rows: int, name: str) -> Tensor:
    shape = (like.shape[0], rows, *like.shape[2:])
    t = Tensor(len(graph.tensors), name, like.dtype, shape, like.quant)
    graph.tensors.append(t)
    return t


def describe(p: PatchPlan) -> str:
    pct = 100.0 * p.extra_macs / p.base_macs if p.base_macs else 0.0
    kept = f" keeping up to {p.kept_bytes} B of shared rows" if p.kept_bytes else ""
    return (
        f"patch stage: steps {p.first_step}-{p.first_step + p.depth - 1} "
        f"({', '.join(p.kinds)}) in {p.stripes} stripes{kept} of output {list(p.out_shape)}, "
        f"+{p.extra_macs} MACs ({pct:.1f} %), arena {p.base_arena} B layer by layer"
    )


def no_fit(name: str, budget: int, smallest: int, cap: int) -> CompileError:
    return CompileError(
        f"model '{name}' needs an arena of {smallest} bytes, over the budget of {budget} bytes "
        f"(the smallest found, patch plans of at most {cap} % extra MACs included)"
    )


# Stages the compiler lowers and plans in full, of those the estimate ranks first.
TRIALS = 4
# Stages planned in full (each the best stripes of its start, depth and way of sharing rows by
# the estimate) before the search stops at the first smaller arena than without the stage: over
# the corpus the smallest was among the first two, but where the estimate misleads (RetinaFace's
# stages between TRANSPOSEs) the first smaller one comes later.
TRIALS_ONCE_SMALLER = 8
# Stages at most in one plan: a second one further in, where the peak moved to.
MAX_STAGES = 2


@dataclasses.dataclass
class Chosen:
    steps: list
    plan: planner.Plan
    views: dict[int, int]
    # The stages in step order.
    patches: list[PatchPlan]


def choose(
    graph: Graph,
    steps: list,
    root: dict[int, int],
    base: planner.Plan,
    budget: int,
    smallest: bool,
    max_extra: int,
    lower: Callable[[Graph, Op], KernelCall],
    plan_of: Callable[[list], planner.Plan],
    name: str,
    forced: tuple[int, int, str] | None = None,
    in_place: frozenset[int] = frozenset(),
) -> Chosen | None:
    """The patch plan with the fewest extra MACs whose arena fits the budget, or with
    `smallest`, the smallest arena, or the `forced` (depth, stripes, keep) of the first run;
    None when no stage does better than layer by layer. One stage is chosen so (the smallest
    arena when none fits), then, while the arena is over the budget (or with `smallest`) and
    shrinks, another in the steps outside the stages before, up to MAX_STAGES, their extra
    MACs within the cap together. Raises the budget error, with the smallest arena found, when
    nothing fits."""
    base_macs = sum(s.call.macs for s in steps)
    cap = base_macs * max_extra // 100
    chosen: Chosen | None = None
    plans: list[PatchPlan] = []
    # The steps each stage planned so far became, in the current steps (one range per plan).
    taken: list[tuple[int, int]] = []
    cur_steps, cur_base, views = steps, base, {}
    for _ in range(1 if forced else MAX_STAGES):
        spent = sum(p.extra_macs for p in plans)
        pick = _best(
            graph, cur_steps, root, cur_base, budget, smallest, cap - spent, lower, plan_of, name,
            forced, in_place, tuple(taken),
        )  # fmt: skip
        if pick is None or (forced is None and pick[0] >= cur_base.size):
            break
        cand, cache = pick[1], pick[2]
        new_steps, new_views = expand(graph, cur_steps, root, cand, lower, cache)
        chain = layers(graph, cur_steps, root, cand.start)[: cand.depth]
        last = graph.tensors[cur_steps[chain[-1].step].op.outputs[0]]
        grown = len(new_steps) - len(cur_steps)
        # The stage's first step among the layer-by-layer steps: the stages before it grew.
        first = chain[0].step - sum(
            p.steps - p.depth for p, (a, _) in zip(plans, taken, strict=True) if a < chain[0].step
        )
        plans.append(
            PatchPlan(
                first,
                cand.depth,
                len(cand.stripes),
                tuple(cur_steps[layer.step].op.kind for layer in chain),
                last.shape,
                cand.extra_macs,
                base_macs,
                base.size,
                tuple(_steps(stripe) for stripe in cand.stripes),
                cand.keep,
                max(_kept_bytes(chain, s) for s in cand.stripes),
            )
        )
        taken = [(a + grown, b + grown) if a > chain[0].step else (a, b) for a, b in taken]
        taken.append((chain[0].step, chain[0].step + cand.depth + grown))
        cur_steps, views = new_steps, {**views, **new_views}
        cur_base = plan_of(cur_steps)
        chosen = Chosen(cur_steps, cur_base, views, sorted(plans, key=lambda p: p.first_step))
        if not smallest and cur_base.size <= budget:
            break
    if forced is None and budget and cur_base.size > budget:
        raise no_fit(name, budget, cur_base.size, max_extra)
    return chosen


def _best(
    graph: Graph,
    steps: list,
    root: dict[int, int],
    base: planner.Plan,
    budget: int,
    smallest: bool,
    cap: int,
    lower: Callable[[Graph, Op], KernelCall],
    plan_of: Callable[[list], planner.Plan],
    name: str,
    forced: tuple[int, int, str] | None,
    in_place: frozenset[int],
    taken: tuple[tuple[int, int], ...],
) -> tuple[int, Candidate, dict] | None:
    """One stage outside the steps `taken`: the first of the fewest extra MACs that fits the
    budget, else (or with `smallest`) the smallest arena; with its planned arena and the
    lowered calls to reuse."""
    every = candidates(graph, steps, root, base, in_place, taken)
    found = [c for c in every if c.extra_macs <= cap]
    # The estimate leaves out in-place overlaps, which save more in some stages than in others:
    # the best stripe count of every stage is planned, in the order of the estimate.
    per_stage: dict[tuple[int, int, str], Candidate] = {}
    for c in sorted(found, key=lambda c: (c.estimate, c.own, c.extra_macs)):
        per_stage.setdefault((c.start, c.depth, c.keep), c)
    by_size = sorted(per_stage.values(), key=lambda c: (c.estimate, c.own, c.extra_macs))
    if forced is not None:
        first = min((c.start for c in every), default=None)
        order = [c for c in every if (c.start, c.depth, len(c.stripes), c.keep) == (first, *forced)]
        if not order:
            raise CompileError(
                f"model '{name}' has no patch stage of {forced[0]} layers in {forced[1]} stripes"
            )
    elif smallest:
        order = by_size
    else:
        cheap = lambda c: (c.extra_macs, c.estimate, c.depth, len(c.stripes))  # noqa: E731
        fits = sorted((c for c in found if c.estimate <= budget), key=cheap)[:TRIALS]
        # The estimate of the rest of the network leaves out its in-place overlaps, so each
        # stage's cheapest stripes whose own part fits are tried too, the fewest extra MACs first.
        own_fits: dict[tuple[int, int, str], Candidate] = {}
        for c in sorted(found, key=cheap):
            if c.own <= budget:
                own_fits.setdefault((c.start, c.depth, c.keep), c)
        order = list(dict.fromkeys(sorted({*fits, *own_fits.values()}, key=cheap) + by_size))
    best: tuple[int, int, Candidate] | None = None
    cache: dict = {}
    for i, cand in enumerate(order):
        if i >= TRIALS_ONCE_SMALLER and best is not None and best[0] < base.size:
            break
        size = _trial(graph, steps, root, cand, lower, plan_of, cache)
        if not smallest and size <= budget:
            best = (size, cand.extra_macs, cand)
            break
        if best is None or (size, cand.extra_macs) < best[:2]:
            best = (size, cand.extra_macs, cand)
    return None if best is None else (best[0], best[2], cache)


def _steps(stripe: Stripe) -> int:
    """A stripe's steps: its layers' calls and copies of kept rows."""
    calls = sum(a < b for a, b in stripe.new_rows)
    copies = sum(a < c for (a, _), (c, _) in zip(stripe.out_rows, stripe.new_rows, strict=True))
    return calls + copies + sum(a < b for a, b in stripe.kept)


def _kept_bytes(chain: list[Layer], stripe: Stripe) -> int:
    return sum((b - a) * layer.row_bytes for (a, b), layer in zip(stripe.kept, chain, strict=True))


def _trial(
    graph: Graph,
    steps: list,
    root: dict[int, int],
    cand: Candidate,
    lower: Callable[[Graph, Op], KernelCall],
    plan_of: Callable[[list], planner.Plan],
    cache: dict,
) -> int:
    """The arena the candidate needs, planned in full; the graph and root left as they were."""
    count, saved = len(graph.tensors), dict(root)
    try:
        new_steps, _ = expand(graph, steps, root, cand, lower, cache)
        return plan_of(new_steps).size
    finally:
        del graph.tensors[count:]
        root.clear()
        root.update(saved)
