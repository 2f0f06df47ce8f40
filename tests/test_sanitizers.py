"""Every shared model under AddressSanitizer and UndefinedBehaviorSanitizer: random inputs,
both entry points, no report, and still TFLM's results."""

from __future__ import annotations

import os
import subprocess

import numpy as np
import pytest
from harness import FLOAT_RTOL, compare, compile_model, split_outputs
from host import runner
from reference import Reference, model_paths

MODELS = model_paths()
SANITIZE = ("-fsanitize=address,undefined", "-fno-sanitize-recover=all", "-g", "-O1")
# The test main never frees its buffers; leaks are its own, not the runtime's.
ENV = dict(
    os.environ,
    ASAN_OPTIONS="detect_leaks=0:halt_on_error=1",
    UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1",
)


@pytest.fixture(scope="module")
def sanitized_runtime(tmp_path_factory) -> list[str]:
    """crt/src under the sanitizers, compiled once for every model's build."""
    return runner.runtime_objects(tmp_path_factory.mktemp("crt"), SANITIZE)


@pytest.mark.parametrize("model", MODELS, ids=[m.stem for m in MODELS])
def test_clean_under_sanitizers(model, tmp_path, sanitized_runtime):
    gen = compile_model(model, tmp_path / "gen")
    exe = runner.build(gen, "m", tmp_path, extra_flags=SANITIZE, runtime=sanitized_runtime)
    ref = Reference(model)
    rng = np.random.default_rng(2024)
    for _ in range(3):
        inputs = ref.random_inputs(rng)
        want = ref.run(inputs)
        for mode in ("invoke", "run"):
            done = subprocess.run(
                [str(exe), mode],
                input=b"".join(x.tobytes() for x in inputs),
                capture_output=True,
                env=ENV,
                timeout=300,
            )
            report = done.stderr.decode(errors="replace")
            assert done.returncode == 0 and not report, f"{mode}: exit {done.returncode}\n{report}"
            result = compare(split_outputs(done.stdout, want), want)
            if any(w.dtype.kind != "f" for w in want):
                assert result.exact, f"{mode}: int8 output differs from TFLite Micro"
            assert result.max_rel_error <= FLOAT_RTOL, f"{mode}: {result.max_rel_error:.3g}"
