"""Estimated cycles: executed instructions by class (bench/insn_classes.c, a qemu TCG plugin)
weighed with the instruction timings of the Cortex-M3 and Cortex-M4 technical reference
manuals (ARM DDI 0337 table 3-1 "Cortex-M3 instruction set summary"; ARM 100166 table 3-1
"Processor instruction set summary" of the Cortex-M4), zero wait states; the Cortex-M55's
are an estimate (WEIGHTS).

The plugin snapshots its counters each time the harness's clock reading (main.c's
cycles_now) starts; like main.c, the invoke's counts are the snapshots around it less the
cost of one reading pair (the first two snapshots). See bench/README.md for the limits.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import threading
from collections.abc import Sequence
from pathlib import Path

import runner

BENCH = Path(__file__).resolve().parent
PLUGIN_SOURCE = BENCH / "insn_classes.c"
MARK_SYMBOL = "cycles_now"

# In the order of enum insn_class in insn_classes.c.
CLASSES = [
    "alu",
    "mul",
    "mla",
    "mull",
    "mlal",
    "dsp_mul",
    "div",
    "ldst",
    "ldst_pipe",
    "ldst_dual",
    "ldm",
    "ldm_reg",
    "branch",
    "bcond",
    "table",
    "pc_write",
    "it",
    "other",
    "fp",
    "fp_mac",
    "fp_div",
    "mve",
    "mve_ldst",
    "loop",
]

# P, the pipeline refill of a taken branch or a pc write: the manuals give 1 to 3 (alignment,
# width of the target, whether the core speculated the address); 2 is the middle.
REFILL = 2

# Cycles per instruction of each class, plus REFILL per taken branch and pc write. Where the
# manuals give a data-dependent range (early-terminating long multiplies and divides on the
# Cortex-M3, divides on both), the upper end: the estimate does not know the operands.
_COMMON = {
    "alu": 1,
    "mul": 1,
    "ldst": 2,  # LDR/STR: 2, ...
    "ldst_pipe": 1,  # ... 1 when it follows another single load or store (pipelined)
    "ldst_dual": 3,  # LDRD/STRD: 1 + N, N = 2
    "ldm": 1,  # LDM/STM/PUSH/POP: 1 + N, the N in ldm_reg
    "ldm_reg": 1,
    "branch": 1 + REFILL,
    "bcond": 1,  # + REFILL when taken
    "table": 2 + REFILL,
    "pc_write": REFILL,  # MOV pc, POP {..., pc}, LDR pc: 1 + P, 1 + N + P, 2 + P
    "it": 1,
    "other": 1,
    "div": 12,  # SDIV/UDIV: 2 to 12
    # The Cortex-M4F's FPU (ARM 100166 table 7-1); the Cortex-M3 has none, never executed.
    "fp": 1,  # VADD, VMUL, VCMP, VCVT, VMOV, VMRS, ...: 1 (VMOV of two registers: 2)
    "fp_mac": 3,  # VMLA, VMLS, VNMLA, VNMLS, VFMA, VFMS, VFNMA, VFNMS: 3
    "fp_div": 14,  # VDIV, VSQRT: 14
    # Helium and the low-overhead loops: only the Cortex-M55 has them, never executed elsewhere.
    "mve": 2,
    "mve_ldst": 2,
    "loop": 1,
}
WEIGHTS: dict[str, dict[str, int]] = {
    "cortex-m3": {
        **_COMMON,
        "mla": 2,
        "mull": 5,  # SMULL/UMULL: 3 to 5
        "mlal": 7,  # SMLAL/UMLAL: 4 to 7
        "dsp_mul": 1,  # absent on this core: never executed
    },
    "cortex-m4": {**_COMMON, "mla": 1, "mull": 1, "mlal": 1, "dsp_mul": 1},
    # The Cortex-M33 TRM gives the same single-cycle multiplies and DSP instructions; its
    # pipeline is the Cortex-M4's in the terms counted here.
    "cortex-m33": {**_COMMON, "mla": 1, "mull": 1, "mlal": 1, "dsp_mul": 1},
    # An estimate: its scalar timings taken as the Cortex-M4's, and each Helium instruction 2
    # cycles, the Cortex-M55's 64-bit datapath doing a 128-bit vector as 4 beats, 2 per cycle;
    # the overlap of one instruction's last beats with the next one's first (a load beside a
    # multiply-accumulate) that can bring a loop to 1 per cycle is not modelled. LE, DLS, WLS:
    # 1 (a cached loop's LE can cost none). See bench/README.md.
    "cortex-m55": {**_COMMON, "mla": 1, "mull": 1, "mlal": 1, "dsp_mul": 1},
}


def estimate(counts: dict[str, int], cpu: str) -> int:
    """Estimated cycles of instructions counted by class (with `taken` conditional branches)."""
    weights = WEIGHTS[cpu]
    return sum(counts[c] * weights[c] for c in CLASSES) + counts["taken"] * REFILL


def plugin(workdir: Path) -> Path:
    """Build the plugin (once per source text) with the host compiler; returns the .so."""
    source = PLUGIN_SOURCE.read_bytes()
    out = workdir / f"insn_classes-{hashlib.sha256(source).hexdigest()[:12]}.so"
    if not out.is_file():
        workdir.mkdir(parents=True, exist_ok=True)
        command = ["cc", "-shared", "-fPIC", "-O2", "-Wall", "-Wextra", "-Werror"]
        # Models measured at once (--jobs) may build it at the same time: each builds its
        # own file and renames it, so that qemu never loads one half written.
        part = out.with_name(f"{out.name}.{os.getpid()}.{threading.get_ident()}")
        command += [str(PLUGIN_SOURCE), "-o", str(part)]
        proc = subprocess.run(command, capture_output=True, text=True, check=False)
        if proc.returncode != 0:
            raise runner.BuildError("building the qemu plugin failed", command, proc.stderr)
        os.replace(part, out)
    return out


def mark_address(elf: Path) -> int:
    """Address of main.c's clock reading, where the plugin snapshots its counters."""
    for line in subprocess.run(
        [runner.NM, str(elf)], capture_output=True, text=True, check=True
    ).stdout.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[2] == MARK_SYMBOL:
            return int(parts[0], 16) & ~1
    raise runner.HarnessError(f"no {MARK_SYMBOL} in {elf}")


def qemu_args(so: Path, elf: Path, out: Path) -> list[str]:
    """The -plugin option that makes qemu write the snapshots of this firmware to `out`."""
    return ["-plugin", f"{so},mark={mark_address(elf):#x},out={out}"]


def invoke_counts(out: Path, invoke: int = 0) -> dict[str, int]:
    """Counts by class (and `taken`) of input set `invoke`, from the plugin's snapshots."""
    snaps: list[list[int]] = []
    for line in out.read_text().splitlines():
        fields = line.split()
        if fields and fields[0] == "snap":
            snaps.append([int(f.removeprefix("taken=")) for f in fields[1:]])
    need = 4 + 2 * invoke
    if len(snaps) < need:
        raise runner.HarnessError(f"{out}: {len(snaps)} snapshots, expected at least {need}")
    names = [*CLASSES, "taken"]
    start, end = snaps[2 + 2 * invoke], snaps[3 + 2 * invoke]
    return {name: (end[i] - start[i]) - (snaps[1][i] - snaps[0][i]) for i, name in enumerate(names)}


def total(counts: dict[str, int]) -> int:
    """Instructions in the counts: what SysTick counts too, a check on the classification."""
    return sum(counts[c] for c in CLASSES if c not in ("ldm_reg", "pc_write"))


def classes_table(rows: Sequence[tuple[str, dict[str, int]]]) -> list[list[str]]:
    """Rows of instruction counts by class, one per (label, counts)."""
    return [
        ["", *CLASSES, "taken"],
        *([label, *(str(c[k]) for k in [*CLASSES, "taken"])] for label, c in rows),
    ]
