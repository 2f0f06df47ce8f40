"""The benchmark's cycle estimate: the plugin's snapshots to an invoke's counts, and weights."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO / "bench"), str(REPO / "tests" / "cortex_m3")]

import cycles  # noqa: E402
import runner  # noqa: E402


def _snap(values: dict[str, int], taken: int) -> str:
    return "snap " + " ".join(str(values.get(c, 0)) for c in cycles.CLASSES) + f" taken={taken}"


def test_invoke_counts_subtract_the_clock_reading(tmp_path: Path) -> None:
    # Snapshots: two calibration readings, then start and end of invoke 0 and of invoke 1.
    lines = [
        _snap({"alu": 10}, 0),
        _snap({"alu": 13, "ldst": 1}, 0),  # one reading pair: 3 alu + 1 ldst
        _snap({"alu": 100, "ldst": 50}, 5),
        _snap({"alu": 203, "ldst": 61, "mla": 40}, 9),
        _snap({"alu": 300, "ldst": 70, "mla": 40}, 9),
        _snap({"alu": 310, "ldst": 71, "mla": 41}, 9),
    ]
    out = tmp_path / "snaps"
    out.write_text("\n".join(lines) + "\n")
    first = cycles.invoke_counts(out)
    assert (first["alu"], first["ldst"], first["mla"], first["taken"]) == (100, 10, 40, 4)
    second = cycles.invoke_counts(out, invoke=1)
    assert (second["alu"], second["ldst"], second["mla"]) == (7, 0, 1)
    with pytest.raises(runner.HarnessError):
        cycles.invoke_counts(out, invoke=2)


def test_weights_follow_the_manuals() -> None:
    counts = dict.fromkeys([*cycles.CLASSES, "taken"], 0)
    counts.update(mla=10, mlal=2, ldst=4, ldst_pipe=4, ldm=1, ldm_reg=5, bcond=3, taken=2)
    p = cycles.REFILL
    # M3: MLA 2, SMLAL 7, LDR 2 or 1 pipelined, LDM 1 + N, B<cond> 1 (+ P taken).
    assert cycles.estimate(counts, "cortex-m3") == 20 + 14 + 8 + 4 + 6 + 3 + 2 * p
    # M4: MLA and SMLAL single-cycle.
    assert cycles.estimate(counts, "cortex-m4") == 10 + 2 + 8 + 4 + 6 + 3 + 2 * p
    assert cycles.total(counts) == 10 + 2 + 4 + 4 + 1 + 3
    # The M4F's FPU: VMLA 3, VDIV 14, VADD 1.
    counts.update(fp=2, fp_mac=5, fp_div=1)
    assert cycles.estimate(counts, "cortex-m4") == 10 + 2 + 8 + 4 + 6 + 3 + 2 * p + 2 + 15 + 14
    assert cycles.total(counts) == 10 + 2 + 4 + 4 + 1 + 3 + 8
    # The Cortex-M55's estimate: scalar as the M4, Helium 2 (two beats per cycle of a 4-beat
    # vector), the low-overhead loop instructions 1; all of them instructions.
    counts.update(mve=7, mve_ldst=3, loop=2)
    m4 = 10 + 2 + 8 + 4 + 6 + 3 + 2 * p + 2 + 15 + 14
    assert cycles.estimate(counts, "cortex-m55") == m4 + 14 + 6 + 2
    assert cycles.total(counts) == 10 + 2 + 4 + 4 + 1 + 3 + 8 + 12


def test_speed_table_ratios_from_the_counts() -> None:
    """The table's ratios are rounded once, from the counts: 4258530 / 7678708 = 0.5546 is 0.55
    (the JSON's ratio, 0.555 to 3 places, would print as 0.56)."""
    import bench  # noqa: PLC0415

    tflm = bench.TflmResult("mps2-an505", 7678708, 9350348, {}, True, 0, 0, 0.555, 0.578)
    result = bench.Result(
        "kws", 13, 2656768, 8320, 16000, 24272, 0.34, {}, "mps2-an505", "mps2-an505",
        4258530, 1.6, True, 0.1, cycles=5404703, tflm=tflm,
    )  # fmt: skip
    row = bench.speed_table([result], "-O2").splitlines()[-1].split()
    assert row[-2:] == ["0.55", "0.58"]
