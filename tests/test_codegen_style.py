"""Generated code is clang-format clean (Zephyr style) for every shared model."""

from __future__ import annotations

import shutil
import subprocess

import pytest
from harness import REPO, compile_model
from reference import model_paths

MODELS = model_paths()


@pytest.mark.skipif(shutil.which("clang-format") is None, reason="clang-format not installed")
@pytest.mark.parametrize("model", MODELS, ids=[m.stem for m in MODELS])
def test_generated_code_is_clang_formatted(model, tmp_path):
    out = compile_model(model, tmp_path / "gen", "a_rather_long_model_name")
    shutil.copy(REPO / ".clang-format", out / ".clang-format")
    files = sorted(str(p) for p in out.glob("*.[ch]"))
    done = subprocess.run(
        ["clang-format", "--dry-run", "-Werror", *files], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr[:2000]


@pytest.mark.skipif(shutil.which("clang-format") is None, reason="clang-format not installed")
@pytest.mark.parametrize("inputs", [2, 3, 6])
def test_pointer_list_calls_are_clang_formatted(inputs, tmp_path):
    """CONCATENATION passes its inputs as an array of pointers filled before the call."""
    import tensorflow as tf
    import tfmodels

    model = tmp_path / "concat.tflite"
    model.write_bytes(
        tfmodels.convert(lambda *xs: tf.concat(list(xs), axis=3), [(1, 4, 4, 2)] * inputs, True)
    )
    for name in ("m", "a_rather_long_model_name"):
        out = compile_model(model, tmp_path / name, name)
        shutil.copy(REPO / ".clang-format", out / ".clang-format")
        text = (out / f"{name}.c").read_text()
        assert f"const int8_t *list[{inputs}];" in text
        done = subprocess.run(
            ["clang-format", "--dry-run", "-Werror", str(out / f"{name}.c")],
            capture_output=True,
            text=True,
        )
        assert done.returncode == 0, done.stderr[:2000]


@pytest.mark.skipif(shutil.which("clang-format") is None, reason="clang-format not installed")
@pytest.mark.parametrize(
    "stem,options",
    [("tflm_person_detect_int8", ["--smallest-arena"]), ("mlperf_tiny_kws_dscnn_int8", [])],
)
def test_longest_name_is_clang_formatted(stem, options, tmp_path):
    """With a name of the longest length allowed, the API's declarations and calls no longer
    fit aligned after their parenthesis: they break as clang-format breaks them (an input read
    in place adds a parameter to the body)."""
    model = next(m for m in MODELS if m.stem == stem)
    name = "a_model_name_of_32_characters_xy"
    assert len(name) == 32
    out = compile_model(model, tmp_path / "gen", name, *options)
    shutil.copy(REPO / ".clang-format", out / ".clang-format")
    text = (out / f"{name}.c").read_text()
    assert f"int {name}_run(\n\tconst struct {name}_inputs *inputs," in text
    files = sorted(str(p) for p in out.glob("*.[ch]"))
    done = subprocess.run(
        ["clang-format", "--dry-run", "-Werror", *files], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr[:2000]
