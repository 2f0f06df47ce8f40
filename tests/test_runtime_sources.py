"""crt/sources.txt, the one list of runtime sources that CMake, bench/ and the tests build from."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from tinyaot.runtime_sources import CRT, runtime_sources


def test_the_list_names_every_runtime_source_once() -> None:
    listed = [p.relative_to(CRT).as_posix() for p in runtime_sources()]
    present = sorted(
        p.relative_to(CRT).as_posix() for p in (CRT / "src").rglob("*") if p.suffix in (".c", ".S")
    )
    assert listed == present
    assert [p.suffix for p in runtime_sources(".S")] == [".S"] * len(runtime_sources(".S"))
    assert len(runtime_sources(".c")) + len(runtime_sources(".S")) == len(listed)


def test_assembly_is_empty_where_its_isa_is_absent(tmp_path: Path) -> None:
    """The host builds every listed source; the Thumb-2 files must assemble to nothing there."""
    for source in runtime_sources(".S"):
        obj = tmp_path / f"{source.stem}.o"
        cmd = ["gcc", "-I", str(CRT / "include"), "-c", str(source), "-o", str(obj)]
        subprocess.run(cmd, check=True)
        sizes = subprocess.run(["size", "-A", str(obj)], capture_output=True, text=True).stdout
        text = next(line.split()[1] for line in sizes.splitlines() if line.startswith(".text"))
        assert text == "0", f"{source.name} puts {text} bytes of code in a host object"
        # Without it the host's linker asks for an executable stack (native_sim fails on that).
        assert ".note.GNU-stack" in sizes, f"{source.name} has no .note.GNU-stack"


@pytest.mark.skipif(shutil.which("arm-none-eabi-gcc") is None, reason="needs arm-none-eabi-gcc")
def test_assembly_leaves_bare_metal_objects_unmarked(tmp_path: Path) -> None:
    """arm-none-eabi marks no object with .note.GNU-stack; one that is marked makes the linker
    warn about every other, which fails Zephyr's link."""
    for source in runtime_sources(".S"):
        obj = tmp_path / f"{source.stem}.o"
        # Helium's (crt/src/mve/) for a Cortex-M55, the others for a Cortex-M4: each has code.
        helium = source.parent.name == "mve"
        cpu = (
            ["-mcpu=cortex-m55", "-mfloat-abi=hard", "-mfpu=auto"]
            if helium
            else ["-mcpu=cortex-m4"]
        )
        cmd = ["arm-none-eabi-gcc", *cpu, "-mthumb", "-I", str(CRT / "include")]
        subprocess.run([*cmd, "-c", str(source), "-o", str(obj)], check=True)
        sizes = subprocess.run(["size", "-A", str(obj)], capture_output=True, text=True).stdout
        assert ".text." in sizes, f"{source.name} assembled to nothing for {cpu[0]}"
        assert ".note.GNU-stack" not in sizes, f"{source.name} is marked for a bare-metal target"
