"""Every symbol the runtime defines is named tinyaot_*, on the cores the kernels have assembly,
DSP, FPU or Helium code for, each with its board's float flags: the Zephyr build's size report
(cmake/tinyaot.cmake) counts the runtime by that prefix, so a symbol without it, or code with
no symbol at all, would go missing from the figure."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

import runner  # noqa: E402
from tinyaot.runtime_sources import runtime_sources  # noqa: E402


@pytest.mark.skipif(bool(runner.missing_tools()), reason="needs arm-none-eabi-gcc")
@pytest.mark.parametrize("cpu", ["cortex-m3", "cortex-m4", "cortex-m33", "cortex-m55"])
def test_runtime_symbols_are_prefixed(tmp_path: Path, cpu: str) -> None:
    unnamed, bytes_named, bytes_text, sections = [], 0, 0, 0
    for src in runtime_sources():
        obj = tmp_path / f"{src.stem}.o"
        cmd = [runner.GCC, f"-mcpu={cpu}", *runner.CPU_FLOAT_FLAGS[cpu], "-mthumb", "-Os"]
        cmd += ["-std=c99", "-ffunction-sections"]
        cmd += ["-fdata-sections", "-DTINYAOT_PROFILE", f"-I{runner.CRT_INCLUDE}", "-c", str(src)]
        subprocess.run([*cmd, "-o", str(obj)], check=True)
        symbols = subprocess.run(
            [runner.NM, "-S", "--defined-only", str(obj)],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        for line in symbols.splitlines():
            fields = line.split()
            if len(fields) != 4 or fields[2].lower() not in "tdbr":
                continue
            if not fields[3].startswith("tinyaot_"):
                unnamed.append(f"{src.name}: {fields[3]}")
            if fields[2].lower() == "t":
                bytes_named += int(fields[1], 16)
        sizes = subprocess.run(
            [runner.SIZE, "-A", str(obj)], capture_output=True, text=True, check=True
        ).stdout
        text = [
            int(f[1])
            for f in (ln.split() for ln in sizes.splitlines())
            if f and f[0].startswith(".text")
        ]
        bytes_text += sum(text)
        sections += sum(1 for size in text if size)
    assert unnamed == []
    # The sized symbols cover all the code, apart from the padding of each section to a word.
    assert bytes_text - 3 * sections <= bytes_named <= bytes_text
