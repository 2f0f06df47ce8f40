"""The pipeline: frontend -> lowering -> aliasing -> schedule and memory plan.

Codegen and the report read the Compiled result; nothing here writes files.
"""

from __future__ import annotations

import keyword
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from . import custom, frontend, pad_fold, patch, planner, state, transpose_cancel
from .errors import CompileError
from .ir import Graph, Op, Tensor
from .lowering import (
    DSP_GUARD,
    FPU_GUARD,
    MVE_GUARD,
    STATE_OPTION,
    Alias,
    ByFpu,
    ByTarget,
    ConstArray,
    Fold,
    KernelCall,
    Lowered,
    check_counts,
    check_dtypes,
    tensor_args,
)
from .ops import OPS

C_KEYWORDS = frozenset(
    "auto break case char const continue default do double else enum extern float for goto if "
    "inline int long register restrict return short signed sizeof static struct switch typedef "
    "union unsigned void volatile while _Bool _Complex _Imaginary".split()
)
NAME_RE = re.compile(r"^[A-Za-z][A-Za-z0-9_]{0,31}$")


# The speed_scratch the Zephyr module gives cores with the DSP extension but not Helium
# (zephyr_module/Kconfig, TINYAOT_SPEED_SCRATCH), where the wide convolution windows use it:
# ResNet-8 1.7 % more arena, MobileNetV2's 13 %.
SPEED_SCRATCH_DSP = 15


@dataclass
class Options:
    name: str
    arena_alignment: int = 16
    arena_section: str | None = None
    # Linker section of the weights and compile-time tables (all that weights_size counts).
    weights_section: str | None = None
    arena_budget: int = 0
    # Patch-based execution (patch.py): the smallest arena outright, whatever the budget, and
    # the extra MACs a patch plan may cost, in percent of the model's.
    smallest_arena: bool = False
    max_extra_macs: int = patch.DEFAULT_MAX_EXTRA_MACS
    # A patch stage of (layers, stripes), whatever the arena it needs.
    patch_stage: tuple[int, int, str] | None = None
    # Models compiled with the same pool name share one arena (never run at once).
    shared_arena: str | None = None
    # Custom codes whose kernels the application links (custom.py).
    custom_ops: tuple[str, ...] = ()
    # How much the arena may grow, in percent, to keep the scratch of kernels that it makes
    # faster on some cores (KernelCall.narrow): 0 keeps only scratch that costs no byte.
    speed_scratch: int = 0
    # How much the weights and tables may grow, in percent of what a core without the DSP
    # extension links, for the faster forms of calls whose tables only some cores read
    # (KernelCall.faster): 0 keeps every call as it is.
    speed_flash: int = 0


@dataclass
class Step:
    op: Op
    call: KernelCall


@dataclass
class Compiled:
    graph: Graph
    options: Options
    source_name: str
    steps: list[Step]
    # Tensor index -> the tensor whose bytes it is (itself unless aliased).
    root: dict[int, int]
    plan: planner.Plan
    macs: int = 0
    notes: list[str] = field(default_factory=list)
    # Where the model's state lives in its state buffer (state.py; size 0: no state).
    state: state.StateLayout = field(default_factory=state.StateLayout)
    # A patch stage's stripe outputs: tensor -> byte offset in the tensor it is rows of.
    views: dict[int, int] = field(default_factory=dict)
    # The patch stages, in step order.
    patches: tuple[patch.PatchPlan, ...] = ()
    # Graph inputs (their roots) that _run() reads where the caller has them: not in the arena.
    in_place: frozenset[int] = frozenset()

    @property
    def patch(self) -> patch.PatchPlan | None:
        """The first patch stage."""
        return self.patches[0] if self.patches else None

    def offset(self, tensor: int) -> int:
        """The tensor's offset in the arena, or for an input read in place, in that input."""
        if self.root[tensor] in self.in_place:
            return self.views.get(tensor, 0)
        return self.plan.offsets[self.root[tensor]] + self.views.get(tensor, 0)

    def state_offset(self, tensor: int) -> int | None:
        """The tensor's offset in the state buffer, None when it is not state."""
        return self.state.offset(self.root[tensor])

    def weight_tensors(self) -> list[Tensor]:
        """Constant model tensors that kernels read, in first-use order."""
        seen: dict[int, Tensor] = {}
        for step in self.steps:
            for arg in tensor_args(step.call.args):
                if self.graph.tensors[arg.index].is_const:
                    seen.setdefault(arg.index, self.graph.tensors[arg.index])
        return list(seen.values())

    def const_arrays(self) -> list[tuple[ConstArray, str | None]]:
        """Compile-time arrays (multipliers, tables), deduplicated, in first-use order, each
        with the preprocessor condition it is compiled under (None: always)."""
        seen: dict[tuple[str, bytes], ConstArray] = {}
        targets: dict[tuple[str, bytes], set[str | None]] = {}

        def visit(value: object, target: str | None) -> None:
            if isinstance(value, ConstArray):
                seen.setdefault(value.key(), value)
                targets.setdefault(value.key(), set()).add(target)
            elif isinstance(value, ByTarget | ByFpu):
                for guard, v in value.guards():
                    visit(v, guard)
            elif isinstance(value, dict):
                for v in value.values():
                    visit(v, target)

        for step in self.steps:
            visit(step.call.params, None)
            for arg in step.call.args:
                visit(arg, None)
        return [(a, _any_of(targets[k])) for k, a in seen.items()]

    def weights_size_where(self, defined: frozenset[str]) -> int:
        """The bytes of weights and compile-time tables a core links where the macros in
        `defined` (DSP_GUARD, MVE_GUARD, FPU_GUARD) are 1 and the others 0."""
        return sum(t.nbytes for t in self.weight_tensors()) + sum(
            a.values.nbytes
            for a, guard in self.const_arrays()
            if guard is None or _holds(guard, defined)
        )

    @property
    def weights_size(self) -> int:
        """What a core without the optimised kernels links (none of those macros)."""
        return self.weights_size_where(frozenset())

    def weights_by_core(self) -> list[tuple[str | None, int]]:
        """(condition, bytes) for the generated info, in the order its #if tests them, the last
        (None) the core without optimised kernels; one entry where every core links the same
        bytes. The layouts differ in size where the DSP routine pads a window's depth, or
        holds int16 weights (Options.speed_flash)."""
        cores = []
        for kernels in ([DSP_GUARD, MVE_GUARD], [DSP_GUARD], []):
            fpu = self.weights_size_where(frozenset([*kernels, FPU_GUARD]))
            size = self.weights_size_where(frozenset(kernels))
            if fpu != size:
                cores.append((" && ".join([*kernels, FPU_GUARD]), fpu))
            cores.append((" && ".join(kernels) or None, size))
        sizes = {size for _, size in cores}
        if len(sizes) == 1:
            return [(None, sizes.pop())]
        return cores


def _any_of(guards: set[str | None]) -> str | None:
    """The condition under which an array some of these targets use is compiled."""
    if None in guards:
        return None
    if len(guards) == 1:
        return next(iter(guards))
    return " || ".join(f"({g})" for g in sorted(g for g in guards if g is not None))


def _holds(guard: str, defined: frozenset[str]) -> bool:
    """Whether a condition of const_arrays (alternatives || of terms &&, each a macro or its
    negation) holds where the macros in `defined` are 1 and the others 0."""
    terms = [[t.strip() for t in alt.strip(" ()").split("&&")] for alt in guard.split("||")]
    return any(all((t.lstrip("!") in defined) != t.startswith("!") for t in alt) for alt in terms)


def validate_name(name: str) -> None:
    if not NAME_RE.match(name) or name in C_KEYWORDS or keyword.iskeyword(name):
        raise CompileError(
            f"model name '{name}' is not usable: it must be a C identifier of 1 to 32 letters, "
            "digits and underscores, starting with a letter, and not a C keyword"
        )


def compile_model(path: str | Path, options: Options) -> Compiled:
    validate_name(options.name)
    if options.arena_alignment < 4 or options.arena_alignment & (options.arena_alignment - 1):
        raise CompileError(f"arena alignment {options.arena_alignment} must be a power of two >= 4")
    if options.shared_arena is not None:
        if not NAME_RE.match(options.shared_arena) or options.shared_arena in C_KEYWORDS:
            raise CompileError(
                f"shared arena name '{options.shared_arena}' must be a C identifier of 1 to 32 "
                "letters, digits and underscores, starting with a letter"
            )
        if options.arena_section:
            raise CompileError(
                "--arena-section cannot be combined with --shared-arena: a shared arena is a "
                "common symbol, which the linker always places in .bss"
            )
    if options.weights_section and options.weights_section == options.arena_section:
        raise CompileError(
            f"--weights-section and --arena-section are both '{options.arena_section}': the "
            "C compiler refuses constants and a writable array in one section"
        )
    custom.check_declared(options.custom_ops)
    graph = frontend.load(path)
    return compile_graph(graph, options, Path(path).name)


def compile_graph(graph: Graph, options: Options, source_name: str) -> Compiled:
    _own_state(graph, options.custom_ops)
    layout = state.resolve(graph, _evaluate)
    # Before the PADs fold: a PAD between cancelled TRANSPOSEs reaches its convolution.
    transpose_cancel.cancel_transposes(graph)
    pad_fold.fold_pads(graph)
    root = {t.index: t.index for t in graph.tensors}
    steps: list[Step] = []
    for op in graph.ops:
        if (
            op.kind in state.RESOLVED
            or pad_fold.FOLDED_INTO in op.options
            or transpose_cancel.CANCELLED in op.options
        ):
            continue
        lowered = lower_op(graph, op, options.custom_ops)
        if lowered is None:
            continue
        if isinstance(lowered, Alias):
            _alias(graph, op, lowered, root)
        else:
            steps.append(Step(op, lowered))
    # Lowering may add tensors (a kernel's scratch, which only its step uses).
    for t in graph.tensors:
        root.setdefault(t.index, t.index)
    for t in graph.inputs + graph.outputs:
        if graph.tensors[t].is_const:
            raise CompileError(
                f"graph input or output tensor {t} '{graph.tensors[t].name}' is a constant"
            )
    steps = _read_in_place(graph, steps, root)

    def plan_of(steps: list[Step], outside: frozenset[int] = frozenset()) -> planner.Plan:
        buffers = [b for b in _buffers(graph, steps, root) if b.key not in outside]
        return planner.plan(buffers, _overlaps(graph, steps, root, buffers))

    steps, plan = _widen(steps, plan_of, options.speed_scratch, options.arena_budget)
    chosen = None
    in_place: frozenset[int] = frozenset()
    if options.patch_stage or options.smallest_arena or 0 < options.arena_budget < plan.size:
        # Below the layer-by-layer arena, the inputs that allow it stay in the caller's buffers.
        in_place = _inputs_read_in_place(graph, steps, root)
        base = plan_of(steps, in_place) if in_place else plan
        if options.patch_stage or options.smallest_arena or options.arena_budget < base.size:
            chosen = patch.choose(
                graph,
                steps,
                root,
                base,
                options.arena_budget,
                options.smallest_arena,
                options.max_extra_macs,
                lambda g, op: _narrow(lower_op(g, op, options.custom_ops)),
                lambda s: plan_of(s, in_place),
                options.name,
                options.patch_stage,
                in_place,
            )
        if chosen:
            # The report compares with the plan without a budget, the inputs in the arena.
            for stage in chosen.patches:
                stage.base_arena = plan.size
        steps, plan = (chosen.steps, chosen.plan) if chosen else (steps, base)
        if in_place:
            # Where the input in the arena costs no byte, it stays there (and _invoke() with it).
            inside = plan_of(steps)
            if inside.size <= plan.size:
                plan, in_place = inside, frozenset()
    problems = planner.check(plan)
    if problems:
        raise AssertionError("memory plan is inconsistent: " + "; ".join(problems))
    compiled = Compiled(
        graph=graph,
        options=options,
        source_name=source_name,
        steps=steps,
        root=root,
        plan=plan,
        macs=sum(s.call.macs for s in steps),
        state=layout,
        views=chosen.views if chosen else {},
        patches=tuple(chosen.patches) if chosen else (),
        in_place=in_place,
    )
    compiled.steps = _faster(steps, compiled.weights_size * options.speed_flash // 100)
    for step in compiled.steps:
        _set_direction(step, root, plan)
    if options.arena_budget and plan.size > options.arena_budget:
        raise CompileError(
            f"model '{options.name}' needs an arena of {plan.size} bytes, "
            f"over the budget of {options.arena_budget} bytes"
        )
    return compiled


def _narrow(call: Lowered | None) -> Lowered | None:
    """The call without a scratch that only makes its kernel faster (KernelCall.narrow)."""
    while isinstance(call, KernelCall) and call.narrow is not None:
        call = call.narrow
    return call


def _widen(
    steps: list[Step],
    plan_of: Callable[[list[Step]], planner.Plan],
    percent: int,
    budget: int,
) -> tuple[list[Step], planner.Plan]:
    """The steps with every call that has a variant without its scratch (KernelCall.narrow)
    narrow, but each that the arena planned again holds within `percent` more than with every
    one narrow (and within a budget it met): the plan is one for every core and the scratch
    serves only some, so by default (0) RAM comes before speed. The calls with the most MACs
    are tried first: they gain the most from their scratch."""
    narrow = [Step(s.op, s.call.narrow) if s.call.narrow else s for s in steps]
    plan = plan_of(narrow)
    limit = plan.size + plan.size * percent // 100
    if 0 < budget and plan.size <= budget:
        limit = min(limit, budget)
    wide = sorted(
        (i for i, s in enumerate(steps) if s.call.narrow), key=lambda i: -steps[i].call.macs
    )
    for i in wide:
        trial = [*narrow[:i], steps[i], *narrow[i + 1 :]]
        trial_plan = plan_of(trial)
        if trial_plan.size <= limit:
            narrow, plan = trial, trial_plan
    return narrow, plan


def _faster(steps: list[Step], allowance: int) -> list[Step]:
    """The steps with the faster form of each call that has one (KernelCall.faster) while the
    extra bytes they take on the cores with the DSP extension stay within `allowance`. The
    calls with the most MACs per extra byte are taken first: flash buys the most speed there."""
    chosen = list(steps)
    extra = 0
    candidates = sorted(
        (i for i, s in enumerate(steps) if s.call.faster),
        key=lambda i: -steps[i].call.macs / max(steps[i].call.faster.extra, 1),
    )
    for i in candidates:
        faster = steps[i].call.faster
        if extra + faster.extra <= allowance:
            chosen[i] = Step(steps[i].op, faster.call)
            extra += faster.extra
    return chosen


def _own_state(graph: Graph, custom_ops: tuple[str, ...]) -> None:
    """The variable tensors of the ops whose kernels keep state of their own (OpDef.state),
    made before the state is laid out; none for an op the application's kernel runs."""
    for op in graph.ops:
        opdef = OPS.get(op.kind)
        if opdef is None or opdef.state is None or op.kind in custom_ops:
            continue
        if opdef.custom != custom.is_custom(op):
            continue
        tensor = opdef.state(graph, op)
        if tensor is not None:
            op.options[STATE_OPTION] = tensor


def lower_op(graph: Graph, op: Op, custom_ops: tuple[str, ...] = ()) -> Lowered | None:
    """The op's signature checked, then folded (None: its outputs are now constants) or
    lowered to a kernel call or an alias. A custom op the user declared in `custom_ops`
    calls the application's kernel, even where the compiler has one of its own."""
    opdef = OPS.get(op.kind)
    if custom.is_custom(op):
        if op.kind in custom_ops:
            return custom.lower(graph, op)
        if opdef is None or not opdef.custom:
            raise custom.undeclared(graph, op)
    elif opdef is not None and opdef.custom:
        opdef = None
    if opdef is None:
        writing = ""
        if op.outputs:
            t = op.outputs[0]
            writing = f" writing tensor {t} '{graph.tensors[t].name}'"
        raise CompileError(
            f"{op.describe()}{writing} is not supported; supported ops: {', '.join(OPS)}"
        )
    try:
        check_counts(graph, op, opdef)
        if opdef.fold is not None and _fold(graph, op, opdef.fold):
            return None
        check_dtypes(graph, op, opdef)
        return opdef.lower(graph, op)
    except CompileError as exc:
        # Helpers that know only a tensor or a number still get the op named.
        if str(exc).startswith(op.describe()):
            raise
        raise CompileError(f"{op.describe()}: {exc}") from None


def _evaluate(graph: Graph, op: Op) -> bool:
    """Whether the op's outputs are constants once folded (a view of a constant included):
    how state.py runs an initialisation subgraph at compile time."""
    lowered = lower_op(graph, op)
    if isinstance(lowered, Alias) and graph.tensors[lowered.source].is_const:
        _alias(graph, op, lowered, {})
        return True
    return lowered is None


def _fold(graph: Graph, op: Op, fold: Fold) -> bool:
    """Make the op's outputs constants when its fold can compute them; False when it cannot."""
    values = fold(graph, op)
    if values is None:
        return False
    assert len(values) == len(op.outputs), f"{op.describe()}: fold gave {len(values)} outputs"
    for t, v in zip(op.outputs, values, strict=True):
        out = graph.tensors[t]
        v = np.asarray(v)
        if v.size != out.num_elements:
            raise CompileError(
                f"{op.describe()}: output tensor {t} '{out.name}' has shape {list(out.shape)}, "
                f"but the op computes {list(v.shape)}"
            )
        out.data = v.astype(out.dtype.numpy).reshape(out.shape)
    return True


def _alias(graph: Graph, op: Op, alias: Alias, root: dict[int, int]) -> None:
    out = graph.tensors[op.outputs[0]]
    src = graph.tensors[alias.source]
    if src.is_const:
        # A view of a constant is a constant: fold it.
        assert src.data is not None
        out.data = src.data.reshape(out.shape)
    else:
        root[out.index] = root[src.index]


def _read_in_place(graph: Graph, steps: list[Step], root: dict[int, int]) -> list[Step]:
    """READ_VARIABLE as a view of the variable's slot, with no copy and no arena bytes, where
    nothing writes the slot between the read and the value's last use (what the copy would have
    kept) and the value is not a graph output."""
    dropped = set()
    for i, step in enumerate(steps):
        if step.op.kind != "READ_VARIABLE":
            continue
        value, slot = root[step.op.outputs[0]], root[step.op.inputs[0]]  # type: ignore[index]
        views = [t for t, r in root.items() if r == value]
        if set(views) & set(graph.outputs):
            continue
        later = [(j, tensor_args(s.call.args)) for j, s in enumerate(steps) if j > i]
        writes = [j for j, args in later if any(a.writable and root[a.index] == slot for a in args)]
        end = writes[0] if writes else len(steps)
        if any(j >= end and any(root[a.index] == value for a in args) for j, args in later):
            continue
        for t in views:
            root[t] = slot
        dropped.add(i)
    return [s for i, s in enumerate(steps) if i not in dropped]


def _inputs_read_in_place(graph: Graph, steps: list[Step], root: dict[int, int]) -> frozenset[int]:
    """The graph inputs (roots) that the generated code can read in the caller's buffer: read
    by some step, written by none (no kernel works on them in place), and no graph output."""
    outputs = {root[t] for t in graph.outputs}
    read: set[int] = set()
    written: set[int] = set()
    for step in steps:
        for a in tensor_args(step.call.args):
            (written if a.writable else read).add(root[a.index])
    return frozenset(
        r for r in (root[t] for t in graph.inputs) if r in read - written and r not in outputs
    )


def _buffers(graph: Graph, steps: list[Step], root: dict[int, int]) -> list[planner.Buffer]:
    first: dict[int, int] = {}
    last: dict[int, int] = {}

    def touch(tensor: int, step: int) -> None:
        r = root[tensor]
        first[r] = min(first.get(r, step), step)
        last[r] = max(last.get(r, step), step)

    for t in graph.inputs:
        touch(t, -1)
    for i, step in enumerate(steps):
        for arg in tensor_args(step.call.args):
            t = graph.tensors[root[arg.index]]
            # State lives in the state buffer, outside the plan.
            if not t.is_const and not t.variable:
                touch(arg.index, i)
    for t in graph.outputs:
        touch(t, len(steps))
    return [
        planner.Buffer(key=r, size=graph.tensors[r].nbytes, start=first[r], end=last[r])
        for r in sorted(first)
    ]


def _overlaps(
    graph: Graph, steps: list[Step], root: dict[int, int], buffers: list[planner.Buffer]
) -> list[planner.Overlap]:
    """Overlap rules for inputs that die at the op that reads them last."""
    last = {b.key: b.end for b in buffers}
    rules = []
    for i, step in enumerate(steps):
        if not step.op.outputs:
            continue
        out = root[step.op.outputs[0]]
        for rule in step.call.inplace:
            inp = root[rule.input]
            if inp != out and last.get(inp) == i and not graph.tensors[rule.input].is_const:
                rules.append(planner.Overlap(out, inp, rule.forward, rule.reverse, rule.modulus))
    return rules


def _set_direction(step: Step, root: dict[int, int], plan: planner.Plan) -> None:
    """Run the kernel in reverse when the plan put its output above an input it overlaps."""
    if step.call.reverse_param is None:
        return
    out = root[step.op.outputs[0]]
    reverse = 0
    for rule in step.call.inplace:
        inp = root[rule.input]
        o, i = plan.offsets.get(out), plan.offsets.get(inp)
        if inp == out or o is None or i is None:
            continue
        overlapping = o < i + plan.buffers[inp].size and i < o + plan.buffers[out].size
        if overlapping and i - o < rule.forward:
            assert rule.reverse is not None and o - i >= rule.reverse
            reverse = 1
    params: dict = step.call.params
    *path, leaf = step.call.reverse_param.split(".")
    for key in path:
        params = params[key]
    params[leaf] = reverse
