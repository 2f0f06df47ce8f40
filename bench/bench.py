"""The tinyaot benchmark: memory, flash and Cortex-M3 instruction counts per model.

    python3 bench/bench.py [--layers] [--json FILE] [--opt -O2|-Os] [models...]

For every model (default: every model of the corpus in models/ that the compiler takes) it
compiles the model, builds it with the bare-metal harness of tests/cortex_m3 and runs it under
qemu, and prints:

  ops, MACs          from the compiler (ops of the .tflite; MACs of CONV_2D, DEPTHWISE_CONV_2D
                     and FULLY_CONNECTED)
  arena              tinyaot's arena in bytes (inputs and outputs included)
  TFLM head / min    TFLite Micro's arena, measured with bench/tflm_arena.py on the host
                     build of the tflite-micro package (its version is printed first): the
                     planned activations, and the smallest arena_size the interpreter accepts
  arena/min          tinyaot's arena over TFLM's minimum
  model weights      flash at -Os of the model's constant tensors as the .tflite has them
  gen tables         flash at -Os of the arrays the compiler generated (rearranged weights,
                     multipliers, lookup tables)
  code               the rest of the model's flash at -Os (tests/cortex_m3/runner.flash_split)
  instr, instr/MAC   Cortex-M3 instructions per inference at --opt (default -O2): SysTick
                     ticks under qemu -icount, divided by the board's ticks per instruction
  cycles             estimated cycles: the instructions by class (a qemu plugin,
                     bench/insn_classes.c) weighed with the core's documented timings
  TFLM+CMSIS-NN      the same two counts for TFLite Micro with the CMSIS-NN kernels built
                     into the same harness (bench/tflm_firmware.py), when its source checkouts
                     are given (--tflm-path ... or TFLM_PATH ...), and tinyaot / TFLM ratios

With --layers, the same per op from a build with -DTINYAOT_PROFILE. With --arena-budget BYTES
or --smallest-arena (and --max-extra-macs), each model is also compiled with that patch plan
and run the same way: a third table gives both arenas, the input bytes read in place, the
extra MACs and the instruction overhead of the plan against layer by layer. Figures are
counts, not times: they are exact and repeat from run to run. See bench/README.md.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import zlib
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from pathlib import Path

BENCH = Path(__file__).resolve().parent
REPO = BENCH.parent
sys.path[:0] = [str(REPO / "scripts"), str(REPO / "tests" / "cortex_m3"), str(REPO / "tests")]

import cycles  # noqa: E402
import numpy as np  # noqa: E402
import runner  # noqa: E402
import tflm_firmware  # noqa: E402
from closeness import outputs_match  # noqa: E402
from harness import c_name  # noqa: E402
from reference import Reference, model_paths  # noqa: E402
from tflm_arena import tflm_arena, tflm_build  # noqa: E402
from tinyaot import codegen, pad_fold, patch  # noqa: E402
from tinyaot.compiler import SPEED_SCRATCH_DSP, Compiled, Options, compile_model  # noqa: E402
from tinyaot.errors import CompileError  # noqa: E402

FLASH_OPT = "-Os"
QEMU_TIMEOUT = 600.0


@dataclass
class Layer:
    """One op of the model; instructions is None for ops that run no code (aliases, and PADs
    folded into the convolution of op folded_into)."""

    index: int
    op: str
    macs: int
    instructions: int | None = None
    instructions_per_mac: float | None = None
    folded_into: int | None = None


@dataclass
class TflmResult:
    """TFLite Micro + CMSIS-NN built for the same core, run on the same input."""

    board: str
    instructions: int
    cycles: int
    instruction_classes: dict[str, int]
    matches_tflm: bool
    stack: int
    flash: int
    instructions_ratio: float  # tinyaot / TFLM+CMSIS-NN
    cycles_ratio: float


@dataclass
class PatchResult:
    """The model compiled with the patch options (--arena-budget, --smallest-arena), run on
    the same board and input as layer by layer."""

    arena: int
    # Bytes of the inputs that _run() reads in the caller's buffers, outside the arena.
    input_in_place: int
    macs: int
    extra_macs_percent: float
    # patch.describe() of the stage, or why there is none.
    stage: str
    instructions: int
    # Its instructions over layer by layer's, in percent.
    instructions_overhead_percent: float
    matches_tflm: bool


@dataclass
class Result:
    """Every figure of one model, as written to the JSON file."""

    model: str
    ops: int
    macs: int
    arena: int
    tflm_arena_head: int
    tflm_arena_min: int
    arena_vs_tflm_min: float
    flash: dict[str, int]
    flash_board: str
    board: str
    instructions: int
    instructions_per_mac: float | None
    matches_tflm: bool
    qemu_seconds: float
    # Estimated cycles of the invoke and the instructions by class they come from.
    cycles: int | None = None
    instruction_classes: dict[str, int] = field(default_factory=dict)
    # TFLite Micro + CMSIS-NN in the same harness (None without its sources).
    tflm: TflmResult | None = None
    # Why TFLite Micro + CMSIS-NN did not build or run this model (its columns are then "-").
    tflm_error: str | None = None
    layers: list[Layer] = field(default_factory=list)
    # The invoke's instructions outside every op (argument checks, calls) less the residue of
    # the hook's cost the calibration misses, within a couple of instructions per op.
    layers_unattributed: int | None = None
    # With the patch options: the patch plan's figures, or the compiler's message.
    patch: PatchResult | None = None
    patch_error: str | None = None


def _per_mac(instructions: int | None, macs: int) -> float | None:
    return round(instructions / macs, 3) if instructions is not None and macs else None


def _generate(model: Path, out: Path, options: dict | None = None) -> Compiled:
    """Compile with the compiler's API (the per-op MACs are only there) and write the sources."""
    compiled = compile_model(model, Options(name=c_name(model), **(options or {})))
    out.mkdir(parents=True, exist_ok=True)
    for fname, text in codegen.generate(compiled).items():
        (out / fname).write_text(text, encoding="utf-8")
    return compiled


def _matches(raw: list[bytes], want: list[np.ndarray]) -> bool:
    got = [np.frombuffer(d, dtype=w.dtype).reshape(w.shape) for d, w in zip(raw, want, strict=True)]
    return outputs_match(got, want)


@dataclass
class Prepared:
    """What measure() needs from the Python side: compiled model, input, reference output."""

    model: Path
    compiled: Compiled
    gen: Path
    inputs: list[bytes]
    want: list[np.ndarray]
    tflm: dict[str, int]
    input_arrays: list[np.ndarray] = field(default_factory=list)
    # Compiled with the patch options into patched_gen, or the compiler's message.
    patched: Compiled | None = None
    patched_gen: Path | None = None
    patch_error: str | None = None


def prepare(
    model: Path, workdir: Path, patch_options: dict | None = None, options: dict | None = None
) -> Prepared:
    """Compile the model with `options` (and with patch_options added, the Options of a patch
    plan, once more) and compute TFLM's output and arena.

    Run in the main thread, one model at a time: tflm_arena() redirects file descriptor 2 of
    the whole process while it runs, which concurrent threads would tangle.
    """
    gen = workdir / "gen"
    compiled = _generate(model, gen, options)
    patched, patch_error = None, None
    if patch_options:
        try:
            patched = _generate(model, workdir / "gen_patch", {**(options or {}), **patch_options})
        except CompileError as exc:
            patch_error = str(exc)
    ref = Reference(model)
    # Seeded by the name, like tests/cortex_m3, so every run measures the same inference:
    # counts depend slightly on the data (clamps, soft-float), not on the run.
    x = ref.random_inputs(np.random.default_rng(zlib.crc32(model.stem.encode())))
    want = ref.run(x)
    return Prepared(
        model,
        compiled,
        gen,
        [a.tobytes() for a in x],
        want,
        tflm_arena(str(model)),
        x,
        patched,
        workdir / "gen_patch" if patched else None,
        patch_error,
    )


def counted_run(elf: Path, board: str, workdir: Path) -> tuple[runner.RunResult, dict[str, int]]:
    """Run under qemu with the instruction-class plugin; the run and the invoke's counts."""
    snapshots = elf.with_suffix(".classes")
    args = cycles.qemu_args(cycles.plugin(workdir.parent), elf, snapshots)
    result = runner.run(elf, board, QEMU_TIMEOUT, qemu_args=args)
    counts = cycles.invoke_counts(snapshots)
    # The plugin and SysTick count the same instructions; more than the tick's rounding
    # (ticks / ticks per instruction is not always whole) is a plugin bug.
    if abs(cycles.total(counts) - result.instructions()[0]) > 1:
        raise runner.HarnessError(
            f"{elf}: the plugin counted {cycles.total(counts)} instructions, SysTick "
            f"{result.instructions()[0]}"
        )
    return result, counts


# Added to TFLM's arena on the device: "min" is measured on the host with the reference
# kernels, while CMSIS-NN's kernels ask for scratch buffers, larger on Helium (the Cortex-M55's
# KWS failed its AllocateTensors with min alone). The arena's size changes no count.
TFLM_SCRATCH_HEADROOM = 16 * 1024

# The boards whose cores use the DSP kernels' scratch (not the Cortex-M55's Helium ones).
DSP_BOARDS = ("mps2-an386", "mps2-an505")


def measure_tflm(
    p: Prepared, sources: tflm_firmware.Sources, opt: str, cpu: str, workdir: Path, jobs: int
) -> tuple[runner.RunResult, dict[str, int]]:
    """Build TFLite Micro + CMSIS-NN with the model for `cpu` and run it like tinyaot's."""
    # TFLM's code and arena exceed lm3s6965evb's RAM; the MPS2 board of the same core.
    board = {
        "cortex-m3": "mps2-an385",
        "cortex-m4": "mps2-an386",
        "cortex-m33": "mps2-an505",
        "cortex-m55": "mps3-an547",
    }[cpu]
    gen = workdir / "tflm_gen"
    ops = [op.kind for op in p.compiled.graph.ops]
    tflm_firmware.write_model(
        gen,
        p.model,
        ops,
        p.input_arrays,
        p.want,
        p.tflm["min"] + TFLM_SCRATCH_HEADROOM,
        sources,
    )
    elf = tflm_firmware.build(
        sources, gen, ops, [p.inputs], board, opt, workdir / f"tflm{opt}", jobs
    )
    return counted_run(elf, board, workdir)


def measure(
    p: Prepared,
    opt: str,
    layers: bool,
    workdir: Path,
    board: str = "auto",
    sources: tflm_firmware.Sources | None = None,
    jobs: int = 1,
) -> Result:
    """Build and run one model under qemu (board "auto": the smallest Cortex-M3 it fits);
    every figure of its Result, with TFLM + CMSIS-NN's when `sources` are given."""
    name = c_name(p.model)
    compiled = p.compiled

    def build(build_opt: str, tag: str, cflags: list[str]) -> tuple[Path, str]:
        kwargs = {"extra_cflags": cflags, "jobs": 1}
        if board == "auto":
            return runner.build_auto(p.gen, name, [p.inputs], build_opt, workdir / tag, **kwargs)
        elf = runner.build(p.gen, name, [p.inputs], board, build_opt, workdir / tag, **kwargs)
        return elf, board

    def build_run(build_opt: str, tag: str, cflags: list[str]) -> runner.RunResult:
        return runner.run(*build(build_opt, tag, cflags), QEMU_TIMEOUT)

    timed, classes = counted_run(*build(opt, f"run{opt}", []), workdir)
    sized = timed if opt == FLASH_OPT else build_run(FLASH_OPT, f"size{FLASH_OPT}", [])
    instructions = round(timed.instructions()[0])
    cpu = runner.BOARD_CPU[timed.board]

    result = Result(
        model=p.model.stem,
        ops=len(compiled.graph.ops),
        macs=compiled.macs,
        arena=compiled.plan.size,
        tflm_arena_head=p.tflm["head"],
        tflm_arena_min=p.tflm["min"],
        arena_vs_tflm_min=round(compiled.plan.size / p.tflm["min"], 3),
        flash=runner.flash_split(sized.elf, name),
        flash_board=sized.board,
        board=timed.board,
        instructions=instructions,
        instructions_per_mac=_per_mac(instructions, compiled.macs),
        matches_tflm=_matches(timed.outputs[0], p.want),
        qemu_seconds=round(timed.wall_seconds, 2),
        cycles=cycles.estimate(classes, cpu),
        instruction_classes=classes,
    )
    try:
        measured = None if sources is None else measure_tflm(p, sources, opt, cpu, workdir, jobs)
    except runner.HarnessError as exc:
        # One model TFLM cannot run leaves the others' comparison standing.
        result.tflm_error = str(exc).splitlines()[0]
        measured = None
    if measured is not None:
        run, tclasses = measured
        t_instr = round(run.instructions()[0])
        t_cycles = cycles.estimate(tclasses, cpu)
        result.tflm = TflmResult(
            board=run.board,
            instructions=t_instr,
            cycles=t_cycles,
            instruction_classes=tclasses,
            matches_tflm=_matches(run.outputs[0], p.want),
            stack=run.stack[0],
            flash=runner.size(run.elf)["flash"],
            instructions_ratio=round(instructions / t_instr, 3),
            cycles_ratio=round(result.cycles / t_cycles, 3),
        )
    result.patch_error = p.patch_error
    if p.patched is not None and p.patched_gen is not None:
        result.patch = _measure_patch(p, name, opt, timed.board, instructions, workdir)
    if layers:
        profiled = build_run(opt, f"profile{opt}", ["-DTINYAOT_PROFILE"])
        # Each op's ticks include the hook's cost around it; an empty op measured it.
        overhead = profiled.profile_overhead or 0
        ticks = {op.index: op.ticks - overhead for op in profiled.profile[0]}
        macs = {step.op.index: step.call.macs for step in compiled.steps}
        for op in compiled.graph.ops:
            count = (
                round(runner.instructions(ticks[op.index], profiled.board))
                if op.index in ticks
                else None
            )
            mac = macs.get(op.index, 0)
            into = op.options.get(pad_fold.FOLDED_INTO)
            result.layers.append(
                Layer(
                    op.index,
                    op.kind,
                    mac,
                    count,
                    _per_mac(count, mac),
                    into if isinstance(into, int) else None,
                )
            )
        result.layers_unattributed = instructions - sum(
            layer.instructions or 0 for layer in result.layers
        )
    return result


def _measure_patch(
    p: Prepared, name: str, opt: str, board: str, base: int, workdir: Path
) -> PatchResult:
    """The patch plan built for the board layer by layer ran on, and run on the same input."""
    assert p.patched is not None and p.patched_gen is not None
    c = p.patched
    elf = runner.build(p.patched_gen, name, [p.inputs], board, opt, workdir / f"patch{opt}", jobs=1)
    run = runner.run(elf, board, QEMU_TIMEOUT)
    instructions = round(run.instructions()[0])
    extra = sum(stage.extra_macs for stage in c.patches)
    return PatchResult(
        arena=c.plan.size,
        input_in_place=sum(
            c.graph.tensors[t].nbytes for t in c.graph.inputs if c.root[t] in c.in_place
        ),
        macs=c.macs,
        extra_macs_percent=round(100.0 * extra / (c.macs - extra), 2) if c.macs else 0.0,
        stage="; ".join(map(patch.describe, c.patches)) or "no stage: layer by layer",
        instructions=instructions,
        instructions_overhead_percent=round(100.0 * (instructions - base) / base, 2),
        matches_tflm=_matches(run.outputs[0], p.want),
    )


def _k(value: float) -> str:
    return f"{value / 1e6:.2f}M" if value >= 1e6 else f"{value / 1e3:.1f}k"


def _num(value: float | None, digits: int = 2) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def _table(rows: list[list[str]], right: set[int]) -> str:
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    lines = []
    for n, row in enumerate(rows):
        cells = [
            c.rjust(w) if i in right else c.ljust(w)
            for i, (c, w) in enumerate(zip(row, widths, strict=True))
        ]
        lines.append("  ".join(cells).rstrip())
        if n == 0:
            lines.append("  ".join("-" * w for w in widths))
    return "\n".join(lines)


def summary_table(results: list[Result], opt: str) -> str:
    """The main table: one row per model."""
    rows = [
        [
            "model",
            "ops",
            "MACs",
            "arena",
            "TFLM head",
            "TFLM min",
            "arena/min",
            "model weights",
            "gen tables",
            f"code{FLASH_OPT}",
            f"instr{opt}",
            "instr/MAC",
            "board",
            "qemu s",
        ]
    ]
    for r in results:
        rows.append(
            [
                r.model + ("" if r.matches_tflm else " (OUTPUT DIFFERS)"),
                str(r.ops),
                _k(r.macs) if r.macs else "0",
                str(r.arena),
                str(r.tflm_arena_head),
                str(r.tflm_arena_min),
                _num(r.arena_vs_tflm_min),
                str(r.flash["model_weights"]),
                str(r.flash["generated_tables"]),
                str(r.flash["code"]),
                str(r.instructions),
                _num(r.instructions_per_mac),
                r.board,
                _num(r.qemu_seconds),
            ]
        )
    return _table(rows, right=set(range(1, 12)) | {13})


def speed_table(results: list[Result], opt: str) -> str:
    """Instructions and estimated cycles of tinyaot and TFLM + CMSIS-NN, and their ratios."""
    rows = [
        [
            "model",
            "MACs",
            "core",
            f"instr{opt}",
            "cycles",
            "cycles/MAC",
            "TFLM+CMSIS-NN instr",
            "TFLM cycles",
            "instr ratio",
            "cycles ratio",
        ]
    ]
    for r in results:
        t = r.tflm
        rows.append(
            [
                r.model
                + ("" if t is None or t.matches_tflm else " (TFLM BUILD DIFFERS)")
                + ("" if r.tflm_error is None else " (TFLM FAILED)"),
                _k(r.macs) if r.macs else "0",
                runner.BOARD_CPU[r.board],
                str(r.instructions),
                str(r.cycles),
                _num(r.cycles / r.macs if r.cycles and r.macs else None),
                "-" if t is None else str(t.instructions),
                "-" if t is None else str(t.cycles),
                # From the counts: the JSON's ratios are rounded to 3 places already.
                "-" if t is None else _num(r.instructions / t.instructions),
                "-" if t is None else _num(r.cycles / t.cycles),
            ]
        )
    return _table(rows, right={1, *range(3, 10)})


def patch_table(results: list[Result], opt: str) -> str:
    """Layer by layer against the patch plan: arenas, MACs and instructions."""
    rows = [
        [
            "model",
            "arena",
            "patch arena",
            "input in place",
            "MACs",
            "extra MACs %",
            f"instr{opt}",
            f"patch instr{opt}",
            "instr overhead %",
        ]
    ]
    for r in results:
        q = r.patch
        if q is None:
            rows.append([r.model, str(r.arena), r.patch_error or "-", *["-"] * 6])
            continue
        rows.append(
            [
                r.model + ("" if q.matches_tflm else " (PATCH OUTPUT DIFFERS)"),
                str(r.arena),
                str(q.arena),
                str(q.input_in_place),
                _k(q.macs) if q.macs else "0",
                _num(q.extra_macs_percent, 1),
                str(r.instructions),
                str(q.instructions),
                _num(q.instructions_overhead_percent, 1),
            ]
        )
    return _table(rows, right=set(range(1, 9)))


def flash_table(results: list[Result]) -> str:
    """Where the code bytes of the main table come from."""
    keys = [
        "generated_code",
        "runtime_code",
        "library_code",
        "generated_const",
        "runtime_const",
        "code",
        "model_weights",
        "generated_tables",
    ]
    heads = [
        "gen .text",
        "crt .text",
        "libgcc/libc",
        "gen const",
        "crt const",
        "code",
        "model weights",
        "gen tables",
    ]
    rows = [["model", *heads]]
    rows += [[r.model, *(str(r.flash[k]) for k in keys)] for r in results]
    return _table(rows, right=set(range(1, len(rows[0]))))


def _no_code(layer: Layer) -> str:
    return "alias" if layer.folded_into is None else f"in op {layer.folded_into}"


def layers_table(r: Result, opt: str) -> str:
    """Per op of one model; ops without instructions are aliases or folded PADs (no code)."""
    rows = [["op", "kind", "MACs", f"instr{opt}", "instr/MAC"]]
    for layer in r.layers:
        rows.append(
            [
                str(layer.index),
                layer.op,
                str(layer.macs),
                _no_code(layer) if layer.instructions is None else str(layer.instructions),
                _num(layer.instructions_per_mac),
            ]
        )
    rows.append(["", "invoke - sum of ops", "", str(r.layers_unattributed), ""])
    rows.append(["", "total", str(r.macs), str(r.instructions), _num(r.instructions_per_mac)])
    return _table(rows, right={0, 2, 3, 4})


def _tool_version(command: str) -> str:
    out = subprocess.run([command, "--version"], capture_output=True, text=True, check=False)
    return out.stdout.splitlines()[0] if out.stdout else "?"


def _resolve(models: list[str]) -> list[Path]:
    if not models:
        return model_paths()
    known = {p.stem: p for p in model_paths()}
    paths = []
    for m in models:
        path = Path(m)
        if path.suffix == ".tflite" and path.is_file():
            paths.append(path.resolve())
        elif m in known:
            paths.append(known[m])
        else:
            raise SystemExit(f"bench: no model '{m}' (known: {', '.join(known)})")
    return paths


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark; returns 1 if any model's output differs from TFLite Micro."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("models", nargs="*", help="corpus model names or .tflite paths")
    parser.add_argument("--layers", action="store_true", help="also per op (profiled build)")
    parser.add_argument("--json", metavar="FILE", help="write every figure here as JSON")
    parser.add_argument("--opt", default="-O2", choices=["-O2", "-Os", "-O3"], help="for timing")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="models at once")
    parser.add_argument("--keep", metavar="DIR", help="build here and keep it (default: temp)")
    parser.add_argument(
        "--board",
        default="auto",
        choices=["auto", *runner.LINKER_SCRIPTS],
        help="qemu machine (default: the smallest Cortex-M3 board the model fits; "
        "mps2-an386 is a Cortex-M4, with the DSP extension; mps2-an505 a Cortex-M33, with "
        "it; mps3-an547 a Cortex-M55, with Helium)",
    )
    parser.add_argument(
        "--arena-budget",
        type=int,
        default=0,
        metavar="BYTES",
        help="also compile and run each model under this arena budget (patch plan)",
    )
    parser.add_argument(
        "--smallest-arena",
        action="store_true",
        help="also compile and run each model with its smallest-arena patch plan",
    )
    parser.add_argument(
        "--max-extra-macs",
        type=int,
        default=patch.DEFAULT_MAX_EXTRA_MACS,
        metavar="PERCENT",
        help="the extra MACs a patch plan may cost (default %(default)s)",
    )
    parser.add_argument(
        "--speed-scratch",
        type=int,
        metavar="PERCENT",
        help="the compiler's --speed-scratch (default: as the Zephyr module's Kconfig, "
        f"{SPEED_SCRATCH_DSP} on {' and '.join(DSP_BOARDS)}, else 0)",
    )
    parser.add_argument(
        "--speed-flash",
        type=int,
        default=0,
        metavar="PERCENT",
        help="the compiler's --speed-flash (default %(default)s, as the Zephyr module's Kconfig)",
    )
    for key, var in tflm_firmware.ENV.items():
        parser.add_argument(
            f"--{key.replace('_', '-')}-path",
            metavar="DIR",
            help=f"checkout for the TFLite Micro + CMSIS-NN columns (default: ${var})",
        )
    args = parser.parse_args(argv)

    missing = runner.missing_tools()
    if missing:
        raise SystemExit(f"bench: not on PATH: {', '.join(missing)}")
    models = _resolve(args.models)
    sources = tflm_firmware.find_sources(
        {key: getattr(args, f"{key}_path") for key in tflm_firmware.ENV}
    )

    with tempfile.TemporaryDirectory(prefix="tinyaot-bench-") as tmp:
        root = Path(args.keep).resolve() if args.keep else Path(tmp)
        patch_options = None
        if args.arena_budget or args.smallest_arena:
            patch_options = {
                "arena_budget": args.arena_budget,
                "smallest_arena": args.smallest_arena,
                "max_extra_macs": args.max_extra_macs,
            }
        speed = args.speed_scratch
        if speed is None:
            speed = SPEED_SCRATCH_DSP if args.board in DSP_BOARDS else 0
        options = {"speed_scratch": speed, "speed_flash": args.speed_flash}
        prepared = [prepare(m, root / m.stem, patch_options, options) for m in models]
        skipped: list[str] = []

        def measured(p: Prepared) -> Result | None:
            try:
                return measure(
                    p, args.opt, args.layers, root / p.model.stem, args.board, sources, args.jobs
                )
            except runner.BuildError as exc:
                # A board named on the command line may be too small for some models (the
                # Cortex-M55's DTCM for RetinaFace): those are left out, the others measured.
                if args.board == "auto" or "overflowed" not in exc.output:
                    raise
                skipped.append(f"{p.model.stem}: does not fit {args.board}")
                return None

        # Builds and qemu runs are subprocesses: threads are enough to overlap them.
        with ThreadPoolExecutor(max_workers=args.jobs) as pool:
            results = [r for r in pool.map(measured, prepared) if r is not None]

    for line in skipped:
        print(f"bench: left out {line}")
    print(f"TFLM arena measured with {tflm_build()}")
    print(summary_table(results, args.opt))
    print()
    if sources is None:
        print("TFLite Micro + CMSIS-NN: no sources given (--tflm-path ..., see bench/README.md)")
    else:
        commits = tflm_firmware.describe(sources)
        print(
            "TFLite Micro + CMSIS-NN built from "
            + ", ".join(f"{k} {v[:12]}" for k, v in commits.items())
        )
    print(f"estimated cycles: instructions by class x the core's timings, P = {cycles.REFILL}")
    print(speed_table(results, args.opt))
    for r in results:
        if r.tflm_error is not None:
            print(f"{r.model}: TFLM + CMSIS-NN failed: {r.tflm_error}")
    print()
    print(f"flash at {FLASH_OPT}, bytes; code = the first five columns")
    print(flash_table(results))
    if args.arena_budget or args.smallest_arena:
        how = "smallest arena" if args.smallest_arena else f"arena budget {args.arena_budget} B"
        cap = f"at most {args.max_extra_macs} % extra MACs"
        print(f"\npatch plan ({how}, {cap}) against layer by layer")
        print(patch_table(results, args.opt))
        for r in results:
            if r.patch is not None:
                print(f"{r.model}: {r.patch.stage}")
    if args.layers:
        for r in results:
            print(f"\n{r.model}")
            print(layers_table(r, args.opt))
    if args.json:
        doc = {
            "opt": args.opt,
            "speed_scratch": speed,
            "speed_flash": args.speed_flash,
            "flash_opt": FLASH_OPT,
            "gcc": _tool_version(runner.GCC),
            "qemu": _tool_version(runner.QEMU),
            "tflm": tflm_build(),
            "icount": runner.QEMU_ICOUNT,
            "ticks_per_instruction": runner.TICKS_PER_INSTRUCTION,
            "cycle_weights": cycles.WEIGHTS,
            "pipeline_refill": cycles.REFILL,
            "tflm_cmsis_nn_sources": None if sources is None else tflm_firmware.describe(sources),
            "models": [asdict(r) for r in results],
            "left_out": skipped,
        }
        Path(args.json).write_text(json.dumps(doc, indent=2) + "\n", encoding="utf-8")
    bad = [
        r.model
        for r in results
        if not r.matches_tflm
        or (r.tflm and not r.tflm.matches_tflm)
        or (r.patch and not r.patch.matches_tflm)
    ]
    if bad:
        print(f"\nbench: output differs from TFLite Micro for {', '.join(bad)}", file=sys.stderr)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
