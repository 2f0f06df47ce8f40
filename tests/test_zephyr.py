"""The Zephyr module: twister over the samples and tests/zephyr, and builds that must fail.

Zephyr is found through ZEPHYR_BASE, else in the conventional west workspace
~/zephyrproject (~/zephyrproject/zephyr). A virtual environment at <workspace>/.venv is used
for west and twister when the caller has none active; without ZEPHYR_TOOLCHAIN_VARIANT, an
arm-none-eabi-gcc on PATH is used as the gnuarmemb toolchain. Without a Zephyr tree these tests
are skipped with the reason; with one (ZEPHYR_BASE set, or ~/zephyrproject/zephyr there), they
fail when anything else they need is missing, so that a broken setup cannot pass as a skip.

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
BOARDS = ("qemu_cortex_m3", "mps2/an385")
# A full run is about 25 builds; twister's own timeouts cover each run on the target.
TWISTER_TIMEOUT = 40 * 60


@dataclass
class Zephyr:
    base: Path
    env: dict[str, str]
    python: str


@dataclass
class NoZephyr:
    """Why the Zephyr tests cannot run; tree is the Zephyr tree there is, if any."""

    reason: str
    tree: Path | None


def find_zephyr() -> Zephyr | NoZephyr:
    """The Zephyr tree and the environment to build in, or why there is none."""
    env = dict(os.environ)
    base_text = env.get("ZEPHYR_BASE")
    base = Path(base_text) if base_text else Path.home() / "zephyrproject" / "zephyr"
    if not base_text and not base.is_dir():
        return NoZephyr(
            f"Zephyr not found: set ZEPHYR_BASE or create ~/zephyrproject "
            f"(west init + west update, see README); looked in {base}",
            None,
        )

    def found(reason: str) -> NoZephyr:
        return NoZephyr(reason, base)

    if not (base / "VERSION").is_file() or not (base / "scripts" / "twister").is_file():
        return found("it has no VERSION or scripts/twister: not a Zephyr tree")
    env["ZEPHYR_BASE"] = str(base)
    python = sys.executable
    venv = base.parent / ".venv"
    if not env.get("VIRTUAL_ENV") and (venv / "bin" / "python3").is_file():
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
needs_zephyr = pytest.mark.skipif(
    isinstance(FOUND, NoZephyr) and FOUND.tree is None,
    reason=FOUND.reason if isinstance(FOUND, NoZephyr) else "",
)


@pytest.fixture(scope="module")
def zephyr() -> Zephyr:
    if isinstance(FOUND, NoZephyr):
        pytest.fail(f"Zephyr tree {FOUND.tree}, but {FOUND.reason}", pytrace=False)
    return FOUND


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
    }
    for copy, original in copies.items():
        assert filecmp.cmp(REPO / "samples" / copy, MODELS / original, shallow=False), copy


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


def expected_scenarios() -> set[tuple[str, str]]:
    """(scenario, platform) pairs that must pass: every sample on both boards, every model
    where its testcase.yaml allows it."""
    want = set()
    for spec in sorted((REPO / "samples").glob("*/sample.yaml")) + sorted(
        (REPO / "tests" / "zephyr").glob("*/testcase.yaml")
    ):
        data = yaml.safe_load(spec.read_text())
        common = data.get("common", {})
        for name, scenario in data["tests"].items():
            platforms = (scenario or {}).get("platform_allow", common.get("platform_allow"))
            want |= {(name, p) for p in platforms if p in BOARDS}
    return want


@needs_zephyr
@pytest.mark.slow
def test_twister_samples_and_suites(zephyr, tmp_path, note_skip):
    out = tmp_path / "twister-out"
    cmd = [zephyr.python, str(zephyr.base / "scripts" / "twister")]
    for board in BOARDS:
        cmd += ["-p", board]
    cmd += ["-T", str(REPO / "samples"), "-T", str(REPO / "tests" / "zephyr")]
    cmd += ["-j", "2", "-O", str(out), f"-x=ZEPHYR_EXTRA_MODULES={REPO}", "--inline-logs"]
    started = time.monotonic()
    done = subprocess.run(
        cmd,
        cwd=tmp_path,
        env=zephyr.env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        timeout=TWISTER_TIMEOUT,
    )
    summary = [line for line in done.stdout.splitlines() if "test configurations passed" in line]
    print(*summary, f"twister took {time.monotonic() - started:.0f} s", sep="\n")
    assert done.returncode == 0, done.stdout[-6000:]

    report = json.loads((out / "twister.json").read_text())
    status = {(s["name"], s["platform"]): s["status"] for s in report["testsuites"]}
    for s in report["testsuites"]:
        if s["status"] in ("filtered", "skipped"):
            note_skip(f"twister: {s['name']} on {s['platform']}: {s.get('reason', '?')}")
    for name, platform in sorted(expected_scenarios()):
        # Twister names a scenario by its folder and its name.
        got = [v for (n, p), v in status.items() if n.endswith(name) and p.startswith(platform)]
        assert got == ["passed"], f"{name} on {platform}: {got or 'not run'}"


@needs_zephyr
def test_unsupported_op_stops_the_build(zephyr, tmp_path):
    import tensorflow as tf
    import tfmodels

    # SIGN: TFLite Micro has no kernel for it (tinyaot.tflm_ops), so the compiler never will.
    model = tmp_path / "sign.tflite"
    model.write_bytes(tfmodels.convert(lambda x: tf.math.sign(x), [(1, 8)], False))
    want = compiler_error(model, tmp_path)
    assert re.match(r"error: op 0 \(SIGN\) .* is not supported", want), want

    done = west_build(zephyr, tmp_path / "build", model_path(model))
    assert done.returncode != 0
    assert want in done.stdout.splitlines(), done.stdout[-4000:]
    assert "Traceback" not in done.stdout


@needs_zephyr
def test_arena_budget_stops_the_build(zephyr, tmp_path):
    model = MODELS / "mlperf_tiny_kws_dscnn_int8.tflite"
    want = compiler_error(model, tmp_path, "--arena-budget", "1000")
    assert re.match(
        r"error: model 'model' needs an arena of \d+ bytes, over the budget of 1000", want
    )

    done = west_build(
        zephyr, tmp_path / "build", model_path(model), "-DCONFIG_TINYAOT_ARENA_BUDGET=1000"
    )
    assert done.returncode != 0
    assert want in done.stdout.splitlines(), done.stdout[-4000:]


@needs_zephyr
def test_changed_model_regenerates(zephyr, tmp_path):
    model = tmp_path / "hello.tflite"
    shutil.copyfile(MODELS / "tflm_hello_world_int8.tflite", model)
    build = tmp_path / "build"

    first = west_build(zephyr, build, model_path(model))
    assert first.returncode == 0, first.stdout[-4000:]
    summary = r"^tinyaot: model: arena \d+ B, weights \d+ B, 3 ops, 288 MACs$"
    assert re.search(summary, first.stdout, re.M)
    assert re.search(r"^tinyaot: model: code \d+ B, constants \d+ B", first.stdout, re.M)

    again = west_build(zephyr, build)
    assert again.returncode == 0 and "tinyaot: compiling" not in again.stdout

    time.sleep(0.01)
    model.touch()
    changed = west_build(zephyr, build)
    assert changed.returncode == 0, changed.stdout[-4000:]
    assert "tinyaot: compiling" in changed.stdout and re.search(summary, changed.stdout, re.M)
