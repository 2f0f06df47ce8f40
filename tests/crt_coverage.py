"""Line and function coverage of crt/src by the host tests, and the gate on it.

scripts/run-tests.sh points TINYAOT_COVERAGE_DIR at an empty directory for the whole pytest
session; tests/host/runner.py then links every host build with the runtime compiled once with
--coverage -O0 into DIR/obj, so each run adds to the same .gcda files. Afterwards
`python3 tests/crt_coverage.py DIR` prints the coverage of every crt/src file and exits 1 when
lines are below MIN_LINES percent or a function never ran.

Only the C the host compiles is counted: the Thumb-2 assembly of crt/src/thumb2/ is built for
ARM alone (the Cortex-M tests run it), and on the host the fast kernels call their portable C
routines (tinyaot_conv_pairs_c, tinyaot_dw3x3_c, fc_run_c) instead.
"""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "scripts"))

from tinyaot.runtime_sources import runtime_sources  # noqa: E402

CRT_SRC = REPO / "crt" / "src"
MIN_LINES = 90.0


@dataclass
class FileCoverage:
    name: str
    lines: int
    hit: int
    # Functions compiled for the host that no test executed.
    unrun: list[str]


def gather(objdir: Path, sources: list[Path] | None = None) -> list[FileCoverage]:
    """Coverage of each crt/src file (or of `sources`) from the .gcno/.gcda files in objdir."""
    found = []
    for src in sources or runtime_sources(".c"):
        done = subprocess.run(
            ["gcov", "--json-format", "--stdout", "-o", str(objdir), str(src)],
            capture_output=True,
            text=True,
            check=True,
        )
        # No entry: the host compiles nothing of the file (profile.c without TINYAOT_PROFILE).
        entry = next(
            (f for f in json.loads(done.stdout)["files"] if Path(f["file"]) == src),
            {"lines": [], "functions": []},
        )
        counts = {line["line_number"]: line["count"] for line in entry["lines"]}
        unrun = [f["name"] for f in entry["functions"] if f["execution_count"] == 0]
        hit = sum(1 for c in counts.values() if c > 0)
        found.append(FileCoverage(src.name, len(counts), hit, unrun))
    return found


def problems(files: list[FileCoverage], min_lines: float = MIN_LINES) -> list[str]:
    """Why the gate fails: every function never executed, and lines below min_lines percent."""
    found = [f"{f.name}: {fn}() never executed" for f in files for fn in f.unrun]
    lines, hit = sum(f.lines for f in files), sum(f.hit for f in files)
    if lines == 0 or 100.0 * hit / lines < min_lines:
        percent = 100.0 * hit / lines if lines else 0.0
        found.append(f"line coverage {percent:.1f}% is below {min_lines:.0f}%")
    return found


def table(files: list[FileCoverage]) -> str:
    rows = [f"{'file':<24} {'lines':>6} {'run':>6} {'%':>6}  functions never run"]
    for f in files:
        percent = f"{100.0 * f.hit / f.lines:.1f}" if f.lines else "-"
        rows.append(f"{f.name:<24} {f.lines:>6} {f.hit:>6} {percent:>6}  {' '.join(f.unrun)}")
    lines, hit = sum(f.lines for f in files), sum(f.hit for f in files)
    rows.append(f"{'total':<24} {lines:>6} {hit:>6} {100.0 * hit / max(lines, 1):>6.1f}")
    return "\n".join(rows)


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: crt_coverage.py COVERAGE_DIR", file=sys.stderr)
        return 64
    files = gather(Path(argv[0]) / "obj")
    print("crt/src coverage by the host tests (host code only: the ARM assembly is not counted)")
    print(table(files))
    found = problems(files)
    for p in found:
        print(f"FAIL: {p}")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
