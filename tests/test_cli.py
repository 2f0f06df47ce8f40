"""The compiler's front door: bad input gives one `error:` line, exit 2 and no files;
good input gives the same bytes every time."""

from __future__ import annotations

import shutil

import pytest
import tfmodels
from harness import REPO, check_against_tflm, compile_model, tinyaot
from reference import MODELS

KWS = MODELS / "mlperf_tiny_kws_dscnn_int8.tflite"


def tf_model(tmp_path_factory, name, fn, shapes, int8=False):
    import tensorflow as tf  # noqa: F401 - fn bodies use it

    path = tmp_path_factory.mktemp("bad") / f"{name}.tflite"
    path.write_bytes(tfmodels.convert(fn, shapes, int8))
    return path


@pytest.fixture(scope="module")
def bad_models(tmp_path_factory):
    import tensorflow as tf

    models = {
        # TFLite Micro has no SIGN kernel (tinyaot.tflm_ops), so neither will the compiler.
        "sign": tf_model(tmp_path_factory, "sign", lambda x: tf.math.sign(x), [(1, 8)]),
        "cond": tf_model(
            tmp_path_factory,
            "cond",
            lambda x: tf.cond(tf.reduce_sum(x) > 0, lambda: x * 2, lambda: x * 3),
            [(1, 8)],
        ),
    }
    float64 = tmp_path_factory.mktemp("bad") / "float64.tflite"
    float64.write_bytes(
        tfmodels.retype_tensor(tfmodels.convert(lambda x: x * 2.0, [(1, 8)], False), 0, "FLOAT64")
    )
    models["float64"] = float64
    truncated = tmp_path_factory.mktemp("bad") / "truncated.tflite"
    truncated.write_bytes(KWS.read_bytes()[:3000])
    models["truncated"] = truncated
    models["not_tflite"] = REPO / "pyproject.toml"
    models["missing"] = REPO / "no_such_model.tflite"
    return models


EXPECTED = {
    "missing": "cannot read model file",
    "not_tflite": "is not a TensorFlow Lite model",
    "truncated": "damaged or truncated",
    "sign": "op 0 (SIGN) writing tensor 1 'Identity' is not supported; supported ops: ",
    "float64": "op 0 (MUL), tensor 0 'x': dtype FLOAT64 is not supported",
    "cond": "the model has 3 subgraphs",
}


@pytest.mark.parametrize("case", sorted(EXPECTED))
def test_bad_input_is_one_error_line(case, bad_models, tmp_path):
    out = tmp_path / "out"
    done = tinyaot("compile", str(bad_models[case]), "--name", "m", "--output-dir", str(out))
    assert done.returncode == 2
    lines = done.stderr.splitlines()
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith("error: ") and EXPECTED[case] in lines[0], lines[0]
    assert "Traceback" not in done.stderr
    assert not out.exists(), "a failed compile left an output directory"


def test_failed_compile_leaves_existing_directory_untouched(bad_models, tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    (out / "keep.txt").write_text("mine")
    done = tinyaot("compile", str(bad_models["sign"]), "--output-dir", str(out))
    assert done.returncode == 2
    assert sorted(p.name for p in out.iterdir()) == ["keep.txt"]


@pytest.mark.parametrize("name", ["1abc", "int", "has-dash", "", "x" * 33])
def test_invalid_model_name(name, tmp_path):
    done = tinyaot("compile", str(KWS), "--name", name, "--output-dir", str(tmp_path / "o"))
    assert done.returncode == 2
    assert done.stderr.startswith("error: model name") and done.stderr.count("\n") == 1


def test_bad_option_is_one_error_line(tmp_path):
    done = tinyaot("compile", str(KWS), "--output-dir", str(tmp_path), "--arena-alignment", "x")
    assert done.returncode == 2
    assert done.stderr.startswith("error: argument --arena-alignment")
    assert done.stderr.count("\n") == 1


def test_arena_budget(tmp_path):
    done = tinyaot(
        "compile",
        str(KWS),
        "--name",
        "kws",
        "--output-dir",
        str(tmp_path / "o"),
        "--arena-budget",
        "1000",
    )
    assert done.returncode == 2
    assert "model 'kws' needs an arena of" in done.stderr and "budget of 1000 bytes" in done.stderr
    assert not (tmp_path / "o").exists()


def test_reproducible_output(tmp_path):
    """Same model and options: byte-identical files, whatever the directory or hash seed."""
    a, b = tmp_path / "a", tmp_path / "b"
    first = tinyaot(
        "compile", str(KWS), "--name", "kws", "--output-dir", str(a), env={"PYTHONHASHSEED": "1"}
    )
    work = tmp_path / "elsewhere"
    work.mkdir()
    shutil.copy(KWS, work / KWS.name)
    second = tinyaot(
        "compile",
        KWS.name,
        "--name",
        "kws",
        "--output-dir",
        str(b),
        cwd=work,
        env={"PYTHONHASHSEED": "2"},
    )
    assert first.returncode == 0 and second.returncode == 0
    files = sorted(p.name for p in a.iterdir())
    assert files == ["kws.c", "kws.h"]
    assert all((a / f).stat().st_mode & 0o644 == 0o644 for f in files), "not world-readable"
    for f in files:
        assert (a / f).read_bytes() == (b / f).read_bytes(), f
        text = (a / f).read_text()
        assert str(tmp_path) not in text and str(REPO) not in text


def test_ops_lists_every_required_op():
    done = tinyaot("ops", "--markdown")
    assert done.returncode == 0
    cells = [line.split("|")[1:-1] for line in done.stdout.splitlines()[2:]]
    # A converting op lists its signatures as "in->out"; what it takes is the input dtype.
    listed = {c[0].strip(): {d.split("->")[0] for d in c[1].strip().split(", ")} for c in cells}
    for op in [
        "CONV_2D",
        "DEPTHWISE_CONV_2D",
        "FULLY_CONNECTED",
        "ADD",
        "AVERAGE_POOL_2D",
        "MAX_POOL_2D",
        "RESHAPE",
        "SOFTMAX",
    ]:
        assert {"int8", "float32"} <= listed[op], op


def test_summary_line(tmp_path):
    done = tinyaot("compile", str(KWS), "--name", "kws", "--output-dir", str(tmp_path))
    assert done.returncode == 0
    assert done.stdout.startswith("tinyaot: kws: arena ") and "2656768 MACs" in done.stdout


def test_open_inner_dimension_takes_the_stored_shape(tmp_path):
    # A converter marks a free dimension -1 in the signature and stores 1 in the shape;
    # TFLite Micro runs the stored shape, and so does the compiled model.
    model = tmp_path / "open.tflite"
    model.write_bytes(tfmodels.convert(lambda x: x * 2 + 1, [(1, None, 3)], False))
    check_against_tflm(model, tmp_path)
    source = (compile_model(model, tmp_path / "gen") / "m.c").read_text()
    assert "m_input0_shape[3] = {1, 1, 3};" in source


OPS_TABLE_START = "<!-- `python3 -m tinyaot ops --markdown` writes this table -->\n"
OPS_TABLE_END = "<!-- end of the op table -->\n"


def test_readme_op_table_is_the_compilers():
    """README's op table is what `tinyaot ops --markdown` prints, so it cannot drift from the
    op files; after adding an op, paste the command's output between the markers."""
    readme = (REPO / "README.md").read_text()
    start = readme.index(OPS_TABLE_START) + len(OPS_TABLE_START)
    table = readme[start : readme.index(OPS_TABLE_END)]
    done = tinyaot("ops", "--markdown")
    assert done.returncode == 0
    assert table == done.stdout, (
        "README's op table is stale: run `python3 -m tinyaot ops --markdown`"
    )
    assert "| CONV_2D | int8, int16, float32" in table


def test_ops_lists_tflite_micro_ops_it_lacks():
    done = tinyaot("ops", "--markdown")
    cells = [line.split("|")[1:-1] for line in done.stdout.splitlines()[2:]]
    rows = {c[0].strip(): [x.strip() for x in c[1:3]] for c in cells}
    # In TFLite Micro, with no kernel here: the row says so rather than leaving it out.
    assert rows["WHILE"] == ["-", "yes"]
    assert rows["CONV_2D"][0].startswith("int8, int16, float32") and rows["CONV_2D"][1] == "yes"
    assert "SIGN" not in rows
