"""tinyaot_add_model() in a plain CMake project (tests/cmake/), built and run on the host.

Configures and builds with CMake and Ninja in a temporary folder, runs the programs and
compares them with TFLite Micro, and checks what the build must do: show the compiler's
summary and the sizes, regenerate when the model or an option changes and only then, stop on
a compile error with the compiler's one-line message, and share one arena in a pool; and in
projects of their own, that bad arguments stop the configuration with tinyaot.cmake's message
that ARENA_SECTION and WEIGHTS_SECTION put the arena and the constants in those sections of
the program, and that each model's <name>_report.json gets the code size from the link.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from harness import linked_code, symbol_sizes
from reference import MODELS, Reference

REPO = Path(__file__).resolve().parents[1]
PROJECT = REPO / "tests" / "cmake"
HELLO = MODELS / "tflm_hello_world_int8.tflite"
HELLO_FLOAT = MODELS / "tflm_hello_world_float32.tflite"

pytestmark = pytest.mark.skipif(
    not (shutil.which("cmake") and shutil.which("ninja") and shutil.which("cc")),
    reason="cmake, ninja and a host C compiler are needed for the plain CMake project",
)


def run(cmd: list[str], cwd: Path | None = None) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(REPO / "scripts"), PYTHONDONTWRITEBYTECODE="1")
    return subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=600, env=env)


class Build:
    """One configured build folder of tests/cmake with private copies of the models."""

    def __init__(self, root: Path, *options: str) -> None:
        self.dir = root / "build"
        self.models = root / "models"
        self.models.mkdir(parents=True, exist_ok=True)
        self.hello = self.models / HELLO.name
        shutil.copyfile(HELLO, self.hello)
        shutil.copyfile(HELLO_FLOAT, self.models / HELLO_FLOAT.name)
        self.configure(
            f"-DPython3_EXECUTABLE={sys.executable}",
            f"-DHELLO_MODEL={self.hello}",
            f"-DHELLO_FLOAT_MODEL={self.models / HELLO_FLOAT.name}",
            *options,
        )

    def configure(self, *options: str) -> None:
        done = run(["cmake", "-G", "Ninja", "-S", str(PROJECT), "-B", str(self.dir), *options])
        assert done.returncode == 0, done.stdout + done.stderr

    def build(self) -> subprocess.CompletedProcess:
        return run(["cmake", "--build", str(self.dir)])

    def built(self) -> str:
        done = self.build()
        assert done.returncode == 0, done.stdout + done.stderr
        return done.stdout

    def program(self, name: str) -> list[str]:
        done = run([str(self.dir / name)])
        assert done.returncode == 0, done.stdout + done.stderr
        return done.stdout.splitlines()


@pytest.fixture(scope="module")
def hello_build(tmp_path_factory) -> tuple[Build, str]:
    build = Build(tmp_path_factory.mktemp("cmake"))
    return build, build.built()


def test_build_shows_summary_and_sizes(hello_build):
    _, log = hello_build
    assert re.search(r"tinyaot: compiling .*tflm_hello_world_int8\.tflite into sine\.c", log)
    assert re.search(r"^tinyaot: sine: arena \d+ B, weights 912 B, 3 ops, 288 MACs$", log, re.M)
    assert re.search(r"^tinyaot: sine: code \d+ B, constants \d+ B, RAM \d+ B in hello$", log, re.M)


def test_outputs_match_tflite_micro(hello_build):
    build, _ = hello_build
    lines = build.program("hello")
    ref = Reference(HELLO)
    for q, line in zip(range(-128, 128), lines, strict=False):
        x, y = map(int, line.split())
        want = ref.run([np.array([[q]], dtype=np.int8)])[0]
        assert (x, y) == (q, int(want.ravel()[0]))
    # PROFILE: the hook saw every op of every run.
    assert "profiled 768 ops of 3" in lines


def test_no_work_when_nothing_changed(hello_build):
    build, _ = hello_build
    log = build.built()
    assert "tinyaot: compiling" not in log
    assert "no work to do" in log


def test_changed_model_regenerates(hello_build):
    build, _ = hello_build
    generated = build.dir / "tinyaot" / "sine" / "sine.c"
    before = generated.stat().st_mtime_ns
    time.sleep(0.01)
    build.hello.touch()
    log = build.built()
    assert "tinyaot: compiling" in log and "into sine.c" in log
    assert generated.stat().st_mtime_ns > before
    assert "into sine_f.c" not in log, "an unrelated model was regenerated"


def test_compiler_sources_are_dependencies(hello_build):
    build, _ = hello_build
    done = run(["ninja", "-C", str(build.dir), "-t", "query", "tinyaot/sine/sine.c"])
    assert done.returncode == 0, done.stderr
    inputs = done.stdout
    for source in ("scripts/tinyaot/cli.py", "scripts/tinyaot/templates/model.c.j2"):
        assert str(REPO / source) in inputs, f"{source} is not a dependency"


def test_changed_option_regenerates(tmp_path):
    build = Build(tmp_path)
    build.built()
    build.configure("-DHELLO_ALIGNMENT=64")
    log = build.built()
    assert "into sine.c" in log
    header = (build.dir / "tinyaot" / "sine" / "sine.h").read_text()
    assert re.search(r"#define SINE_ARENA_ALIGNMENT\s+64", header)


def tflm_sine(x: float) -> float:
    return float(Reference(HELLO_FLOAT).run([np.array([[x]], dtype=np.float32)])[0].ravel()[0])


def test_shared_arena_pool(tmp_path):
    """One pool of the largest member's size and alignment, and the right results."""
    build = Build(tmp_path)
    log = build.built()
    assert re.search(r"^tinyaot: pool demo: \d+ B shared$", log, re.M)
    lines = build.program("pooled")
    *runs, summary = lines
    m = re.fullmatch(r"pool (\d+) align (\d+) members 2: sine_q (\d+), sine_f (\d+)", summary)
    assert m, summary
    pool, align, size_q, size_f = map(int, m.groups())
    assert pool == max(size_q, size_f) and align == 32
    ref_q = Reference(HELLO)
    for line in runs:
        _, xq, yq, _, i, yf = line.split()
        want_q = ref_q.run([np.array([[int(xq)]], dtype=np.int8)])[0].ravel()[0]
        assert int(yq) == int(want_q)
        assert abs(int(yf) / 1e6 - tflm_sine(0.5 * int(i))) < 1e-5
    # No model keeps an arena of its own: the only arena-sized buffer is the pool.
    symbols = run(["nm", "-S", str(build.dir / "pooled")]).stdout
    assert re.search(r"^\S+ \S+ [bB] tinyaot_pool_demo$", symbols, re.M)
    assert not re.search(r"^\S+ \S+ [bB] sine_[qf]_arena$", symbols, re.M)


def compile_error(model: Path, tmp_path: Path, *options: str) -> str:
    """The compiler's own one-line message for this model."""
    out = tmp_path / "direct"
    cmd = [sys.executable, "-m", "tinyaot", "compile", str(model), "--name", "sine", *options]
    done = run([*cmd, "--output-dir", str(out)], cwd=tmp_path)
    assert done.returncode == 2, done.stdout
    return done.stderr.strip()


def test_compile_error_stops_the_build(tmp_path):
    build = Build(tmp_path)
    build.hello.write_bytes(HELLO.read_bytes()[:500])
    done = build.build()
    assert done.returncode != 0
    want = compile_error(build.hello, tmp_path)
    assert want.startswith("error: ") and "damaged or truncated" in want
    assert want in done.stdout.splitlines()
    assert "Traceback" not in done.stdout


def test_budget_stops_the_build(tmp_path):
    build = Build(tmp_path, "-DHELLO_BUDGET=16")
    done = build.build()
    assert done.returncode != 0
    want = compile_error(HELLO, tmp_path, "--arena-budget", "16")
    assert "model 'sine' needs an arena of" in want and "budget of 16 bytes" in want
    assert want in done.stdout.splitlines()


# A project of its own per case: tinyaot.cmake and the calls under test, nothing else.
PLAIN_PROJECT = """cmake_minimum_required(VERSION 3.20)
project(errors LANGUAGES C)
include({repo}/cmake/tinyaot.cmake)
add_executable(app main.c)
add_executable(other main.c)
{calls}
"""


def plain_project(tmp_path: Path, calls: str) -> Path:
    tmp_path.mkdir(parents=True, exist_ok=True)
    (tmp_path / "CMakeLists.txt").write_text(PLAIN_PROJECT.format(repo=REPO, calls=calls))
    (tmp_path / "main.c").write_text("int main(void)\n{\n\treturn 0;\n}\n")
    return tmp_path


def configure_plain(project: Path) -> subprocess.CompletedProcess:
    cmd = ["cmake", "-G", "Ninja", "-S", str(project), "-B", str(project / "build")]
    return run([*cmd, f"-DPython3_EXECUTABLE={sys.executable}"])


CONFIGURE_ERRORS = {
    "no_model": (
        "tinyaot_add_model(app NAME m)",
        "tinyaot_add_model(app): MODEL and NAME are required",
    ),
    "no_name": ("tinyaot_add_model(app MODEL {hello})", "MODEL and NAME are required"),
    "bad_name": (
        "tinyaot_add_model(app MODEL {hello} NAME 9lives)",
        "tinyaot_add_model: NAME '9lives' is not a C identifier",
    ),
    "missing_model": (
        "tinyaot_add_model(app MODEL nothere.tflite NAME m)",
        "tinyaot_add_model: model file '{project}/nothere.tflite' not found",
    ),
    "no_target": ("tinyaot_add_model(nope MODEL {hello} NAME m)", "no target named 'nope'"),
    "unknown_argument": (
        "tinyaot_add_model(app MODEL {hello} NAME m BOGUS)",
        "tinyaot_add_model: unknown arguments: BOGUS",
    ),
    "same_name_twice": (
        "tinyaot_add_model(app MODEL {hello} NAME m)\n"
        "tinyaot_add_model(other MODEL {hello} NAME m)",
        "a model named 'm' was already added; each model needs its own NAME",
    ),
    "bad_pool_name": (
        "tinyaot_add_model(app MODEL {hello} NAME m SHARED_ARENA 1pool)",
        "SHARED_ARENA '1pool' is not a C identifier",
    ),
    "pool_across_targets": (
        "tinyaot_add_model(app MODEL {hello} NAME a SHARED_ARENA p)\n"
        "tinyaot_add_model(other MODEL {hello} NAME b SHARED_ARENA p)",
        "tinyaot_add_model(b): the models of SHARED_ARENA p must be added to one target ('app')",
    ),
    "bad_max_extra_macs": (
        "tinyaot_add_model(app MODEL {hello} NAME m SMALLEST_ARENA MAX_EXTRA_MACS 5%)",
        "tinyaot_add_model(m): MAX_EXTRA_MACS '5%' is not a whole percentage",
    ),
    "bad_speed_scratch": (
        "tinyaot_add_model(app MODEL {hello} NAME m SPEED_SCRATCH -1)",
        "tinyaot_add_model(m): SPEED_SCRATCH '-1' is not a whole percentage",
    ),
    "bad_speed_flash": (
        "tinyaot_add_model(app MODEL {hello} NAME m SPEED_FLASH 1.5)",
        "tinyaot_add_model(m): SPEED_FLASH '1.5' is not a whole percentage",
    ),
    "pool_sections_differ": (
        "tinyaot_add_model(app MODEL {hello} NAME a SHARED_ARENA p ARENA_SECTION .x)\n"
        "tinyaot_add_model(app MODEL {hello} NAME b SHARED_ARENA p ARENA_SECTION .y)",
        "the models of SHARED_ARENA p must use the same ARENA_SECTION ('.x')",
    ),
    "region_and_section": (
        "tinyaot_add_model(app MODEL {hello} NAME m WEIGHTS_REGION psram WEIGHTS_SECTION .w)",
        "tinyaot_add_model(m): WEIGHTS_REGION psram and WEIGHTS_SECTION .w are two places for "
        "one thing: give one",
    ),
    "region_outside_zephyr": (
        "tinyaot_add_model(app MODEL {hello} NAME m ARENA_REGION sram1)",
        "tinyaot_add_model(m): ARENA_REGION sram1: a devicetree node label needs Zephyr's "
        "devicetree; outside Zephyr name a linker section (ARENA_SECTION, WEIGHTS_SECTION)",
    ),
}


@pytest.mark.parametrize("case", CONFIGURE_ERRORS)
def test_configure_errors(case: str, tmp_path: Path) -> None:
    calls, message = CONFIGURE_ERRORS[case]
    project = plain_project(tmp_path, calls.format(hello=HELLO))
    done = configure_plain(project)
    assert done.returncode != 0
    # CMake wraps and indents its messages.
    said = " ".join(done.stderr.split())
    assert "CMake Error" in said and message.format(project=project) in said, done.stderr


def test_patch_options_reach_the_compiler(tmp_path: Path) -> None:
    """SMALLEST_ARENA, MAX_EXTRA_MACS, SPEED_SCRATCH and SPEED_FLASH become the compiler's
    options (read from the build rules, configure only); a model without them gets none."""
    project = plain_project(
        tmp_path,
        f"tinyaot_add_model(app MODEL {HELLO} NAME m SMALLEST_ARENA MAX_EXTRA_MACS 7)\n"
        f"tinyaot_add_model(other MODEL {HELLO} NAME b ARENA_BUDGET 4096 SPEED_SCRATCH 15 "
        "SPEED_FLASH 40)",
    )
    assert configure_plain(project).returncode == 0
    rules = (project / "build" / "build.ninja").read_text()
    m = re.search(r"-m tinyaot compile \S+ --name m [^\n]*", rules)
    b = re.search(r"-m tinyaot compile \S+ --name b [^\n]*", rules)
    assert m and b
    assert "--smallest-arena --max-extra-macs 7 " in m[0]
    assert "--arena-budget 4096 --speed-scratch 15 --speed-flash 40 " in b[0]
    assert "--smallest-arena" not in b[0] and "--max-extra-macs" not in b[0]
    assert "--speed-scratch" not in m[0] and "--speed-flash" not in m[0]


def test_unsupported_model_stops_the_build(tmp_path: Path) -> None:
    import tflite_builder as tb

    graph = tb.fully_connected()
    graph.opcodes[0] = tb.OpCode(4000, deprecated=127)
    model = tmp_path / "unknown.tflite"
    model.write_bytes(tb.build(graph))
    want = compile_error(model, tmp_path)
    assert want == "error: op 0 has unknown builtin operator code 4000"
    project = plain_project(tmp_path / "project", f"tinyaot_add_model(app MODEL {model} NAME m)")
    assert configure_plain(project).returncode == 0
    done = run(["cmake", "--build", str(project / "build")])
    assert done.returncode != 0
    assert want in done.stdout.splitlines() and "Traceback" not in done.stdout


def section_of(program: Path, symbol: str) -> str:
    """The section objdump's symbol table gives the symbol in the linked program."""
    table = run(["objdump", "-t", str(program)]).stdout
    m = re.search(rf"^[0-9a-f]+ .{{7}} (\S+)\s+[0-9a-f]+\s+{symbol}$", table, re.M)
    assert m, f"{symbol} not in {program}"
    return m[1]


def test_sections_and_json_report(tmp_path: Path) -> None:
    """ARENA_SECTION puts the arena, or the pool's, in that section of the linked program and
    WEIGHTS_SECTION the constants; each model's <name>_report.json gets the code size of the
    program it was linked into."""
    project = plain_project(
        tmp_path,
        f"tinyaot_add_model(app MODEL {HELLO} NAME m ARENA_SECTION .tinyaot_arena\n"
        "                  WEIGHTS_SECTION .tinyaot_weights)\n"
        f"tinyaot_add_model(other MODEL {HELLO} NAME a SHARED_ARENA p ARENA_SECTION .pool)\n"
        f"tinyaot_add_model(other MODEL {HELLO_FLOAT} NAME b SHARED_ARENA p ARENA_SECTION .pool)",
    )
    assert configure_plain(project).returncode == 0
    done = run(["cmake", "--build", str(project / "build")])
    assert done.returncode == 0, done.stdout
    build = project / "build"
    assert section_of(build / "app", "m_arena") == ".tinyaot_arena"
    assert section_of(build / "other", "tinyaot_pool_p") == ".pool"
    app = symbol_sizes(build / "app")
    weights = [v for s, v in app.items() if re.fullmatch(r"m_[wc]\d+", s)]
    assert weights and {section for section, _ in weights} == {".tinyaot_weights"}
    for program, model in (("app", "m"), ("other", "a"), ("other", "b")):
        report = json.loads((build / "tinyaot" / model / f"{model}_report.json").read_text())
        assert report["code"] == linked_code(symbol_sizes(build / program), model, program)
        assert report["weights"]["section"] == (".tinyaot_weights" if model == "m" else None)
    m_report = json.loads((build / "tinyaot" / "m" / "m_report.json").read_text())
    assert m_report["weights"]["bytes"] == sum(size for _, size in weights)
