"""Build a tinyaot-generated model into bare-metal Cortex-M3 firmware and run it under qemu.

Used by the pytest suite (bit-exact outputs on a real Cortex-M3 instruction set and ABI) and by
the benchmark (instruction counts, flash and RAM).

The firmware is main.c + startup.c from this folder, the generated model's .c files, every
runtime source of crt/sources.txt and an inputs.c written here from the caller's input bytes.
It runs each input set once and prints results over ARM semihosting; qemu runs with -icount so
that the SysTick cycle count main.c reports is a deterministic function of the executed
instruction count (see TICKS_PER_INSTRUCTION).

build_auto() (or board="auto") picks the board from the firmware's measured sizes
(choose_board); flash_split() attributes the flash to weights, generated code, runtime and
harness from the link map; extra_cflags=["-DTINYAOT_PROFILE"] adds per-op ticks
(RunResult.profile).
"""

from __future__ import annotations

import atexit
import os
import re
import shutil
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple

from tinyaot.runtime_sources import runtime_sources

HARNESS_DIR = Path(__file__).resolve().parent
REPO_ROOT = HARNESS_DIR.parents[1]
CRT_INCLUDE = REPO_ROOT / "crt" / "include"
CRT_SRC = REPO_ROOT / "crt" / "src"

GCC = "arm-none-eabi-gcc"
SIZE = "arm-none-eabi-size"
NM = "arm-none-eabi-nm"
READELF = "arm-none-eabi-readelf"
QEMU = "qemu-system-arm"

# Board name (qemu -M value) -> linker script in this folder.
LINKER_SCRIPTS: dict[str, str] = {
    "lm3s6965evb": "lm3s6965evb.ld",
    "mps2-an385": "mps2_an385.ld",
    # The Cortex-M4 image of the same board: qemu gives it the same memory map.
    "mps2-an386": "mps2_an385.ld",
    "mps2-an505": "mps2_an505.ld",
    "mps3-an547": "mps3_an547.ld",
}

# The core of each board, the -mcpu the firmware is compiled for. The Cortex-M4 runs the same
# firmware with the DSP extension's kernels (__ARM_FEATURE_DSP), the Cortex-M55 with those and
# Helium's (__ARM_FEATURE_MVE).
BOARD_CPU: dict[str, str] = {
    "lm3s6965evb": "cortex-m3",
    "mps2-an385": "cortex-m3",
    "mps2-an386": "cortex-m4",
    "mps2-an505": "cortex-m33",
    "mps3-an547": "cortex-m55",
}

# The float ABI of each core, for compiling and linking. The Cortex-M3 has no FPU. mps2-an386's
# Cortex-M4 has the single-precision FPv4-SP (qemu models it), and a product with an M4F builds
# for it: float32 runs on the FPU, with floats passed in its registers (startup.c enables it).
# The integer kernels are assembly or the same C: their counts move by under 0.01 % (KWS int8
# 4359524 -> 4359888 instructions at -O2, register allocation in the C around the routines).
CPU_FLOAT_FLAGS: dict[str, tuple[str, ...]] = {
    "cortex-m3": ("-mfloat-abi=soft",),
    "cortex-m4": ("-mfloat-abi=hard", "-mfpu=fpv4-sp-d16"),
    # The Cortex-M33 of mps2-an505 has the DSP extension (GCC's default for the core) and the
    # single-precision FPv5.
    "cortex-m33": ("-mfloat-abi=hard", "-mfpu=fpv5-sp-d16"),
    # -mfpu=auto: the FPU and Helium -mcpu=cortex-m55 names (FPv5 with double precision, MVE
    # integer and float: __ARM_FEATURE_MVE 3), so the MVE kernels and arm_mve.h are built in.
    "cortex-m55": ("-mfloat-abi=hard", "-mfpu=auto"),
}

# SysTick ticks (core clock cycles) per executed instruction under
# `-icount shift=7,sleep=off,align=off`: each instruction advances qemu's virtual clock by
# 2**7 = 128 ns and SysTick (CLKSOURCE = core clock) counts the board's modelled core clock, so
# the factor is 128 ns * f_core: 1.6 means 12.5 MHz on lm3s6965evb, 3.2 means 25 MHz on
# mps2-an385 (SYSCLK_FRQ in qemu's hw/arm/mps2.c).
#
# Measured, not just derived (qemu 7.2, Debian's qemu-system-arm): a fake model whose invoke
# runs a hand-written Thumb loop of N iterations x 4 instructions (nop; nop; subs; bne), built
# once with input sets N = 0, 1, 2, 1000, 1e6, 2e7 and run on each board. (ticks(N) -
# ticks(0)) / 4N came out as
#   lm3s6965evb: 1.6005 (N=1000), 1.600000 (N=1e6), 1.600001 (N=2e7)
#   mps2-an385:  3.2010 (N=1000), 3.200005 (N=1e6), 3.200003 (N=2e7)
# and mps2-an386, the same board with a Cortex-M4, counts like mps2-an385. mps3-an547 (a
# Cortex-M55 at qemu's 32 MHz SYSCLK for the AN547) gives 4.096 = 128 ns * 32 MHz:
#   mps3-an547:  4.09725 (N=1000), 4.096006 (N=1e6), 4.096005 (N=2e7), ticks(0) = 278.
# mps2-an505 (a Cortex-M33 at qemu's 20 MHz SYSCLK for the AN505) gives 2.56 = 128 ns * 20 MHz:
#   mps2-an505:  2.5605 (N=1000), 2.560001 (N=1e6), 2.560002 (N=2e7), ticks(0) = 184.
# The residue at 2e7 (66 and 243 ticks) is the SysTick wrap interrupt itself, about 5
# instructions per 2**24-tick wrap, which a real inference pays too; ticks(0) converts to ~67
# instructions, the fake invoke's own code. test_harness.py repeats this check on every run.
TICKS_PER_INSTRUCTION: dict[str, float] = {
    "lm3s6965evb": 1.6,
    "mps2-an385": 3.2,
    "mps2-an386": 3.2,
    "mps2-an505": 2.56,
    "mps3-an547": 4.096,
}

QEMU_ICOUNT = "shift=7,sleep=off,align=off"

# Flash and RAM of each board as its linker script declares them, in bytes.
BOARD_MEMORY: dict[str, tuple[int, int]] = {
    "lm3s6965evb": (256 * 1024, 64 * 1024),
    "mps2-an385": (4 * 1024 * 1024, 4 * 1024 * 1024),
    "mps2-an386": (4 * 1024 * 1024, 4 * 1024 * 1024),
    "mps2-an505": (4 * 1024 * 1024, 4 * 1024 * 1024),
    # Flash: ITCM (code) + ISRAM (constants); RAM: DTCM. See mps3_an547.ld.
    "mps3-an547": (512 * 1024 + 4 * 1024 * 1024, 512 * 1024),
}

# choose_board() takes the first board that fits: lm3s6965evb is the machine behind Zephyr's
# qemu_cortex_m3 and a realistic part; mps2-an385 is the same core with room for the rest.
BOARD_PREFERENCE: list[str] = ["lm3s6965evb", "mps2-an385"]

# Stack bytes a firmware must leave free to be given a board: lm3s6965evb.ld's __min_stack_size,
# so that a firmware choose_board() accepts also links. The deepest stack measured on any
# shared model is about 0.9 KB (RunResult.stack; test_models.STACK_BUDGET), well inside it.
STACK_RESERVE = 4096

# Object file name prefixes given by compile_sources(), by which flash_split() attributes
# every byte of flash to the generated code, the runtime or the harness.
MODEL_OBJECT_PREFIX = "model_"
CRT_OBJECT_PREFIX = "crt_"

# Exit statuses of the firmware (main.c and startup.c).
EXIT_OK = 0
EXIT_INVOKE_FAILED = 10
EXIT_BAD_INPUTS = 11
EXIT_FAULT = 12
EXIT_GUARD = 13

_EXIT_MEANING = {
    EXIT_INVOKE_FAILED: "an invoke returned non-zero",
    EXIT_BAD_INPUTS: "the input sets do not match the model's inputs",
    EXIT_FAULT: "the CPU faulted (see the 'fault' line; addr2line -e <elf> <pc>)",
    EXIT_GUARD: "the invoke wrote outside the arena (see the 'guard' lines: offsets from the "
    "arena's start), or the arena is not between the guards",
}


class HarnessError(RuntimeError):
    """Base of every failure the harness reports, so callers can catch them all at once."""


class ToolMissingError(HarnessError):
    """The cross compiler or qemu is not installed."""


class BuildError(HarnessError):
    """Compiling or linking failed; the message holds the command and the compiler's output."""

    def __init__(self, message: str, command: Sequence[str], output: str) -> None:
        super().__init__(f"{message}\n$ {' '.join(command)}\n{output}")
        self.command = list(command)
        self.output = output


class RunError(HarnessError):
    """qemu failed, timed out, or the firmware reported a failure; the message holds its log."""

    def __init__(
        self, message: str, command: Sequence[str], exit_status: int | None, log: str
    ) -> None:
        super().__init__(f"{message}\n$ {' '.join(command)}\n{log}")
        self.command = list(command)
        self.exit_status = exit_status
        self.log = log


class RunTimeoutError(RunError):
    """qemu ran past the timeout and was killed."""


class OpTicks(NamedTuple):
    """SysTick ticks of one op of a profiled invoke, as tinyaot_profile_op() reported them."""

    index: int  # the op's index in the .tflite, as the generated code numbers it
    op: str  # the TFLite builtin name, e.g. CONV_2D
    ticks: int


@dataclass(frozen=True)
class RunResult:
    """What one firmware run reported, indexed by input set (and output index for outputs)."""

    board: str
    elf: Path
    model: str
    arena_size: int
    outputs: list[list[bytes]]
    return_codes: list[int]
    ticks: list[int]
    # Peak stack bytes of each invoke. Painting covers stack_window bytes at most, so a value
    # equal to stack_window is only a lower bound.
    stack: list[int]
    stack_window: int
    exit_status: int
    log: str
    wall_seconds: float
    # Only from firmware built with -DTINYAOT_PROFILE (see main.c): profile[set] lists the ops
    # in execution order, and profile_overhead is the ticks an empty op reports, i.e. the
    # hook's own cost that every op's ticks include.
    profile: list[list[OpTicks]] = field(default_factory=list)
    profile_overhead: int | None = None

    @property
    def ok(self) -> bool:
        """True when every invoke returned 0."""
        return self.exit_status == EXIT_OK and all(rc == 0 for rc in self.return_codes)

    def instructions(self) -> list[float]:
        """Return the executed instructions per set, derived from the tick counts."""
        return [instructions(t, self.board) for t in self.ticks]


class Symbol(NamedTuple):
    """One sized symbol of the ELF, as arm-none-eabi-nm reports it."""

    name: str
    kind: str  # nm's type letter: t/T code, r/R read-only data, d/D data, b/B bss
    size: int


def missing_tools() -> list[str]:
    """Names of the external tools that are not on PATH, so tests can skip with a reason."""
    return [tool for tool in (GCC, SIZE, NM, READELF, QEMU) if shutil.which(tool) is None]


def _require_tools() -> None:
    missing = missing_tools()
    if missing:
        raise ToolMissingError(f"not on PATH: {', '.join(missing)}")


def _board(board: str) -> str:
    """Canonical board name; accepts mps2_an385 too because that is the linker script's name."""
    name = board.replace("_", "-")
    if name not in LINKER_SCRIPTS:
        raise ValueError(f"unknown board {board!r}; known: {', '.join(LINKER_SCRIPTS)}")
    return name


def instructions(ticks: float, board: str) -> float:
    """Convert SysTick ticks reported by the firmware into executed instructions."""
    return ticks / TICKS_PER_INSTRUCTION[_board(board)]


def _c_identifier(name: str) -> str:
    if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name):
        raise ValueError(f"model name {name!r} is not a C identifier")
    return name


def write_inputs_c(path: Path, inputs: Sequence[Sequence[bytes]]) -> None:
    """Write the inputs.c that main.c reads: one const byte array per set and input.

    The arrays are const so they stay in flash and leave RAM to the model.
    """
    num_inputs = len(inputs[0]) if inputs else 0
    for index, input_set in enumerate(inputs):
        if len(input_set) != num_inputs:
            raise ValueError(
                f"input set {index} has {len(input_set)} inputs, set 0 has {num_inputs}"
            )
    lines = [
        "/* Generated by tests/cortex_m3/runner.py: input sets for main.c. */",
        "#include <stddef.h>",
        "#include <stdint.h>",
        "",
        f"const uint32_t harness_num_sets = {len(inputs)}u;",
        f"const uint32_t harness_num_inputs = {num_inputs}u;",
        "",
    ]
    names: list[str] = []
    sizes: list[str] = []
    for set_index, input_set in enumerate(inputs):
        for input_index, raw in enumerate(input_set):
            data = bytes(raw)
            name = f"harness_in_{set_index}_{input_index}"
            names.append(name)
            sizes.append(f"{len(data)}u")
            # C99 has no zero-length arrays; one padding byte keeps an empty input legal.
            body = data or b"\0"
            rows = [
                "\t" + ", ".join(f"0x{b:02x}" for b in body[i : i + 16]) + ","
                for i in range(0, len(body), 16)
            ]
            lines += [f"static const uint8_t {name}[{len(body)}] = {{", *rows, "};", ""]
    # Again no zero-length arrays: a model without inputs, or no sets, gets one unused entry.
    lines += [
        "const uint8_t *const harness_input_data[] = {",
        *(f"\t{name}," for name in names or ["NULL"]),
        "};",
        "",
        "const uint32_t harness_input_size[] = {",
        *(f"\t{size}," for size in sizes or ["0u"]),
        "};",
        "",
    ]
    path.write_text("\n".join(lines))


def _runtime_flags(opt: str, cpu: str, extra_cflags: Sequence[str]) -> list[str]:
    return [
        f"-mcpu={cpu}",
        *CPU_FLOAT_FLAGS[cpu],
        "-mthumb",
        opt,
        "-std=c99",
        "-Wall",
        "-Wextra",
        "-Werror",
        "-ffunction-sections",
        "-fdata-sections",
        # Debug info costs no flash and lets addr2line resolve a fault's pc.
        "-g",
        "-I",
        str(CRT_INCLUDE),
        *extra_cflags,
    ]


def _compile_flags(
    model_dir: Path, name: str, opt: str, cpu: str, extra_cflags: Sequence[str]
) -> list[str]:
    return [
        *_runtime_flags(opt, cpu, extra_cflags),
        "-I",
        str(model_dir),
        f'-DMODEL_HEADER="{name}.h"',
        f"-DMODEL_PREFIX={name}",
    ]


def _run_tool(command: Sequence[str], what: str) -> None:
    proc = subprocess.run(
        command, check=False, capture_output=True, text=True, stdin=subprocess.DEVNULL
    )
    if proc.returncode != 0:
        raise BuildError(
            f"{what} failed (exit {proc.returncode})", command, proc.stdout + proc.stderr
        )


@dataclass(frozen=True)
class Objects:
    """The compiled objects of one firmware, ready to be linked for any board with its core."""

    workdir: Path
    name: str
    opt: str
    paths: list[Path]
    cpu: str = "cortex-m3"


def compile_sources(
    model_dir: Path,
    name: str,
    inputs: Sequence[Sequence[bytes]],
    opt: str = "-Os",
    workdir: Path | None = None,
    *,
    crt_sources: Sequence[Path] | None = None,
    extra_cflags: Sequence[str] = (),
    jobs: int | None = None,
    cpu: str = "cortex-m3",
) -> Objects:
    """Compile the firmware's sources for model `name` generated into `model_dir`.

    The objects depend on the core (cpu), not on the board (only the link does), so one
    compile serves link() for every board with that core. See build() for the arguments.
    """
    _require_tools()
    name = _c_identifier(name)
    model_dir = Path(model_dir).resolve()
    if not (model_dir / f"{name}.h").is_file():
        raise BuildError(f"no {name}.h in {model_dir}", [], "")
    if workdir is None:
        workdir = Path(tempfile.mkdtemp(prefix=f"tinyaot-m3-{name}-"))
    workdir = Path(workdir).resolve()
    objdir = workdir / "obj"
    objdir.mkdir(parents=True, exist_ok=True)

    inputs_c = workdir / "inputs.c"
    write_inputs_c(inputs_c, inputs)
    crt = runtime_sources() if crt_sources is None else [Path(p) for p in crt_sources]
    # Prefixed object names: the model, the runtime and the harness may share file names.
    # flash_split() relies on these prefixes to tell the three apart.
    sources = [
        *((p, f"{MODEL_OBJECT_PREFIX}{p.stem}") for p in sorted(model_dir.glob("*.c"))),
        (HARNESS_DIR / "main.c", "harness_main"),
        (HARNESS_DIR / "startup.c", "harness_startup"),
        (inputs_c, "harness_inputs"),
    ]
    cflags = _compile_flags(model_dir, name, opt, cpu, extra_cflags)
    runtime = _runtime_objects(crt, _runtime_flags(opt, cpu, extra_cflags), jobs)
    objects = _compile(sources, cflags, objdir, jobs)
    return Objects(workdir, name, opt, [*objects[:-3], *runtime, *objects[-3:]], cpu)


def _compile(
    sources: Sequence[tuple[Path, str]], cflags: Sequence[str], objdir: Path, jobs: int | None
) -> list[Path]:
    commands = [
        [GCC, *cflags, "-c", str(src), "-o", str(objdir / f"{stem}.o")] for src, stem in sources
    ]
    with ThreadPoolExecutor(max_workers=jobs or os.cpu_count() or 1) as pool:
        procs = list(
            pool.map(
                lambda cmd: subprocess.run(
                    cmd, check=False, capture_output=True, text=True, stdin=subprocess.DEVNULL
                ),
                commands,
            )
        )
    failures = [(cmd, p) for cmd, p in zip(commands, procs, strict=True) if p.returncode != 0]
    if failures:
        cmd, _ = failures[0]
        output = "\n".join(f"--- {c[-3]}\n{p.stdout}{p.stderr}" for c, p in failures)
        raise BuildError(f"compiling failed for {len(failures)} file(s)", cmd, output)
    return [objdir / f"{stem}.o" for _, stem in sources]


# The runtime's objects by flags and sources: they do not depend on the model, so a test
# that builds many firmwares compiles them once (crt/src at -O2 is most of a build's time).
_RUNTIME_CACHE: dict[tuple, list[Path]] = {}
_RUNTIME_LOCKS: dict[tuple, threading.Lock] = {}
_RUNTIME_GUARD = threading.Lock()


def _runtime_objects(crt: Sequence[Path], cflags: Sequence[str], jobs: int | None) -> list[Path]:
    key = (tuple(cflags), tuple((str(p), p.stat().st_mtime_ns) for p in crt))
    with _RUNTIME_GUARD:
        lock = _RUNTIME_LOCKS.setdefault(key, threading.Lock())
    with lock:
        if key not in _RUNTIME_CACHE:
            objdir = Path(tempfile.mkdtemp(prefix="tinyaot-m3-crt-"))
            atexit.register(shutil.rmtree, objdir, True)
            sources = [(p, f"{CRT_OBJECT_PREFIX}{p.stem}") for p in crt]
            _RUNTIME_CACHE[key] = _compile(sources, cflags, objdir, jobs)
        return _RUNTIME_CACHE[key]


def link(objects: Objects, board: str = "lm3s6965evb", extra_ldflags: Sequence[str] = ()) -> Path:
    """Link compiled objects for one board into <workdir>/<name>.elf (and .map, with --cref)."""
    _require_tools()
    board = _board(board)
    if BOARD_CPU[board] != objects.cpu:
        raise HarnessError(f"objects built for {objects.cpu} cannot run on {board}")
    workdir, name = objects.workdir, objects.name
    elf = workdir / f"{name}.elf"
    command = [
        GCC,
        f"-mcpu={objects.cpu}",
        *CPU_FLOAT_FLAGS[objects.cpu],
        "-mthumb",
        objects.opt,
        # startup.c is the whole C runtime start-up; newlib only supplies memcpy and friends,
        # and nosys stubs its system calls (semihosting is done directly by startup.c).
        "-nostartfiles",
        "--specs=nano.specs",
        "--specs=nosys.specs",
        "-Wl,--gc-sections",
        f"-Wl,-Map={workdir / f'{name}.map'}",
        # The cross-reference table tells flash_split() which library members the model uses.
        "-Wl,--cref",
        # The board's script INCLUDEs sections.ld, found beside it.
        f"-L{HARNESS_DIR}",
        "-T",
        str(HARNESS_DIR / LINKER_SCRIPTS[board]),
        *(str(p) for p in objects.paths),
        "-lm",
        *extra_ldflags,
        "-o",
        str(elf),
    ]
    _run_tool(command, "linking")
    return elf


def build(
    model_dir: Path,
    name: str,
    inputs: Sequence[Sequence[bytes]],
    board: str = "lm3s6965evb",
    opt: str = "-Os",
    workdir: Path | None = None,
    *,
    crt_sources: Sequence[Path] | None = None,
    extra_cflags: Sequence[str] = (),
    extra_ldflags: Sequence[str] = (),
    jobs: int | None = None,
) -> Path:
    """Compile and link the firmware for model `name` generated into `model_dir`.

    inputs[set][i] are the bytes of input i for that set, in the model's input order.
    workdir receives inputs.c, the objects, <name>.elf and <name>.map; None makes a fresh
    temporary directory (left for the caller to inspect or delete). crt_sources defaults to
    every source of crt/sources.txt; pass [] to build a model that needs no runtime kernels.
    Files are compiled in parallel (jobs, default one per CPU) and any failure raises BuildError.
    """
    board = _board(board)
    objects = compile_sources(
        model_dir,
        name,
        inputs,
        opt,
        workdir,
        crt_sources=crt_sources,
        extra_cflags=extra_cflags,
        jobs=jobs,
        cpu=BOARD_CPU[board],
    )
    return link(objects, board, extra_ldflags)


def choose_board(flash: int, ram: int) -> str:
    """The first board of BOARD_PREFERENCE with room for `flash` bytes and `ram` + STACK_RESERVE.

    Raises HarnessError when even the largest board is too small.
    """
    for board in BOARD_PREFERENCE:
        board_flash, board_ram = BOARD_MEMORY[board]
        if flash <= board_flash and ram + STACK_RESERVE <= board_ram:
            return board
    raise HarnessError(
        f"firmware needs {flash} B flash and {ram} + {STACK_RESERVE} B RAM: no board is that big"
    )


def build_auto(
    model_dir: Path,
    name: str,
    inputs: Sequence[Sequence[bytes]],
    opt: str = "-Os",
    workdir: Path | None = None,
    *,
    crt_sources: Sequence[Path] | None = None,
    extra_cflags: Sequence[str] = (),
    jobs: int | None = None,
) -> tuple[Path, str]:
    """build() for the smallest board the firmware fits on; returns (elf, board).

    The sizes are the firmware's own, measured rather than predicted: it is linked for the
    largest board first (that link cannot fail for lack of room), and choose_board() gets
    flash = text + data (weights, code, the harness and its baked-in inputs) and RAM =
    data + bss (arena and harness variables); the objects are then relinked for the chosen
    board. Sizes do not depend on the board, only addresses do.
    """
    objects = compile_sources(
        model_dir,
        name,
        inputs,
        opt,
        workdir,
        crt_sources=crt_sources,
        extra_cflags=extra_cflags,
        jobs=jobs,
    )
    largest = BOARD_PREFERENCE[-1]
    elf = link(objects, largest)
    sizes = size(elf)
    board = choose_board(sizes["flash"], sizes["ram"])
    if board != largest:
        elf = link(objects, board)
    return elf, board


_INFO_RE = re.compile(
    r"^info model=(?P<model>\S*) arena=(?P<arena>\d+) inputs=\d+ outputs=\d+ "
    r"sets=(?P<sets>\d+) stack_window=(?P<window>\d+)$"
)
_OUT_RE = re.compile(r"^out (?P<set>\d+) (?P<index>\d+) (?P<hex>[0-9a-f]*)$")
_RET_RE = re.compile(
    r"^ret (?P<set>\d+) rc=(?P<rc>-?\d+) ticks=(?P<ticks>\d+) stack=(?P<stack>\d+)$"
)
_PROF_RE = re.compile(r"^prof (?P<set>\d+) (?P<index>\d+) (?P<op>\S+) ticks=(?P<ticks>\d+)$")
_PROF_OVERHEAD_RE = re.compile(r"^prof_overhead ticks=(?P<ticks>\d+)$")


def _parse(log: str, elf: Path, board: str, exit_status: int, wall: float) -> RunResult:
    info = None
    outputs: dict[int, dict[int, bytes]] = {}
    rets: dict[int, tuple[int, int, int]] = {}
    profile: dict[int, list[OpTicks]] = {}
    overhead: int | None = None
    for line in log.splitlines():
        if m := _OUT_RE.match(line):
            outputs.setdefault(int(m["set"]), {})[int(m["index"])] = bytes.fromhex(m["hex"])
        elif m := _RET_RE.match(line):
            rets[int(m["set"])] = (int(m["rc"]), int(m["ticks"]), int(m["stack"]))
        elif m := _INFO_RE.match(line):
            info = m
        elif m := _PROF_RE.match(line):
            profile.setdefault(int(m["set"]), []).append(
                OpTicks(int(m["index"]), m["op"], int(m["ticks"]))
            )
        elif m := _PROF_OVERHEAD_RE.match(line):
            overhead = int(m["ticks"])
    if info is None:
        raise ValueError("no 'info' line")
    sets = int(info["sets"])
    if sorted(rets) != list(range(sets)):
        raise ValueError(f"expected 'ret' lines for {sets} sets, got {sorted(rets)}")
    per_set = [outputs.get(s, {}) for s in range(sets)]
    return RunResult(
        board=board,
        elf=elf,
        model=info["model"],
        arena_size=int(info["arena"]),
        outputs=[[outs[i] for i in sorted(outs)] for outs in per_set],
        return_codes=[rets[s][0] for s in range(sets)],
        ticks=[rets[s][1] for s in range(sets)],
        stack=[rets[s][2] for s in range(sets)],
        stack_window=int(info["window"]),
        exit_status=exit_status,
        log=log,
        wall_seconds=wall,
        profile=[profile.get(s, []) for s in range(sets)] if profile else [],
        profile_overhead=overhead,
    )


def run(
    elf: Path,
    board: str = "lm3s6965evb",
    timeout: float = 60.0,
    *,
    check: bool = True,
    qemu_args: Sequence[str] = (),
) -> RunResult:
    """Run firmware from build() under qemu and parse what it printed.

    qemu_args go on qemu's command line before the kernel (the benchmark's -plugin).

    Raises RunTimeoutError (after killing qemu) past `timeout` seconds, and RunError when qemu
    fails, the firmware faults or rejects its inputs, or, with check=True, an invoke returns
    non-zero. With check=False a non-zero return code is left to the caller in return_codes.
    """
    _require_tools()
    board = _board(board)
    with tempfile.TemporaryDirectory(prefix="tinyaot-m3-run-") as tmp:
        # Semihosting output goes to its own file: on stderr it would mix with qemu's warnings
        # (lm3s6965evb prints "Timer with period zero, disabling").
        semihosting_log = Path(tmp) / "semihosting.txt"
        command = [
            QEMU,
            "-M",
            board,
            "-nographic",
            "-chardev",
            f"file,id=semihosting,path={semihosting_log}",
            "-semihosting-config",
            "enable=on,target=native,chardev=semihosting",
            "-icount",
            QEMU_ICOUNT,
            *qemu_args,
            "-kernel",
            str(elf),
        ]
        start = time.monotonic()
        try:
            # subprocess.run kills qemu itself when the timeout expires.
            proc = subprocess.run(
                command,
                check=False,
                capture_output=True,
                text=True,
                stdin=subprocess.DEVNULL,
                timeout=timeout,
            )
        except subprocess.TimeoutExpired as exc:
            log = semihosting_log.read_text(errors="replace") if semihosting_log.exists() else ""
            raise RunTimeoutError(
                f"qemu killed after {timeout} s", command, None, log + _text(exc.stderr)
            ) from None
        wall = time.monotonic() - start
        log = semihosting_log.read_text(errors="replace") if semihosting_log.exists() else ""

    full_log = log + (
        f"\n--- qemu stdout/stderr\n{proc.stdout}{proc.stderr}"
        if proc.stdout or proc.stderr
        else ""
    )
    status = proc.returncode
    if status not in (EXIT_OK, EXIT_INVOKE_FAILED):
        meaning = _EXIT_MEANING.get(status, "qemu failed")
        raise RunError(f"firmware exit status {status}: {meaning}", command, status, full_log)
    try:
        result = _parse(log, Path(elf), board, status, wall)
    except ValueError as exc:
        raise RunError(f"unparseable firmware output: {exc}", command, status, full_log) from None
    if "done" not in log.splitlines():
        raise RunError("firmware did not finish ('done' missing)", command, status, full_log)
    if check and not result.ok:
        failed = [s for s, rc in enumerate(result.return_codes) if rc != 0]
        raise RunError(f"invoke failed for input sets {failed}", command, status, full_log)
    return result


def _text(data: str | bytes | None) -> str:
    if data is None:
        return ""
    return data.decode(errors="replace") if isinstance(data, bytes) else data


def build_and_run(
    model_dir: Path,
    name: str,
    inputs: Sequence[Sequence[bytes]],
    board: str = "lm3s6965evb",
    opt: str = "-Os",
    workdir: Path | None = None,
    timeout: float = 60.0,
    *,
    check: bool = True,
    crt_sources: Sequence[Path] | None = None,
    extra_cflags: Sequence[str] = (),
    jobs: int | None = None,
) -> RunResult:
    """build() then run(): the one call a test needs for a model and its input sets.

    board="auto" builds with build_auto(); RunResult.board says which board it chose.
    """
    if board == "auto":
        elf, board = build_auto(
            model_dir,
            name,
            inputs,
            opt,
            workdir,
            crt_sources=crt_sources,
            extra_cflags=extra_cflags,
            jobs=jobs,
        )
    else:
        elf = build(
            model_dir,
            name,
            inputs,
            board,
            opt,
            workdir,
            crt_sources=crt_sources,
            extra_cflags=extra_cflags,
            jobs=jobs,
        )
    return run(elf, board, timeout, check=check)


def symbols(elf: Path) -> list[Symbol]:
    """Every symbol with a size in the ELF, so callers can attribute flash as they like."""
    _require_tools()
    command = [NM, "--print-size", "--size-sort", str(elf)]
    proc = subprocess.run(
        command, check=False, capture_output=True, text=True, stdin=subprocess.DEVNULL
    )
    if proc.returncode != 0:
        raise HarnessError(f"{' '.join(command)} failed:\n{proc.stderr}")
    result = []
    for line in proc.stdout.splitlines():
        parts = line.split()
        if len(parts) == 4:
            result.append(Symbol(name=parts[3], kind=parts[2], size=int(parts[1], 16)))
    return result


def is_harness_symbol(name: str) -> bool:
    """Symbols that belong to this harness (main.c, startup.c, inputs.c), not to the model."""
    return name.startswith("harness_")


def default_is_weight(name: str) -> bool:
    """Default weights predicate: any read-only data symbol that is not the harness's.

    That also counts the runtime's tables and the model's tensor descriptions, which are small
    next to the weights; pass a stricter predicate to size() once the generator's naming of
    weight arrays is settled.
    """
    return not is_harness_symbol(name)


def size(elf: Path, is_weight: Callable[[str], bool] | None = None) -> dict[str, int]:
    """Flash and RAM use of the firmware, with flash split into code and weights.

    Keys: text, data, bss (arm-none-eabi-size); flash = text + data; ram = data + bss (the
    stack comes on top, see RunResult.stack); code = function symbols; const = read-only data
    symbols; weights = those const symbols for which is_weight(name) is true (default:
    default_is_weight); inputs = the harness's baked-in input sets, part of text but not of
    the model; other = text - code - const (string literals, unwind tables, padding).
    """
    _require_tools()
    command = [SIZE, "--format=berkeley", str(elf)]
    proc = subprocess.run(
        command, check=False, capture_output=True, text=True, stdin=subprocess.DEVNULL
    )
    if proc.returncode != 0:
        raise HarnessError(f"{' '.join(command)} failed:\n{proc.stderr}")
    text, data, bss = (int(v) for v in proc.stdout.splitlines()[1].split()[:3])
    predicate = is_weight or default_is_weight
    syms = symbols(elf)
    code = sum(s.size for s in syms if s.kind in "tT")
    const_syms = [s for s in syms if s.kind in "rR"]
    const = sum(s.size for s in const_syms)
    return {
        "text": text,
        "data": data,
        "bss": bss,
        "flash": text + data,
        "ram": data + bss,
        "code": code,
        "const": const,
        "weights": sum(s.size for s in const_syms if predicate(s.name)),
        "inputs": sum(s.size for s in const_syms if s.name.startswith("harness_in")),
        "other": text - code - const,
    }


# Output sections that occupy flash (.data for its load image); the linker scripts define them.
_FLASH_SECTIONS = frozenset(
    {".isr_vector", ".text", ".rodata", ".ARM.extab", ".ARM.exidx", ".init_array", ".data"}
)
_HEX = r"0x[0-9a-fA-F]+"
_MAP_OUTPUT_RE = re.compile(rf"^(?P<name>[^\s*]\S*)(?:\s+{_HEX}\s+{_HEX}.*)?$")
_MAP_INPUT_RE = re.compile(
    rf"^ (?P<name>[^\s(]+)\s+{_HEX}\s+(?P<size>{_HEX})(?:\s+(?P<file>\S.*))?$"
)
_MAP_INPUT_NAME_RE = re.compile(r"^ (?P<name>\.\S+)$")
_MAP_INPUT_REST_RE = re.compile(rf"^\s+{_HEX}\s+(?P<size>{_HEX})\s+(?P<file>[^\s(]\S*.*)$")


class MapSection(NamedTuple):
    """One input section the link kept, from the map file."""

    output: str  # the output section it went to, e.g. .rodata
    name: str  # the input section, e.g. .rodata.kws_w3, or *fill* for padding
    size: int
    file: str  # object path, "lib.a(member.o)", or "" for padding


def map_sections(map_path: Path) -> list[MapSection]:
    """The kept input sections of a GNU ld map file, in address order.

    Input sections are listed as " <name> <address> <size> <file>", or with the name alone on
    its line when it is long and the rest on the next one; lines with one address are symbols
    or assignments and are skipped.
    """
    text = Path(map_path).read_text()
    body = text.split("Linker script and memory map", 1)[-1]
    body = body.split("Cross Reference Table", 1)[0]
    sections: list[MapSection] = []
    output = ""
    pending: str | None = None
    for line in body.splitlines():
        if pending is not None:
            rest = _MAP_INPUT_REST_RE.match(line)
            if rest:
                sections.append(
                    MapSection(output, pending, int(rest["size"], 16), rest["file"].strip())
                )
            pending = None
            if rest:
                continue
        if not line.strip():
            continue
        if not line[0].isspace():
            m = _MAP_OUTPUT_RE.match(line)
            output = m["name"] if m else ""
        elif m := _MAP_INPUT_RE.match(line):
            sections.append(
                MapSection(output, m["name"], int(m["size"], 16), (m["file"] or "").strip())
            )
        elif m := _MAP_INPUT_NAME_RE.match(line):
            pending = m["name"]
    return sections


def cross_references(map_path: Path) -> dict[str, list[str]]:
    """Symbol -> files from the map's --cref table: the defining file first, then the users."""
    text = Path(map_path).read_text()
    if "Cross Reference Table" not in text:
        raise HarnessError(f"{map_path} has no cross reference table (link with -Wl,--cref)")
    table = text.split("Cross Reference Table", 1)[1]
    refs: dict[str, list[str]] = {}
    symbol: str | None = None
    for line in table.splitlines():
        if not line.strip() or line.startswith("Symbol "):
            continue
        if not line[0].isspace():
            parts = line.split(None, 1)
            symbol = parts[0]
            refs[symbol] = [parts[1].strip()] if len(parts) > 1 else []
        elif symbol is not None:
            refs[symbol].append(line.strip())
    return refs


def _relocated_symbols(obj: str, section_names: set[str]) -> set[str]:
    """Symbols referenced by relocations in the given sections of an object file."""
    proc = subprocess.run(
        [READELF, "-rW", obj], check=False, capture_output=True, text=True, stdin=subprocess.DEVNULL
    )
    if proc.returncode != 0:
        raise HarnessError(f"{READELF} -rW {obj} failed:\n{proc.stderr}")
    result: set[str] = set()
    wanted = False
    for line in proc.stdout.splitlines():
        if line.startswith("Relocation section '"):
            relocated = line.split("'")[1]
            # .rel.text.foo relocates .text.foo (ARM uses REL; RELA for completeness).
            target = relocated.removeprefix(".rela").removeprefix(".rel")
            wanted = target in section_names
        elif wanted:
            parts = line.split()
            if len(parts) >= 5 and parts[2].startswith("R_ARM_"):
                result.add(parts[4])
    return result


def _is_library(file: str) -> bool:
    return ".a(" in file


def _object_kind(file: str) -> str:
    base = os.path.basename(file)
    if _is_library(file):
        return "library"
    if base.startswith(MODEL_OBJECT_PREFIX):
        return "model"
    if base.startswith(CRT_OBJECT_PREFIX):
        return "crt"
    return "harness"


def flash_split(elf: Path, name: str) -> dict[str, int]:
    """Attribute every byte of the firmware's flash, from the link map next to the ELF.

    Keys, in bytes:
      model_weights    the model's constant tensors the kernels read as they are: <name>_w<N>
      generated_tables arrays the compiler computed: <name>_c<N> (weights rearranged for the
                       fast kernels, per-channel multipliers and shifts, lookup tables)
      weights          model_weights + generated_tables
      generated_code   .text of the generated model (<name>.c)
      runtime_code     .text of the runtime (crt/src) kept by the link
      library_code     libgcc/newlib members the model and runtime call (soft-float, memcpy,
                       64-bit division), followed transitively; those only the harness calls
                       are not counted
      generated_const  the model's other read-only data: params structs (<name>_op<N>), the
                       <name>_info descriptor with its tensor infos and shapes, I/O offsets,
                       name strings
      runtime_const    read-only data of the runtime (lookup tables)
      code             the five above: what a firmware pays in flash besides the weights
      harness          everything else (main.c, startup.c, the baked-in inputs, the vector
                       table, alignment padding)
      flash            text + data of the ELF, the sum of all the above
    """
    map_path = Path(elf).with_suffix(".map")
    sections = [s for s in map_sections(map_path) if s.output in _FLASH_SECTIONS and s.size]
    weight_re = re.compile(rf"^\.rodata\.{re.escape(name)}_([wc])\d+$")

    # Library members reached from the model's and runtime's kept sections only: an object
    # may reference a helper from a function the link discarded.
    kept: dict[str, set[str]] = {}
    for s in sections:
        if _object_kind(s.file) in ("model", "crt"):
            kept.setdefault(s.file, set()).add(s.name)
    refs = cross_references(map_path)
    uses: dict[str, set[str]] = {}
    for symbol, files in refs.items():
        for user in files[1:]:
            uses.setdefault(user, set()).add(symbol)
    todo = [sym for obj, names in kept.items() for sym in _relocated_symbols(obj, names)]
    members: set[str] = set()
    while todo:
        files = refs.get(todo.pop())
        if files and _is_library(files[0]) and files[0] not in members:
            members.add(files[0])
            todo.extend(uses.get(files[0], ()))

    code_parts = (
        "generated_code",
        "runtime_code",
        "library_code",
        "generated_const",
        "runtime_const",
    )
    split = dict.fromkeys(("model_weights", "generated_tables", *code_parts), 0)
    for s in sections:
        kind = _object_kind(s.file)
        is_text = s.output == ".text"
        if kind == "model":
            weight = weight_re.match(s.name)
            if weight:
                split["model_weights" if weight[1] == "w" else "generated_tables"] += s.size
            else:
                split["generated_code" if is_text else "generated_const"] += s.size
        elif kind == "crt":
            split["runtime_code" if is_text else "runtime_const"] += s.size
        elif kind == "library" and s.file in members:
            split["library_code"] += s.size
    split["weights"] = split["model_weights"] + split["generated_tables"]
    split["code"] = sum(split[part] for part in code_parts)
    flash = size(elf)["flash"]
    split["harness"] = flash - split["code"] - split["weights"]
    split["flash"] = flash
    return split
