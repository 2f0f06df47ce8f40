"""TFLite Micro's int16x8 seanet layer models (tests/data/seanet): every model there compiles,
and its output on the committed input equals TFLite Micro's and the committed golden output,
byte for byte (but for four goldens the installed TFLite Micro does not reproduce, below).

Every model is compiled in this process and all of them are linked into one host program,
which runs the model named on its command line: one gcc run for the whole folder. A new
op's directory under tests/data/seanet is picked up with nothing else to change.
"""

from __future__ import annotations

import re
import subprocess
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest
from host import runner
from inprocess import compile_model
from reference import Reference

DATA = Path(__file__).resolve().parent / "data" / "seanet"


def natural(path: Path) -> tuple[str, int]:
    """conv2 before conv10."""
    m = re.fullmatch(r"(.*?)(\d+)", path.stem)
    return (path.parent.name, int(m.group(2))) if m else (path.parent.name, -1)


MODELS = sorted(DATA.glob("*/*.tflite"), key=natural)
# Models whose golden file the installed TFLite Micro does not reproduce: it computes
# LEAKY_RELU's multipliers in double, where the version that wrote these goldens divided in
# float, and a few values of each output differ (counts below). Ours must equal TFLite
# Micro's, the interpreter we are exact with; the test pins how many golden values differ.
GOLDEN_DIFFERS = {"leaky_relu3": 3, "leaky_relu11": 1, "leaky_relu18": 1, "leaky_relu19": 1}


@dataclass
class Case:
    inputs: list[np.ndarray]
    golden: np.ndarray


def read_csv(path: Path) -> np.ndarray:
    """One line of comma-separated values; the dtype is the name's last word."""
    dtype = np.dtype(path.stem.rsplit("_", 1)[1])
    return np.array(path.read_text().strip().split(","), dtype=np.int64).astype(dtype)


def case(model: Path) -> Case:
    stem = model.stem
    inputs = sorted(
        model.parent.glob(f"{stem}_input*_*.csv"),
        key=lambda p: int(re.search(r"_input(\d+)_", p.name).group(1)),
    )
    (golden,) = model.parent.glob(f"{stem}_golden_*.csv")
    return Case([read_csv(p) for p in inputs], read_csv(golden))


def c_name(model: Path) -> str:
    return "s_" + model.stem


_MAIN = r"""
#include <stdio.h>
#include <string.h>
{includes}

struct entry {{
	const char *name;
	const struct tinyaot_model_info *info;
	void *(*input)(uint8_t *arena, int index);
	void *(*output)(uint8_t *arena, int index);
	int (*invoke)(uint8_t *arena);
}};

static const struct entry models[] = {{
{entries}
}};

/* argv[1]: the model; stdin: its inputs' bytes in order; stdout: its outputs'. */
int main(int argc, char **argv)
{{
	for (size_t m = 0; argc == 2 && m < sizeof(models) / sizeof(models[0]); m++) {{
		const struct entry *e = &models[m];

		if (strcmp(e->name, argv[1]) != 0) {{
			continue;
		}}
		for (int i = 0; i < e->info->num_inputs; i++) {{
			const size_t size = e->info->inputs[i].size;

			if (fread(e->input(NULL, i), 1, size, stdin) != size) {{
				return 65;
			}}
		}}
		if (e->invoke(NULL) != 0) {{
			return 67;
		}}
		for (int i = 0; i < e->info->num_outputs; i++) {{
			fwrite(e->output(NULL, i), 1, e->info->outputs[i].size, stdout);
		}}
		return 0;
	}}
	return 64;
}}
"""


@dataclass
class Build:
    exe: Path | None
    errors: dict[str, str]  # model name -> why it did not compile


@pytest.fixture(scope="module")
def build(tmp_path_factory) -> Build:
    work = tmp_path_factory.mktemp("seanet")
    gen = work / "gen"
    compiled, errors = [], {}
    for model in MODELS:
        status, err = compile_model(model, gen, time_limit=60.0, name=c_name(model))
        if status == 0:
            compiled.append(c_name(model))
        else:
            errors[c_name(model)] = f"status {status}: {err.strip()}"
    if not compiled:
        return Build(None, errors)
    main = work / "main.c"
    main.write_text(
        _MAIN.format(
            includes="\n".join(f'#include "{n}.h"' for n in compiled),
            entries="\n".join(
                f'\t{{"{n}", &{n}_info, {n}_input_ptr, {n}_output_ptr, {n}_invoke}},'
                for n in compiled
            ),
        )
    )
    exe = work / "seanet_host"
    runner.link([main, *sorted(gen.glob("*.c"))], gen, exe)
    return Build(exe, errors)


def test_every_op_directory_has_models():
    """A directory without models (or with a model lacking its csv files) is a copying slip."""
    assert MODELS
    for d in sorted(p for p in DATA.iterdir() if p.is_dir()):
        models = list(d.glob("*.tflite"))
        assert models, f"{d.name} holds no model"
        for m in models:
            c = case(m)
            assert c.inputs and c.golden.size, m.name


@pytest.mark.parametrize("model", MODELS, ids=lambda p: p.stem)
def test_seanet_model(build, model):
    name = c_name(model)
    assert name not in build.errors, build.errors[name]
    assert build.exe is not None
    c = case(model)
    ref = Reference(model)
    for x, d in zip(c.inputs, ref.inputs, strict=True):
        assert x.dtype == np.dtype(d["dtype"]) and x.size == np.prod(d["shape"]), d
    inputs = [x.reshape(tuple(d["shape"])) for x, d in zip(c.inputs, ref.inputs, strict=True)]
    want = ref.run(inputs)
    assert len(want) == 1, "the golden files hold one output"
    differs = int(np.count_nonzero(want[0].ravel() != c.golden))
    assert differs == GOLDEN_DIFFERS.get(model.stem, 0), (
        f"TFLite Micro differs from the golden file in {differs} values"
    )
    done = subprocess.run(
        [str(build.exe), name], input=b"".join(x.tobytes() for x in inputs), capture_output=True
    )
    assert done.returncode == 0, f"exit status {done.returncode}"
    assert done.stdout == want[0].tobytes()
