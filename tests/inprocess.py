"""Runs `tinyaot compile` inside the test process, with a time limit.

A thousand fuzz cases as subprocesses would take minutes of interpreter start-up;
calling cli.main directly takes milliseconds and sees exactly what a user sees:
the exit status and what reaches stderr.
"""

from __future__ import annotations

import contextlib
import io
import signal
from pathlib import Path

from tinyaot import cli


class CaseTimeout(BaseException):
    """Not an Exception, so that the CLI's catch-all cannot turn a hang into an exit status."""


def compile_model(
    model: Path, out: Path, time_limit: float = 10.0, name: str = "m"
) -> tuple[int | str, str]:
    """(exit status, or 'timeout' or 'exception', and stderr) of compiling model into out."""

    def expired(signum: int, frame: object) -> None:
        raise CaseTimeout

    err = io.StringIO()
    old = signal.signal(signal.SIGALRM, expired)
    signal.setitimer(signal.ITIMER_REAL, time_limit)
    try:
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
            argv = ["compile", str(model), "--name", name, "--output-dir", str(out), "--quiet"]
            status: int | str = cli.main(argv)
    except CaseTimeout:
        status = "timeout"
    except BaseException as exc:  # noqa: BLE001 - anything escaping main is the finding
        status = "exception"
        err.write(f"{type(exc).__name__}: {exc}\n")
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)
    return status, err.getvalue()
