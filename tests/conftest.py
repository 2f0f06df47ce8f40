"""Puts the compiler and the test helpers on the path for every test module, and ends the
run with a summary of what was skipped."""

import sys
from collections.abc import Callable, Generator
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent
sys.path[:0] = [str(TESTS.parent / "scripts"), str(TESTS)]
SKIP_NOTES = pytest.StashKey[list[str]]()


def pytest_configure(config: pytest.Config) -> None:
    config.stash[SKIP_NOTES] = []


@pytest.fixture
def note_skip(request: pytest.FixtureRequest) -> Callable[[str], None]:
    """What a passing test left out by itself (twister's filtered board configurations),
    to be listed with the skips."""
    return request.config.stash[SKIP_NOTES].append


# The outermost wrapper, so that this comes after -ra's "short test summary info".
@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> Generator[None]:
    """End with what was skipped and why, grouped by reason, so a skipped suite (Zephyr,
    the Cortex-M toolchain, qemu) cannot go unnoticed in a passing run."""
    yield
    by_reason: dict[str, list[str]] = {}
    for report in terminalreporter.stats.get("skipped", []):
        _, _, reason = report.longrepr
        by_reason.setdefault(reason.removeprefix("Skipped: "), []).append(report.nodeid)
    notes = terminalreporter.config.stash[SKIP_NOTES]
    terminalreporter.section("skipped")
    if not by_reason and not notes:
        terminalreporter.write_line("skipped: nothing")
    for reason, nodeids in sorted(by_reason.items(), key=lambda item: -len(item[1])):
        files = sorted({nodeid.split("::")[0] for nodeid in nodeids})
        terminalreporter.write_line(f"skipped: {len(nodeids)} in {', '.join(files)}: {reason}")
    for note in notes:
        terminalreporter.write_line(f"skipped: {note}")
