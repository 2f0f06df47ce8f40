"""Every corpus model (models/) compiles, builds warning-free and matches TFLite Micro; the
ones the compiler does not take yet fail with the error corpus_status.py gives them."""

from __future__ import annotations

import numpy as np
import pytest
from corpus_status import UNSUPPORTED, unsupported_paths
from harness import check_against_tflm, compile_model, tinyaot
from host import runner
from reference import Reference, model_paths

MODELS = model_paths()
UNSUPPORTED_MODELS = unsupported_paths()


def test_corpus_models_present():
    assert len(MODELS) + len(UNSUPPORTED_MODELS) >= 40, "models/ is missing models"
    assert set(UNSUPPORTED) == {m.stem for m in UNSUPPORTED_MODELS}, "a listed model is gone"


def test_unsupported_models_fail_as_listed(tmp_path):
    """One test over the list, not one per model: the list is empty today, and an empty
    parameter set would show as a skip."""
    for model in UNSUPPORTED_MODELS:
        out = tmp_path / model.stem
        done = tinyaot("compile", str(model), "--name", "m", "--output-dir", str(out))
        assert done.returncode != 0, f"{model.stem} compiles now: take it off corpus_status.py"
        assert done.returncode == 2 and done.stderr.count("\n") == 1, done.stderr
        assert done.stderr.startswith("error: " + UNSUPPORTED[model.stem]), done.stderr


@pytest.mark.parametrize("model", MODELS, ids=[m.stem for m in MODELS])
def test_matches_tflite_micro(model, tmp_path):
    result = check_against_tflm(model, tmp_path, sets=3)
    if "float32" not in model.name:
        assert result.exact


@pytest.mark.parametrize("model", MODELS, ids=[m.stem for m in MODELS])
def test_run_with_own_buffers_equals_invoke(model, tmp_path):
    """name_run with separate buffers and a second arena gives invoke's bytes; inputs untouched."""
    gen = compile_model(model, tmp_path / "gen")
    exe = runner.build(gen, "m", tmp_path)
    ref = Reference(model)
    inputs = [x.tobytes() for x in ref.random_inputs(np.random.default_rng(7))]
    pinned = runner.run(exe, inputs, "invoke")
    # The test main exits non-zero if run() changed an input buffer.
    separate = runner.run(exe, inputs, "run")
    assert pinned == separate
