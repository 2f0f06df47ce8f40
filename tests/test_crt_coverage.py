"""The coverage gate of scripts/run-tests.sh (tests/crt_coverage.py) on real gcov data.

A program that calls only tinyaot_expf is linked with the runtime built for coverage: the gate
must see expf.c run, relu.c untouched, name both RELU kernels and fail on the line total.
"""

from __future__ import annotations

import subprocess

import crt_coverage
from host import runner


def test_gate_names_unrun_kernels_and_low_lines(tmp_path):
    objects = runner.runtime_objects(tmp_path / "obj", runner.COVERAGE_FLAGS)
    main = tmp_path / "main.c"
    main.write_text(
        "#include <tinyaot/expf.h>\nint main(void)\n{\n\treturn tinyaot_expf(1.0f) > 2.0f ? 0 : 1;"
        "\n}\n"
    )
    exe = tmp_path / "expf_only"
    cmd = ["gcc", "-std=c99", "-I", str(runner.CRT / "include"), str(main), *objects]
    subprocess.run([*cmd, "--coverage", "-o", str(exe)], check=True)
    assert subprocess.run([str(exe)]).returncode == 0

    src = crt_coverage.CRT_SRC
    expf, relu = crt_coverage.gather(tmp_path / "obj", [src / "expf.c", src / "relu.c"])
    assert expf.unrun == [] and expf.hit > 0
    kernels = ["tinyaot_relu_s8", "tinyaot_relu_f32", "tinyaot_leaky_relu_s16"]
    assert relu.hit == 0 and relu.unrun == kernels
    found = crt_coverage.problems([expf, relu])
    assert found[:3] == [f"relu.c: {k}() never executed" for k in kernels]
    assert found[3].startswith("line coverage") and len(found) == 4
    # expf.c alone: every function ran, but x = 1 skips the overflow and underflow returns.
    percent = 100.0 * expf.hit / expf.lines
    assert 50 < percent < 100
    assert crt_coverage.problems([expf], min_lines=percent) == []
    assert crt_coverage.problems([expf], min_lines=100) == [
        f"line coverage {percent:.1f}% is below 100%"
    ]
