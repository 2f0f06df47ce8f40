"""The Zephyr module: twister over the samples and tests/zephyr, and builds that must fail.

Zephyr trees: ZEPHYR_BASE, and the conventional west workspaces ~/zephyrproject (3.7 LTS) and
~/zephyrproject-4 (4.x), each with its tree in zephyr/. Twister runs on every tree found, on
each target of TARGETS whose board the tree has and whose toolchain and emulator are here; the
targets left out are listed with the skips, with the reason. The failing-build checks run on
every tree too. A virtual environment at <workspace>/.venv is used for west and twister
when the caller has none active. Without ZEPHYR_TOOLCHAIN_VARIANT, the Arm targets build with
an arm-none-eabi-gcc on PATH (gnuarmemb), qemu_riscv32 with Debian's riscv64-unknown-elf-gcc
(cross-compile) and native_sim with the host's gcc; with it, every target builds with the
caller's toolchain. Without a Zephyr tree these tests are skipped with the reason; with one,
they fail when anything else they need is missing, so that a broken setup cannot pass as a skip.

The check that the committed expected data are current needs no Zephyr and always runs.
"""

from __future__ import annotations

import filecmp
import json
import os
import re
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml
from reference import MODELS

REPO = Path(__file__).resolve().parents[1]
BUILD_ERRORS = REPO / "tests" / "zephyr" / "build_errors"
# The conventional west workspaces, in the order they are tried: Zephyr 3.7 LTS and 4.x.
WORKSPACES = ("zephyrproject", "zephyrproject-4")
# A full run on one tree is about 40 builds; twister's own timeouts cover each run on the
# target.
TWISTER_TIMEOUT = 40 * 60


@dataclass(frozen=True)
class Target:
    core: str
    # The board's names, newest first (Zephyr 4.0 renamed mps3/an547): the tree's is used.
    boards: tuple[str, ...]
    # "arm", "riscv" or "host": the toolchain that builds it without ZEPHYR_TOOLCHAIN_VARIANT.
    toolchain: str
    emulator: str | None
    # The simulator twister runs it on: the board's file must name it, or twister only builds.
    simulator: str
    # A module the board needs besides CMSIS, in the workspace.
    module: str | None = None


TARGETS = (
    Target("Cortex-M3", ("qemu_cortex_m3",), "arm", "qemu-system-arm", "qemu"),
    Target("Cortex-M3, 4 MB", ("mps2/an385",), "arm", "qemu-system-arm", "qemu"),
    Target(
        "Cortex-M0", ("qemu_cortex_m0",), "arm", "qemu-system-arm", "qemu", "modules/hal/nordic"
    ),
    Target("Cortex-M4F", ("mps2/an386",), "arm", "qemu-system-arm", "qemu"),
    Target("Cortex-M33", ("mps2/an521/cpu0",), "arm", "qemu-system-arm", "qemu"),
    Target(
        "Cortex-M55", ("mps3/corstone300/an547", "mps3/an547"), "arm", "qemu-system-arm", "qemu"
    ),
    Target("RISC-V 32-bit", ("qemu_riscv32",), "riscv", "qemu-system-riscv32", "qemu"),
    Target("x86-64", ("native_sim/native/64",), "host", None, "native"),
)
COMPILERS = {"arm": "arm-none-eabi-gcc", "riscv": "riscv64-unknown-elf-gcc", "host": "gcc"}


@dataclass
class Zephyr:
    base: Path
    env: dict[str, str]
    python: str

    @property
    def version(self) -> str:
        fields = dict(
            line.replace(" ", "").split("=", 1)
            for line in (self.base / "VERSION").read_text().splitlines()
            if "=" in line
        )
        return "{VERSION_MAJOR}.{VERSION_MINOR}.{PATCHLEVEL}".format(**fields)


@dataclass
class NoZephyr:
    """Why the Zephyr tests cannot run; tree is the Zephyr tree there is, if any."""

    reason: str
    tree: Path | None


def zephyr_trees() -> list[Path]:
    """ZEPHYR_BASE if set, then each conventional workspace's tree that exists."""
    given = os.environ.get("ZEPHYR_BASE")
    trees = [Path(given)] if given else []
    for tree in (Path.home() / w / "zephyr" for w in WORKSPACES):
        if tree.is_dir() and all(tree.resolve() != t.resolve() for t in trees):
            trees.append(tree)
    return trees


def find_zephyr(base: Path | None = None) -> Zephyr | NoZephyr:
    """The Zephyr tree (the first of zephyr_trees() unless given) and the environment to
    build in, or why there is none."""
    env = dict(os.environ)
    if base is None:
        trees = zephyr_trees()
        if not trees:
            looked = ", ".join(str(Path.home() / w / "zephyr") for w in WORKSPACES)
            return NoZephyr(
                f"Zephyr not found: set ZEPHYR_BASE or create ~/zephyrproject "
                f"(west init + west update, see README); looked in {looked}",
                None,
            )
        base = trees[0]

    def found(reason: str) -> NoZephyr:
        return NoZephyr(reason, base)

    if not (base / "VERSION").is_file() or not (base / "scripts" / "twister").is_file():
        return found("it has no VERSION or scripts/twister: not a Zephyr tree")
    env["ZEPHYR_BASE"] = str(base)
    python = sys.executable
    venv = base.parent / ".venv"
    if not os.environ.get("VIRTUAL_ENV") and (venv / "bin" / "python3").is_file():
        env["VIRTUAL_ENV"] = str(venv)
        env["PATH"] = f"{venv / 'bin'}{os.pathsep}{env.get('PATH', '')}"
        python = str(venv / "bin" / "python3")
    if "ZEPHYR_TOOLCHAIN_VARIANT" not in env and "ZEPHYR_SDK_INSTALL_DIR" not in env:
        gcc = shutil.which("arm-none-eabi-gcc", path=env["PATH"])
        if not gcc:
            return found(
                "no toolchain: set ZEPHYR_TOOLCHAIN_VARIANT or put arm-none-eabi-gcc on PATH"
            )
        env["ZEPHYR_TOOLCHAIN_VARIANT"] = "gnuarmemb"
        env["GNUARMEMB_TOOLCHAIN_PATH"] = str(Path(gcc).parent.parent)
    if not shutil.which("west", path=env["PATH"]):
        return found("west not found on PATH (pip install west, or create <workspace>/.venv)")
    if not shutil.which("qemu-system-arm", path=env["PATH"]):
        return found("qemu-system-arm not found: twister cannot run the targets")
    env.pop("PYTHONPATH", None)
    return Zephyr(base, env, python)


FOUND = find_zephyr()


def west_build(zephyr: Zephyr, build_dir: Path, *cmake_args: str) -> subprocess.CompletedProcess:
    """`west build` of tests/zephyr/build_errors for qemu_cortex_m3, output and errors merged."""
    cmd = ["west", "build", "-b", "qemu_cortex_m3", str(BUILD_ERRORS), "-d", str(build_dir)]
    cmd += ["--", f"-DZEPHYR_EXTRA_MODULES={REPO}", *cmake_args]
    return subprocess.run(
        cmd,
        cwd=build_dir.parent,
        env=zephyr.env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        timeout=900,
    )


def compiler_error(model: Path, tmp_path: Path, *options: str) -> str:
    """What the compiler itself says about this model: one `error: ...` line."""
    env = dict(os.environ, PYTHONPATH=str(REPO / "scripts"), PYTHONDONTWRITEBYTECODE="1")
    cmd = [sys.executable, "-m", "tinyaot", "compile", str(model), "--name", "model", *options]
    done = subprocess.run(
        [*cmd, "--output-dir", str(tmp_path / "direct")],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=600,
    )
    assert done.returncode == 2, done.stdout + done.stderr
    return done.stderr.strip()


def model_path(model: Path) -> str:
    return f'-DCONFIG_TINYAOT_MODEL_PATH="{model}"'


# ---------------------------------------------------------------------------------------------
# Always: the committed reference data are what the script produces now.
# ---------------------------------------------------------------------------------------------


def test_expected_data_are_current(tmp_path):
    sys.path.insert(0, str(REPO / "tests" / "zephyr"))
    try:
        import gen_expected
    finally:
        sys.path.pop(0)
    assert gen_expected.main(["--root", str(tmp_path)]) == 0
    stale = [
        str(rel)
        for rel in gen_expected.generate()
        if not (REPO / rel).is_file() or (REPO / rel).read_bytes() != (tmp_path / rel).read_bytes()
    ]
    assert not stale, f"stale, run tests/zephyr/gen_expected.py: {stale}"


def test_sample_models_are_the_shared_ones():
    copies = {
        "hello_model/model/hello_world_int8.tflite": "tflm_hello_world_int8.tflite",
        "kws/model/kws.tflite": "mlperf_tiny_kws_dscnn_int8.tflite",
        "shared_arena/model/kws.tflite": "mlperf_tiny_kws_dscnn_int8.tflite",
        "shared_arena/model/micro_speech.tflite": "tflm_micro_speech_int8.tflite",
        "streaming/model/vad.tflite": "mww_vad_int8.tflite",
    }
    for copy, original in copies.items():
        assert filecmp.cmp(REPO / "samples" / copy, MODELS / original, shallow=False), copy


# Twister alternative configurations (--alt-config-root) of the samples that print their cycles
# per inference: each sample's sample.yaml plus harness_config.record, whose regex Zephyr
# 3.7's twister schema requires to be a string and 4.x's a list. Either refuses the other form
# and stops the whole run, so sample.yaml itself cannot carry it.
RECORD_ROOTS = REPO / "zephyr" / "twister"


def cycle_samples() -> dict[str, list[str]]:
    """The samples whose console output has their cycles per inference, with their scenarios."""
    found = {}
    for spec in sorted((REPO / "samples").glob("*/sample.yaml")):
        data = yaml.safe_load(spec.read_text())
        if any("[0-9]+ cycles" in line for line in data["common"]["harness_config"]["regex"]):
            found[spec.parent.name] = list(data["tests"])
    return found


def record_root(base: Path) -> Path:
    """The alternative configurations in the form this Zephyr's twister schema takes."""
    schema = yaml.safe_load((base / "scripts/schemas/twister/testsuite-schema.yaml").read_text())
    harness = schema["schema;scenario-schema"]["mapping"]["harness_config"]["mapping"]
    return RECORD_ROOTS / f"record-{harness['record']['mapping']['regex']['type']}"


def test_cycle_records_are_the_samples_plus_record():
    samples = list(cycle_samples())
    assert samples == ["kws"]
    recorded = {}
    for form, kind in (("str", str), ("seq", list)):
        root = RECORD_ROOTS / f"record-{form}"
        assert sorted(p.parent.name for p in root.glob("*/sample.yaml")) == samples
        for sample in samples:
            alternative = yaml.safe_load((root / sample / "sample.yaml").read_text())
            regex = alternative["common"]["harness_config"].pop("record")["regex"]
            original = yaml.safe_load((REPO / "samples" / sample / "sample.yaml").read_text())
            assert alternative == original
            assert isinstance(regex, kind)
            recorded.setdefault(sample, set()).update([regex] if kind is str else regex)
    for sample, regexes in recorded.items():
        assert len(regexes) == 1, f"{sample}: the forms record differently: {regexes}"
        assert "cycles" in re.compile(regexes.pop()).groupindex, sample


def test_no_zephyr_tree_skips(tmp_path, monkeypatch):
    monkeypatch.delenv("ZEPHYR_BASE", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    found = find_zephyr()
    assert isinstance(found, NoZephyr) and found.tree is None
    assert "Zephyr not found" in found.reason


def test_a_zephyr_tree_with_something_missing_fails(tmp_path, monkeypatch):
    """Such a tree is no reason to skip: the zephyr fixture fails with this reason."""
    monkeypatch.delenv("ZEPHYR_BASE", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    tree = tmp_path / "zephyrproject" / "zephyr"
    tree.mkdir(parents=True)
    assert find_zephyr() == NoZephyr(
        "it has no VERSION or scripts/twister: not a Zephyr tree", tree
    )
    (tree / "VERSION").touch()
    (tree / "scripts").mkdir()
    (tree / "scripts" / "twister").touch()
    monkeypatch.delenv("ZEPHYR_TOOLCHAIN_VARIANT", raising=False)
    monkeypatch.delenv("ZEPHYR_SDK_INSTALL_DIR", raising=False)
    monkeypatch.delenv("VIRTUAL_ENV", raising=False)
    monkeypatch.setenv("PATH", str(tmp_path))
    found = find_zephyr()
    assert isinstance(found, NoZephyr) and found.tree == tree
    assert found.reason.startswith("no toolchain")
    monkeypatch.setenv("ZEPHYR_BASE", str(tmp_path / "elsewhere"))
    assert find_zephyr().tree == tmp_path / "elsewhere"


# ---------------------------------------------------------------------------------------------
# With Zephyr.
# ---------------------------------------------------------------------------------------------


def expected_scenarios(boards: dict[str, tuple[int, int]]) -> set[tuple[str, str]]:
    """(scenario, board) pairs that must pass, of these boards (name: RAM and flash in KB):
    every sample and model on the boards its sample.yaml or testcase.yaml allows, or on every
    board it does not exclude and whose RAM and flash are enough."""
    want = set()
    for spec in sorted((REPO / "samples").glob("*/sample.yaml")) + sorted(
        (REPO / "tests" / "zephyr").glob("*/testcase.yaml")
    ):
        data = yaml.safe_load(spec.read_text())
        common = data.get("common", {})
        for name, scenario in data["tests"].items():
            scenario = {**common, **(scenario or {})}
            for board, (ram, flash) in boards.items():
                if (
                    board in scenario.get("platform_allow", [board])
                    and board not in scenario.get("platform_exclude", [])
                    and ram >= scenario.get("min_ram", 0)
                    and flash >= scenario.get("min_flash", 0)
                ):
                    want.add((name, board))
    return want


def tree_boards(base: Path) -> dict[str, tuple[int, int]]:
    """The board targets a Zephyr tree describes (the identifiers of its twister files), with
    their RAM and flash in KB (twister's defaults where a file names none)."""
    return {name: (ram, flash) for name, (ram, flash, _) in board_files(base).items()}


def board_files(base: Path) -> dict[str, tuple[int, int, set[str]]]:
    """Each board's RAM and flash in KB and the simulators twister may run it on."""
    boards = {}
    for spec in (base / "boards").rglob("*.yaml"):
        data = yaml.safe_load(spec.read_text(errors="replace"))
        if isinstance(data, dict) and "identifier" in data:
            simulation = data.get("simulation") or []
            # 3.7 names one simulator; 4.x lists them, each with a name.
            if isinstance(simulation, str):
                simulation = [simulation]
            sims = {s["name"] if isinstance(s, dict) else s for s in simulation}
            boards[data["identifier"]] = (data.get("ram", 128), data.get("flash", 512), sims)
    return boards


RISCV_GCC = """#!/bin/sh
# Debian's gcc matches a multilib by the literal -march, and Zephyr names zicsr and zifencei
# in it: without them the rv32 libgcc is found instead of the rv64 default.
for a; do
  if [ "$a" = --print-libgcc-file-name ]; then
    exec {gcc} $(printf '%s\\n' "$@" | sed 's/^\\(-march=[^_]*\\)_.*/\\1/')
  fi
done
exec {gcc} "$@"
"""


def riscv_cross_compile(gcc: str, folder: Path) -> str:
    """A CROSS_COMPILE prefix for Debian's riscv64-unknown-elf toolchain: its tools, and a gcc
    that finds the rv32 libgcc."""
    folder.mkdir(parents=True, exist_ok=True)
    tools = Path(gcc).parent
    for tool in tools.glob("riscv64-unknown-elf-*"):
        (folder / tool.name).symlink_to(tool)
    wrapper = folder / "riscv64-unknown-elf-gcc"
    wrapper.unlink()
    wrapper.write_text(RISCV_GCC.format(gcc=gcc))
    wrapper.chmod(0o755)
    return str(folder / "riscv64-unknown-elf-")


@dataclass
class TwisterRun:
    """One twister invocation: the boards that one toolchain builds."""

    toolchain: str
    boards: list[str]
    env: dict[str, str]
    options: list[str]


def twister_runs(zephyr: Zephyr, scratch: Path) -> tuple[list[TwisterRun], list[str]]:
    """The twister invocations for this tree, and the targets left out with the reason."""
    have = board_files(zephyr.base)
    path = zephyr.env["PATH"]
    caller_toolchain = bool(
        {"ZEPHYR_TOOLCHAIN_VARIANT", "ZEPHYR_SDK_INSTALL_DIR"} & set(os.environ)
    )
    runs: dict[str, TwisterRun] = {}
    skipped = []
    for target in TARGETS:
        board = next((b for b in target.boards if b in have), None)
        group = "caller" if caller_toolchain else target.toolchain
        compiler = None if caller_toolchain else shutil.which(COMPILERS[group], path=path)
        why = None
        if board is None:
            why = f"Zephyr {zephyr.version} has no {' or '.join(target.boards)}"
        elif target.simulator not in have[board][2]:
            sims = " or ".join(sorted(have[board][2])) or "none"
            why = f"{board} runs on no {target.simulator} in this Zephyr (simulators: {sims})"
        elif target.module and not (zephyr.base.parent / target.module).is_dir():
            why = f"{board} needs the module at <workspace>/{target.module}"
        elif not caller_toolchain and not compiler:
            why = f"{board} needs {COMPILERS[group]} on PATH"
        elif target.emulator and not shutil.which(target.emulator, path=path):
            why = f"{board} needs {target.emulator} on PATH"
        if why:
            skipped.append(f"twister, Zephyr {zephyr.version}, {target.core}: {why}")
            continue
        if group not in runs:
            env = dict(zephyr.env)
            options = []
            if group == "riscv":
                env["ZEPHYR_TOOLCHAIN_VARIANT"] = "cross-compile"
                env["CROSS_COMPILE"] = riscv_cross_compile(compiler, scratch / "riscv-gcc")
                # Zephyr's board file names only its SDK for qemu_riscv32. The image runs
                # from RAM, and binutils 2.39+ warns of its RWX segment, which twister's
                # warnings-as-errors would make fatal.
                options += ["--force-toolchain", "-x=EXTRA_LDFLAGS=-Wl,--no-warn-rwx-segments"]
            elif group == "host":
                env["ZEPHYR_TOOLCHAIN_VARIANT"] = "host"
            runs[group] = TwisterRun(group, [], env, options)
        runs[group].boards.append(board)
    return list(runs.values()), skipped


def test_targets_left_out_say_why(tmp_path, monkeypatch):
    base = tmp_path / "workspace" / "zephyr"
    (base / "boards" / "qemu").mkdir(parents=True)
    for board in ("qemu_cortex_m3", "qemu_cortex_m0", "qemu_riscv32"):
        spec = f"identifier: {board}\nsimulation: qemu\n"
        (base / "boards" / "qemu" / f"{board}.yaml").write_text(spec)
    fvp = "identifier: mps2/an386\nsimulation:\n  - name: armfvp\n"
    (base / "boards" / "an386.yaml").write_text(fvp)
    (base / "VERSION").write_text("VERSION_MAJOR = 4\nVERSION_MINOR = 1\nPATCHLEVEL = 99\n")
    tools = tmp_path / "bin"
    tools.mkdir()
    for tool in ("arm-none-eabi-gcc", "qemu-system-arm", "qemu-system-riscv32"):
        (tools / tool).touch(mode=0o755)
    monkeypatch.delenv("ZEPHYR_TOOLCHAIN_VARIANT", raising=False)
    monkeypatch.delenv("ZEPHYR_SDK_INSTALL_DIR", raising=False)
    zephyr = Zephyr(base, {"PATH": str(tools)}, sys.executable)
    runs, skipped = twister_runs(zephyr, tmp_path / "scratch")
    assert [(r.toolchain, r.boards) for r in runs] == [("arm", ["qemu_cortex_m3"])]
    prefix = "twister, Zephyr 4.1.99, "
    assert skipped == [
        prefix + "Cortex-M3, 4 MB: Zephyr 4.1.99 has no mps2/an385",
        prefix + "Cortex-M0: qemu_cortex_m0 needs the module at <workspace>/modules/hal/nordic",
        prefix + "Cortex-M4F: mps2/an386 runs on no qemu in this Zephyr (simulators: armfvp)",
        prefix + "Cortex-M33: Zephyr 4.1.99 has no mps2/an521/cpu0",
        prefix + "Cortex-M55: Zephyr 4.1.99 has no mps3/corstone300/an547 or mps3/an547",
        prefix + "RISC-V 32-bit: qemu_riscv32 needs riscv64-unknown-elf-gcc on PATH",
        prefix + "x86-64: Zephyr 4.1.99 has no native_sim/native/64",
    ]


@pytest.fixture(params=zephyr_trees() or [None], ids=str)
def zephyr_tree(request) -> Zephyr:
    """Each Zephyr tree there is, set up for building, or a failure saying what is missing."""
    if request.param is None:
        pytest.skip(FOUND.reason)
    found = find_zephyr(request.param)
    if isinstance(found, NoZephyr):
        pytest.fail(f"Zephyr tree {found.tree}, but {found.reason}", pytrace=False)
    return found


MODULE_CHECK = """
import pathlib, sys
sys.path.insert(0, sys.argv[1])
import zephyr_module
print(zephyr_module.process_module(pathlib.Path(sys.argv[2]))["name"])
"""


def test_module_yml_is_valid(zephyr_tree):
    """zephyr/module.yml against the tree's own schema: a key one Zephyr version does not
    know (3.7 rejects 4.x's package-managers) stops every build on it."""
    done = subprocess.run(
        [zephyr_tree.python, "-c", MODULE_CHECK, str(zephyr_tree.base / "scripts"), str(REPO)],
        capture_output=True,
        text=True,
        env=zephyr_tree.env,
        timeout=120,
    )
    assert done.returncode == 0 and done.stdout.split() == ["tinyaot"], done.stdout + done.stderr


@pytest.mark.slow
def test_twister_samples_and_suites(zephyr_tree, tmp_path, note_skip):
    zephyr = zephyr_tree
    runs, skipped = twister_runs(zephyr, tmp_path)
    have = tree_boards(zephyr.base)
    for reason in skipped:
        note_skip(reason)
    print(f"Zephyr {zephyr.version} at {zephyr.base}")
    for run in runs:
        out = tmp_path / f"twister-{run.toolchain}"
        cmd = [zephyr.python, str(zephyr.base / "scripts" / "twister")]
        for board in run.boards:
            cmd += ["-p", board]
        cmd += ["-T", str(REPO / "samples"), "-T", str(REPO / "tests" / "zephyr")]
        cmd += ["--alt-config-root", str(record_root(zephyr.base))]
        cmd += ["-j", "2", "-O", str(out), f"-x=ZEPHYR_EXTRA_MODULES={REPO}", "--inline-logs"]
        started = time.monotonic()
        done = subprocess.run(
            [*cmd, *run.options],
            cwd=tmp_path,
            env=run.env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            timeout=TWISTER_TIMEOUT,
        )
        summary = [line for line in done.stdout.splitlines() if "configurations passed" in line]
        print(
            f"{', '.join(run.boards)} ({run.toolchain}):",
            *summary,
            f"twister took {time.monotonic() - started:.0f} s",
        )
        assert done.returncode == 0, done.stdout[-6000:]

        report = json.loads((out / "twister.json").read_text())
        # A suite twister only built (no simulator for it) reports passed too, but its cases
        # have no status: passed means every case passed.
        status = {
            (s["name"], s["platform"]): s["status"]
            if all(c.get("status") == "passed" for c in s.get("testcases") or [{}])
            else f"{s['status']}, cases {[c.get('status') for c in s['testcases']]}"
            for s in report["testsuites"]
        }
        for s in report["testsuites"]:
            reason = s.get("reason", "?")
            # Scenarios meant for other boards are no news.
            if s["status"] in ("filtered", "skipped") and "platform allow" not in reason:
                note_skip(
                    f"twister, Zephyr {zephyr.version}: {s['name']} on {s['platform']}: {reason}"
                )
        want = expected_scenarios({b: have[b] for b in run.boards})
        for name, board in sorted(want):
            # Twister names a scenario by its folder and its name, a board by its full name.
            got = [v for (n, p), v in status.items() if n.endswith(name) and p.startswith(board)]
            assert got == ["passed"], (
                f"Zephyr {zephyr.version}: {name} on {board}: {got or 'not run'}"
            )
        # Each sample that prints its cycles per inference recorded them once per board.
        printing = {scenario for names in cycle_samples().values() for scenario in names}
        for name, board in sorted(s for s in want if s[0] in printing):
            got = [
                record.get("cycles")
                for s in report["testsuites"]
                if s["name"].endswith(name) and s["platform"].startswith(board)
                for record in s.get("recording") or []
            ]
            assert len(got) == 1 and re.fullmatch(r"[1-9][0-9]*", got[0] or ""), (
                f"Zephyr {zephyr.version}: {name} on {board} recorded cycles {got}"
            )


def test_unsupported_op_stops_the_build(zephyr_tree, tmp_path):
    import tensorflow as tf
    import tfmodels

    # SIGN: TFLite Micro has no kernel for it (tinyaot.tflm_ops), so the compiler never will.
    model = tmp_path / "sign.tflite"
    model.write_bytes(tfmodels.convert(lambda x: tf.math.sign(x), [(1, 8)], False))
    want = compiler_error(model, tmp_path)
    assert re.match(r"error: op 0 \(SIGN\) .* is not supported", want), want

    done = west_build(zephyr_tree, tmp_path / "build", model_path(model))
    assert done.returncode != 0
    assert want in done.stdout.splitlines(), done.stdout[-4000:]
    assert "Traceback" not in done.stdout


def test_arena_budget_stops_the_build(zephyr_tree, tmp_path):
    # No windowed layers, so no search for a patch plan that would fit (test_patch.py covers
    # it), which took KWS 25 s here, twice per tree.
    model = MODELS / "tflm_hello_world_int8.tflite"
    want = compiler_error(model, tmp_path, "--arena-budget", "16")
    assert re.match(
        r"error: model 'model' needs an arena of \d+ bytes, over the budget of 16 ", want
    )

    done = west_build(
        zephyr_tree, tmp_path / "build", model_path(model), "-DCONFIG_TINYAOT_ARENA_BUDGET=16"
    )
    assert done.returncode != 0
    assert want in done.stdout.splitlines(), done.stdout[-4000:]


def test_changed_model_regenerates(zephyr_tree, tmp_path):
    model = tmp_path / "hello.tflite"
    shutil.copyfile(MODELS / "tflm_hello_world_int8.tflite", model)
    build = tmp_path / "build"

    first = west_build(zephyr_tree, build, model_path(model))
    assert first.returncode == 0, first.stdout[-4000:]
    summary = r"^tinyaot: model: arena \d+ B, weights \d+ B, 3 ops, 288 MACs$"
    assert re.search(summary, first.stdout, re.M)
    assert re.search(r"^tinyaot: model: code \d+ B, constants \d+ B", first.stdout, re.M)

    again = west_build(zephyr_tree, build)
    assert again.returncode == 0 and "tinyaot: compiling" not in again.stdout

    time.sleep(0.01)
    model.touch()
    changed = west_build(zephyr_tree, build)
    assert changed.returncode == 0, changed.stdout[-4000:]
    assert "tinyaot: compiling" in changed.stdout and re.search(summary, changed.stdout, re.M)


# ---------------------------------------------------------------------------------------------
# Devicetree memory regions: tests/zephyr/regions, which twister also runs on the target; the
# errors that need no devicetree are in test_cmake.py.
# ---------------------------------------------------------------------------------------------

REGIONS = REPO / "tests" / "zephyr" / "regions"


def map_regions(map_text: str) -> dict[str, tuple[int, int]]:
    """The linker's memory regions (origin, length) from the "Memory Configuration" of a map."""
    table = map_text.split("Memory Configuration", 1)[1].split("Linker script and memory map")[0]
    found = re.findall(r"^(\w+)\s+0x([0-9a-f]+)\s+0x([0-9a-f]+)", table, re.M)
    return {name: (int(origin, 16), int(length, 16)) for name, origin, length in found}


def test_regions_link_map(zephyr_tree, tmp_path):
    """The suite's image as linked: the arena in the region of node blockram (not loaded), the
    generated file's constants in that of node psram, stored in flash and copied at boot."""
    build = tmp_path / "build"
    cmd = ["west", "build", "-b", "mps2/an385", str(REGIONS), "-d", str(build)]
    done = subprocess.run(
        [*cmd, "--", f"-DZEPHYR_EXTRA_MODULES={REPO}"],
        cwd=tmp_path,
        env=zephyr_tree.env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        timeout=900,
    )
    assert done.returncode == 0, done.stdout[-4000:]
    image = build / "zephyr" / "zephyr.elf"
    cache = (build / "CMakeCache.txt").read_text()
    tools = dict(re.findall(r"^CMAKE_(NM|OBJDUMP):FILEPATH=(.+)$", cache, re.M))
    regions = map_regions((build / "zephyr" / "zephyr.map").read_text())
    assert regions["BLOCKRAM"] == (0x01000000, 0x4000) and regions["PSRAM"][0] == 0x21000000

    def inside(region: str, address: int, size: int) -> bool:
        origin, length = regions[region]
        return origin <= address and address + size <= origin + length

    symbols = {}
    nm = subprocess.run([tools["NM"], "-S", str(image)], capture_output=True, text=True)
    for line in nm.stdout.splitlines():
        fields = line.split()
        if len(fields) == 4 and fields[3].startswith("model_"):
            symbols[fields[3]] = (int(fields[0], 16), int(fields[1], 16))
    arena, size = symbols.pop("model_arena")
    assert size > 0 and inside("BLOCKRAM", arena, size), hex(arena)
    constants = {s: v for s, v in symbols.items() if re.fullmatch(r"model_(w|c)\d+|model_info", s)}
    assert len(constants) > 10
    for symbol, (address, size) in constants.items():
        assert inside("PSRAM", address, size), f"{symbol} at {address:#x}"

    # The section holding them is loaded (NOLOAD would leave the weights out of the image) from
    # the flash, where the boot code copies it from.
    headers = subprocess.run([tools["OBJDUMP"], "-h", str(image)], capture_output=True)
    rows = re.findall(
        r"^\s*\d+ (\S+)\s+([0-9a-f]+)\s+([0-9a-f]+)\s+([0-9a-f]+)\s+\S+\s+\S+\n\s+(.*)$",
        headers.stdout.decode(),
        re.M,
    )
    address = constants["model_info"][0]
    holding = [r for r in rows if int(r[2], 16) <= address < int(r[2], 16) + int(r[1], 16)]
    assert len(holding) == 1, rows
    name, size, vma, lma, flags = holding[0]
    assert "LOAD" in flags and inside("FLASH", int(lma, 16), int(size, 16)), holding


REGION_ERRORS = {
    "no_such_label": (
        ['-DCONFIG_TINYAOT_ARENA_REGION="nowhere"'],
        "ARENA_REGION nowhere: the devicetree has no node labelled 'nowhere'",
    ),
    "not_a_region": (
        ['-DCONFIG_TINYAOT_WEIGHTS_REGION="sram0"'],
        "WEIGHTS_REGION sram0: node /memory@20000000 is not a memory region",
    ),
}


@pytest.mark.parametrize("case", REGION_ERRORS)
def test_region_errors_stop_the_build(zephyr_tree, tmp_path, case):
    options, message = REGION_ERRORS[case]
    model = MODELS / "tflm_hello_world_int8.tflite"
    done = west_build(zephyr_tree, tmp_path / "build", model_path(model), *options)
    assert done.returncode != 0
    said = " ".join(done.stdout.split())
    assert f"tinyaot_add_model(model): {message}" in said, done.stdout[-4000:]
