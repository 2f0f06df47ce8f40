"""The run ends with every skip grouped by its reason (tests/conftest.py)."""

from __future__ import annotations

import os
import subprocess
import sys

from harness import REPO

CASES = """
import pytest

needs_board = pytest.mark.skipif(True, reason="no board here")


@needs_board
def test_a():
    pass


@needs_board
def test_b():
    pass


def test_c():
    pytest.skip("no toolchain")


def test_d():
    pass


def test_e(note_skip):
    note_skip("twister: models.x on qemu_cortex_m3: not in platform_allow")
"""


def run_pytest(tmp_path, source: str) -> str:
    (tmp_path / "test_cases.py").write_text(source)
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "conftest", "-c", os.devnull, "."],
        cwd=tmp_path,
        env=dict(os.environ, PYTHONPATH=str(REPO / "tests")),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


def test_skips_grouped_by_reason(tmp_path):
    lines = run_pytest(tmp_path, CASES).splitlines()
    assert "skipped: 2 in test_cases.py: no board here" in lines
    assert "skipped: 1 in test_cases.py: no toolchain" in lines
    assert "skipped: twister: models.x on qemu_cortex_m3: not in platform_allow" in lines


def test_no_skip_says_so(tmp_path):
    assert "skipped: nothing" in run_pytest(tmp_path, "def test_d():\n    pass\n").splitlines()
