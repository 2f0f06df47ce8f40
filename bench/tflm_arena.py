"""Measure TFLM's arena needs, rather than quote them, as the baseline tinyaot is
compared against.

The `tflite-micro` package has no API returning arena usage: its RecordingMicroAllocator
only prints a report from C++ to file descriptor 2, so that report is captured at the
fd level. Its "total" is not the arena a device must provide: planning needs transient
scratch (the minimum can exceed the total) and alignment slack differs, so the minimum
is found by bisecting on the arena size with which the interpreter can be created and
allocate its tensors.
"""

from __future__ import annotations

import ctypes
import faulthandler
import os
import re
import sys
import tempfile
from collections.abc import Callable
from importlib import metadata
from pathlib import Path

from tflite_micro.python.tflite_micro import runtime

_LIBC = ctypes.CDLL(None)
_REPORT = re.compile(r"Arena allocation (\w+) (\d+) bytes")
_BIG_ARENA = 1 << 24


def tflm_build() -> str:
    """Which TFLite Micro the figures come from: the host interpreter of the PyPI package
    (x86-64, its own build options), not a build for the device."""
    return f"tflite-micro {metadata.version('tflite-micro')} (PyPI, host interpreter)"


def _stderr_of(fn: Callable[[], object]) -> str:
    """Run fn and return what it wrote to fd 2, C stdio included, without showing it."""
    sys.stderr.flush()
    with tempfile.TemporaryFile() as sink:
        saved = os.dup(2)
        os.dup2(sink.fileno(), 2)
        try:
            fn()
        finally:
            _LIBC.fflush(None)  # stderr of the C side is buffered in this process
            os.dup2(saved, 2)
            os.close(saved)
        sink.seek(0)
        return sink.read().decode(errors="replace")


def _fits(model: bytes, arena_size: int) -> bool:
    """Whether the model's Prepare succeeds in arena_size bytes, tried in a forked child:
    TFLite Micro's LSTM kernels dereference a failed allocation when the arena is short (a
    segfault), which must read as "does not fit", not end the caller."""
    pid = os.fork()
    if pid == 0:
        code = 1
        try:
            faulthandler.disable()  # pytest's would print the expected segfault
            null = os.open(os.devnull, os.O_WRONLY)
            os.dup2(null, 2)
            runtime.Interpreter.from_bytes(model, arena_size=arena_size)
            code = 0
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status) == 0


def tflm_allocations(model_path: str) -> dict[str, int]:
    """TFLM's own allocation report for a model: "head" (planned non-persistent
    activations), "tail" (persistent data) and "total" (head + tail as recorded)."""
    model = Path(model_path).read_bytes()

    def report() -> None:
        runtime.Interpreter.from_bytes(model, arena_size=_BIG_ARENA).print_allocations()

    figures = {key: int(value) for key, value in _REPORT.findall(_stderr_of(report))}
    if not {"head", "tail", "total"} <= figures.keys():
        raise RuntimeError(f"no allocation report for {model_path}")
    return figures


def tflm_arena(model_path: str) -> dict[str, int]:
    """tflm_allocations() and "min": the smallest arena_size that works, searched."""
    model = Path(model_path).read_bytes()
    figures = tflm_allocations(model_path)

    lo, hi = figures["head"] - 1, _BIG_ARENA  # lo never fits, hi always does
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if _fits(model, mid):
            hi = mid
        else:
            lo = mid
    figures["min"] = hi
    return figures


def main(argv: list[str] | None = None) -> None:
    """Print head, tail, total and min for the given models (default: the corpus, models/)."""
    args = sys.argv[1:] if argv is None else argv
    if args:
        paths = [Path(arg) for arg in args]
    else:
        models = Path(__file__).resolve().parents[1] / "models"
        paths = sorted(models.glob("*.tflite"))
    print(f"TFLM arena measured with {tflm_build()}")
    print(f"{'model':<36} {'head':>8} {'tail':>8} {'total':>8} {'min':>8}")
    for path in paths:
        fig = tflm_arena(str(path))
        cols = f"{fig['head']:>8} {fig['tail']:>8} {fig['total']:>8} {fig['min']:>8}"
        print(f"{path.stem:<36} {cols}")


if __name__ == "__main__":
    main()
