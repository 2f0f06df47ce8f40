"""Every model in ../shared/models compiles, builds warning-free and matches TFLite Micro."""

from __future__ import annotations

import numpy as np
import pytest
from harness import check_against_tflm, compile_model
from host import runner
from reference import Reference, model_paths

MODELS = model_paths()


def test_shared_models_present():
    assert len(MODELS) >= 9, "../shared/models is missing models"


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
