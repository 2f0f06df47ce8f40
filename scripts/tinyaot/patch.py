"""Patch-based execution: the first layers of a CNN run stripe by stripe under an arena budget.

A layer-by-layer plan holds a large convolution's input and output at once. A patch stage runs
a chain of windowed layers (CONV_2D, DEPTHWISE_CONV_2D, AVERAGE_POOL_2D, MAX_POOL_2D) one
stripe of the stage's output rows at a time: each stripe goes through all the stage's layers
from the rows of the stage input it needs, so only one stripe's intermediates are live.
Stripes span whole rows, so every window is contiguous in memory and the last layer writes
its rows straight into the stage output; overlapping rows are computed once per stripe that
needs them (the extra MACs).

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
from collections.abc import Callable
from typing import TYPE_CHECKING

import numpy as np

from . import planner
from .errors import CompileError
from .ir import Graph, Op, Tensor
from .lowering import TILE_PADS, KernelCall, TensorArg, tensor_args

if TYPE_CHECKING:
    from .compiler import Step

WINDOWED = ("CONV_2D", "DEPTHWISE_CONV_2D", "AVERAGE_POOL_2D", "MAX_POOL_2D")
# Stripes beyond this many cost more in code and parameters than they save.
MAX_STRIPES = 16
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


@dataclasses.dataclass(frozen=True)
class Stripe:
    """One stripe: per layer, the output rows it computes and the input rows it reads."""

    out_rows: tuple[tuple[int, int], ...]
    in_rows: tuple[tuple[int, int], ...]


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


def layers(graph: Graph, steps: list, root: dict[int, int], start: int) -> list[Layer]:
    """The longest chain of windowed layers from steps[start] that a stage can run: each layer
    reads only the one before it (a batch of one, NHWC), nothing else reads the chain's
    intermediates, and none of them is a graph output."""
    readers: dict[int, int] = {}
    for s in steps:
        for a in tensor_args(s.call.args):
            if not a.writable:
                readers[root[a.index]] = readers.get(root[a.index], 0) + 1
    outputs = {root[t] for t in graph.outputs}
    chain: list[Layer] = []
    for i in range(start, len(steps)):
        step = steps[i]
        geometry = _geometry(graph, step, first=not chain)
        if geometry is None or step.call.custom is not None:
            break
        if step.call.args[0] != _data_arg(step):
            break
        if chain:
            prev = steps[i - 1].op.outputs[0]
            if root[step.op.inputs[0]] != root[prev] or readers.get(root[prev]) != 1:  # type: ignore[index]
                break
            if root[prev] in outputs:
                break
        out = graph.tensors[step.op.outputs[0]]
        out_h = geometry[-1]
        chain.append(Layer(i, *geometry, out.nbytes // out_h, step.call.macs // out_h))
    return chain


def _geometry(graph: Graph, step: Step, first: bool) -> tuple[int, int, int, int, int] | None:
    """(window, stride, padding above, input rows, output rows) of a layer a stage can run."""
    params = step.call.params
    d = params.get("d") if isinstance(params, dict) else None
    if step.op.kind in WINDOWED and isinstance(d, dict) and d.get("batches") == 1:
        return d["k_h"], d["stride_h"], d["pad_h"], d["in_h"], d["out_h"]
    # A PAD of rows and columns, inside a stage (its stripes are windows of its input).
    if step.op.kind != "PAD" or first or len(step.op.inputs) != 2:
        return None
    inp, out = graph.tensor(step.op.inputs[0]), graph.tensor(step.op.outputs[0])
    pads = graph.tensor(step.op.inputs[1]).data
    if len(inp.shape) != 4 or inp.shape[0] != 1 or pads is None:
        return None
    pads = pads.reshape(-1)
    if pads[0] or pads[1] or pads[6] or pads[7]:
        return None
    return 1, 1, int(pads[2]), inp.shape[1], out.shape[1]


def _data_arg(step: Step) -> object:
    arg = step.call.args[0]
    return arg if getattr(arg, "index", None) == step.op.inputs[0] else None


def stripes(chain: list[Layer], count: int) -> tuple[Stripe, ...]:
    """The stage's output rows cut into `count` stripes of near-equal height, each traced back
    through the layers to the rows it needs."""
    last = chain[-1].out_h
    cuts = [last * k // count for k in range(count + 1)]
    result = []
    for a, b in zip(cuts, cuts[1:], strict=False):
        outs, ins = [], []
        for layer in reversed(chain):
            # A stripe of a PAD's padding rows alone needs no row of what comes before it.
            lo = min(layer.in_h, max(0, a * layer.stride - layer.pad))
            hi = max(lo, min(layer.in_h, (b - 1) * layer.stride - layer.pad + layer.k))
            outs.append((a, b))
            ins.append((lo, hi))
            a, b = lo, hi
        result.append(Stripe(tuple(reversed(outs)), tuple(reversed(ins))))
    return tuple(result)


def _estimate(chain: list[Layer], cut: tuple[Stripe, ...], stage_in: int) -> int:
    """The stage's peak of live bytes without in-place overlaps, to rank stages before the
    planner places the best few: the stage input and output with, at each layer of each
    stripe, the buffer it reads and the one it writes."""
    out = chain[-1].row_bytes * chain[-1].out_h
    peak = 0
    for s in cut:
        rows = [(b - a) * layer.row_bytes for (a, b), layer in zip(s.out_rows, chain, strict=True)]
        for j in range(len(chain) - 1):
            peak = max(peak, (rows[j - 1] if j else 0) + rows[j])
    return stage_in + out + peak


def _outside(base: planner.Plan, first: int, last: int, inner: set[int]) -> int:
    """The most bytes live at once at a step outside the stage, layer by layer."""
    live = [b for b in base.buffers.values() if b.key not in inner]
    points = {b.start for b in live} | {b.end for b in live}
    return max(
        (
            sum(b.size for b in live if b.start <= p <= b.end)
            for p in points
            if not first <= p <= last
        ),
        default=0,
    )


def candidates(
    graph: Graph,
    steps: list,
    root: dict[int, int],
    base: planner.Plan,
    in_place: frozenset[int] = frozenset(),
) -> list[Candidate]:
    """Every stage (from the first windowed layer, of two layers or more) and stripe count,
    with the arena it needs at the least: its own, or the rest of the network's. A stage input
    in `in_place` is read in the caller's buffer, outside the arena."""
    found: list[Candidate] = []
    for start in range(len(steps)):
        chain = layers(graph, steps, root, start)
        if len(chain) >= 2:
            break
    else:
        return found
    stage_in = root[steps[start].op.inputs[0]]
    size_in = 0 if stage_in in in_place else graph.tensors[stage_in].nbytes
    for depth in range(2, len(chain) + 1):
        sub = chain[:depth]
        inner = {root[steps[layer.step].op.outputs[0]] for layer in sub[:-1]}
        rest = _outside(base, sub[0].step, sub[-1].step, inner)
        for count in range(2, min(MAX_STRIPES, sub[-1].out_h) + 1):
            cut = stripes(sub, count)
            extra = sum(
                (s.out_rows[j][1] - s.out_rows[j][0]) * sub[j].row_macs
                for s in cut
                for j in range(depth)
            ) - sum(layer.out_h * layer.row_macs for layer in sub)
            own = _estimate(sub, cut, size_in)
            found.append(Candidate(start, depth, cut, max(own, rest), extra, own))
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
    from .compiler import Step  # noqa: F811 - the compiler imports this module

    chain = layers(graph, steps, root, cand.start)[: cand.depth]
    views: dict[int, int] = {}
    new_steps = []
    last_out = graph.tensors[steps[chain[-1].step].op.outputs[0]]
    for t, stripe in enumerate(cand.stripes):
        src = steps[chain[0].step].op.inputs[0]
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
            # Window rows start at the first row it holds: row 0 of the image for the stage
            # input, which is read whole.
            r0 = 0 if j == 0 else stripe.in_rows[j][0]
            if op.kind == "PAD":
                tile_op = _pad_op(graph, op, src, out.index, stripe.in_rows[j], (a, b), layer)
            else:
                pad_w = steps[layer.step].call.params["d"]["pad_w"]
                tile_op = Op(
                    op.index,
                    op.kind,
                    [src, *op.inputs[1:]],
                    [out.index],
                    {**op.options, TILE_PADS: (layer.pad - a * layer.stride + r0, pad_w)},
                )
            call = _lowered(graph, tile_op, lower, cache)
            if j == len(chain) - 1:
                # The in-place rules describe a buffer of the stripe's own size.
                call = dataclasses.replace(call, inplace=(), reverse_param=None)
            new_steps.append(Step(tile_op, call))
            src = out.index
    first = chain[0].step
    return steps[:first] + new_steps + steps[chain[-1].step + 1 :], views


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
    src, out = op.inputs[0], op.outputs[0]
    assert src is not None
    shapes = (graph.tensors[src].shape, graph.tensors[out].shape)
    pads = graph.tensor(op.inputs[1]).data if op.kind == "PAD" else None
    geometry = op.options[TILE_PADS] if pads is None else tuple(pads.reshape(-1).tolist())
    key = (op.index, shapes, geometry)
    if key not in cache:
        count = len(graph.tensors)
        cache[key] = (lower(graph, op), src, out)
        # A scratch tensor of its own would be shared by the copies.
        assert len(graph.tensors) == count, f"{op.describe()} added a tensor in a patch stage"
    call, was_src, was_out = cache[key]
    rename = {was_src: src, was_out: out}
    args = [
        dataclasses.replace(a, index=rename.get(a.index, a.index))
        if isinstance(a, TensorArg)
        else a
        for a in call.args
    ]
    inplace = tuple(
        dataclasses.replace(r, input=rename.get(r.input, r.input)) for r in call.inplace
    )
    # The compiler sets a kernel's direction in its params, each call its own.
    return dataclasses.replace(call, params=copy.deepcopy(call.params), args=args, inplace=inplace)


def _tensor(graph: Graph, like: Tensor, rows: int, name: str) -> Tensor:
    shape = (like.shape[0], rows, *like.shape[2:])
    t = Tensor(len(graph.tensors), name, like.dtype, shape, like.quant)
    graph.tensors.append(t)
    return t


def describe(p: PatchPlan) -> str:
    pct = 100.0 * p.extra_macs / p.base_macs if p.base_macs else 0.0
    return (
        f"patch stage: steps {p.first_step}-{p.first_step + p.depth - 1} "
        f"({', '.join(p.kinds)}) in {p.stripes} stripes of output {list(p.out_shape)}, "
        f"+{p.extra_macs} MACs ({pct:.1f} %), arena {p.base_arena} B layer by layer"
    )


def no_fit(name: str, budget: int, smallest: int, cap: int) -> CompileError:
    return CompileError(
        f"model '{name}' needs an arena of {smallest} bytes, over the budget of {budget} bytes "
        f"(the smallest found, patch plans of at most {cap} % extra MACs included)"
    )


# Stages the compiler lowers and plans in full, of those the estimate ranks first.
TRIALS = 4


@dataclasses.dataclass
class Chosen:
    steps: list
    plan: planner.Plan
    views: dict[int, int]
    patch: PatchPlan


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
    forced: tuple[int, int] | None = None,
    in_place: frozenset[int] = frozenset(),
) -> Chosen | None:
    """The patch plan with the fewest extra MACs whose arena fits the budget, or with
    `smallest`, the smallest arena, or the `forced` (depth, stripes); None when no stage does
    better than layer by layer. Raises the budget error, with the smallest arena found, when
    nothing fits."""
    base_macs = sum(s.call.macs for s in steps)
    cap = base_macs * max_extra // 100
    every = candidates(graph, steps, root, base, in_place)
    found = [c for c in every if c.extra_macs <= cap]
    # The estimate leaves out in-place overlaps, which save more in some stages than in others:
    # the best stripe count of every depth is planned, not only the first few by estimate.
    per_depth: dict[int, Candidate] = {}
    for c in sorted(found, key=lambda c: (c.estimate, c.own, c.extra_macs)):
        per_depth.setdefault(c.depth, c)
    by_size = sorted(per_depth.values(), key=lambda c: (c.estimate, c.own, c.extra_macs))
    if forced is not None:
        order = [c for c in every if (c.depth, len(c.stripes)) == forced]
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
        # depth's cheapest stage whose own part fits is tried too, the fewest extra MACs first.
        own_fits: dict[int, Candidate] = {}
        for c in sorted(found, key=cheap):
            if c.own <= budget:
                own_fits.setdefault(c.depth, c)
        order = list(dict.fromkeys(sorted({*fits, *own_fits.values()}, key=cheap) + by_size))
    best: tuple[int, int, Candidate] | None = None
    cache: dict = {}
    for cand in order:
        size = _trial(graph, steps, root, cand, lower, plan_of, cache)
        if not smallest and size <= budget:
            best = (size, cand.extra_macs, cand)
            break
        if best is None or (size, cand.extra_macs) < best[:2]:
            best = (size, cand.extra_macs, cand)
    if forced is None and budget and (best is None or best[0] > budget):
        smallest_found = min(base.size, best[0]) if best else base.size
        raise no_fit(name, budget, smallest_found, max_extra)
    if best is None or (forced is None and best[0] >= base.size):
        return None
    cand = best[2]
    new_steps, views = expand(graph, steps, root, cand, lower, cache)
    chain = layers(graph, steps, root, cand.start)[: cand.depth]
    last = graph.tensors[steps[chain[-1].step].op.outputs[0]]
    return Chosen(
        new_steps,
        plan_of(new_steps),
        views,
        PatchPlan(
            chain[0].step,
            cand.depth,
            len(cand.stripes),
            tuple(steps[layer.step].op.kind for layer in chain),
            last.shape,
            cand.extra_macs,
            base_macs,
            base.size,
        ),
    )


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
