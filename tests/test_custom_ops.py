"""Custom ops: a model whose ops are replaced by CUSTOM ops of the same meaning, with kernels
the application supplies (tests/custom/kernels.c), gives what TFLite Micro gives for the
original; an undeclared custom op stops the compile, naming it; a kernel's error comes back."""

from __future__ import annotations

import numpy as np
import pytest
import tfmodels
from harness import compare, compile_model, split_outputs, tinyaot
from host import runner
from opcheck import load, write_model
from reference import Reference

KERNELS = runner.REPO / "tests" / "custom" / "kernels.c"
SHAPE = (1, 3, 4)
SCALE = np.array([0.5, -2.0, 3.0, 1.25], dtype=np.float32)
OPTIONS = b"scale-v1"


def _relu_then_scale(x):
    import tensorflow as tf

    return tf.nn.relu(x) * SCALE


def _customised(data: bytes, options: bytes) -> bytes:
    """The model with its RELU made CUSTOM 'MyRelu' and its MUL CUSTOM 'my-scale'."""
    from tensorflow.lite.python import schema_py_generated as schema
    from tensorflow.lite.tools import flatbuffer_utils

    obj = flatbuffer_utils.convert_bytearray_to_object(bytearray(data))
    codes = {"RELU": ("MyRelu", b""), "MUL": ("my-scale", options)}
    names = {v: k for k, v in vars(schema.BuiltinOperator).items() if not k.startswith("_")}
    for op in obj.subgraphs[0].operators:
        code = obj.operatorCodes[op.opcodeIndex]
        builtin = names[max(code.builtinCode, code.deprecatedBuiltinCode)]
        custom, opts = codes[builtin]
        new = schema.OperatorCodeT()
        new.builtinCode = new.deprecatedBuiltinCode = schema.BuiltinOperator.CUSTOM
        new.customCode = custom
        obj.operatorCodes.append(new)
        op.opcodeIndex = len(obj.operatorCodes) - 1
        op.builtinOptionsType, op.builtinOptions = 0, None
        op.customOptions = list(opts) or None
    return bytes(flatbuffer_utils.convert_object_to_bytearray(obj))


@pytest.fixture(scope="module")
def models(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("custom")
    data = tfmodels.convert(_relu_then_scale, [SHAPE], int8=False)
    original = write_model(data, tmp, "original")
    assert [op.kind for op in load(original).ops] == ["RELU", "MUL"]
    return {
        "original": original,
        "custom": write_model(_customised(data, OPTIONS), tmp, "custom"),
        "bad_options": write_model(_customised(data, b"scale-v2"), tmp, "bad_options"),
    }


def _build(model, tmp_path):
    gen = compile_model(
        model, tmp_path / "gen", "m", "--custom-op", "MyRelu", "--custom-op", "my-scale"
    )
    return gen, runner.build(gen, "m", tmp_path, (str(KERNELS),))


def test_custom_kernels_give_the_original_models_outputs(models, tmp_path):
    graph = load(models["custom"])
    assert [op.kind for op in graph.ops] == ["MyRelu", "my-scale"]
    assert graph.ops[1].options["custom_options"] == OPTIONS
    gen, exe = _build(models["custom"], tmp_path)
    header = (gen / "m.h").read_text()
    assert "int tinyaot_custom_MyRelu(const struct tinyaot_custom_call *call);" in header
    assert "int tinyaot_custom_my_scale(const struct tinyaot_custom_call *call);" in header
    ref = Reference(models["original"])
    rng = np.random.default_rng(5)
    for mode in ("invoke", "run"):
        inputs = ref.random_inputs(rng)
        want = ref.run(inputs)
        got = split_outputs(runner.run(exe, [x.tobytes() for x in inputs], mode), want)
        assert compare(got, want).exact
        assert np.any(want[0] == 0) and np.any(want[0] != 0)


def test_a_kernels_error_is_what_invoke_returns(models, tmp_path):
    _, exe = _build(models["bad_options"], tmp_path)
    with pytest.raises(RuntimeError, match="exited with 67"):
        runner.run(exe, [np.ones(SHAPE, np.float32).tobytes()])


def test_undeclared_custom_op_is_one_error_line(models, tmp_path):
    out = tmp_path / "out"
    done = tinyaot(
        "compile",
        str(models["custom"]),
        "--name",
        "m",
        "--custom-op",
        "MyRelu",
        "--output-dir",
        str(out),
    )
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and not out.exists()
    assert done.stderr.startswith("error: op 1 is the custom op 'my-scale'")
    assert "--custom-op my-scale" in done.stderr
    assert "int tinyaot_custom_my_scale(const struct tinyaot_custom_call *call)" in done.stderr


def test_custom_op_names_that_collide_in_c_are_refused(models, tmp_path):
    done = tinyaot(
        "compile",
        str(models["custom"]),
        "--custom-op",
        "my-scale",
        "--custom-op",
        "my.scale",
        "--output-dir",
        str(tmp_path / "o"),
    )
    assert done.returncode == 2
    assert "would both need the C function tinyaot_custom_my_scale" in done.stderr


CMAKE_PROJECT = """cmake_minimum_required(VERSION 3.20)
project(custom_ops LANGUAGES C)
include({repo}/cmake/tinyaot.cmake)
set(CMAKE_C_STANDARD 99)
add_compile_options(-Wall -Wextra -Werror)
add_executable(app main.c {kernels})
tinyaot_add_model(app MODEL {model} NAME m {custom})
"""

CMAKE_MAIN = r"""#include <stdio.h>
#include <string.h>
#include "m.h"

/* stdin: the input bytes; stdout: the output bytes. */
int main(void)
{
	uint8_t *in = m_input_ptr(NULL, 0);

	if (fread(in, 1, m_info.inputs[0].size, stdin) != m_info.inputs[0].size) {
		return 2;
	}
	if (m_invoke(NULL) != 0) {
		return 3;
	}
	fwrite(m_output_ptr(NULL, 0), 1, m_info.outputs[0].size, stdout);
	return 0;
}
"""


def _cmake(tmp_path, model, custom):
    import shutil
    import subprocess
    import sys

    if not (shutil.which("cmake") and shutil.which("ninja")):
        pytest.skip("cmake and ninja are needed for the CMake project")
    src = tmp_path / "src"
    src.mkdir()
    (src / "main.c").write_text(CMAKE_MAIN)
    (src / "CMakeLists.txt").write_text(
        CMAKE_PROJECT.format(repo=runner.REPO, kernels=KERNELS, model=model, custom=custom)
    )
    build = tmp_path / "build"
    steps = [
        [
            "cmake",
            "-G",
            "Ninja",
            "-S",
            str(src),
            "-B",
            str(build),
            f"-DPython3_EXECUTABLE={sys.executable}",
        ],
        ["cmake", "--build", str(build)],
    ]
    for cmd in steps:
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
        if done.returncode != 0:
            return done, build
    return done, build


def test_cmake_custom_ops_links_the_applications_kernels(models, tmp_path):
    import subprocess

    done, build = _cmake(tmp_path, models["custom"], "CUSTOM_OPS MyRelu my-scale")
    assert done.returncode == 0, done.stdout + done.stderr
    ref = Reference(models["original"])
    x = ref.random_inputs(np.random.default_rng(9))
    run = subprocess.run([str(build / "app")], input=x[0].tobytes(), capture_output=True)
    assert run.returncode == 0
    want = ref.run(x)
    assert compare(split_outputs(run.stdout, want), want).exact


def test_cmake_undeclared_custom_op_stops_the_build(models, tmp_path):
    done, _ = _cmake(tmp_path, models["custom"], "CUSTOM_OPS MyRelu")
    assert done.returncode != 0
    assert "error: op 1 is the custom op 'my-scale'" in done.stdout + done.stderr
