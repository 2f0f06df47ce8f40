"""<name>_info field by field against the .tflite, run() in the pinned arena, a build without
the argument checks, the arena's and the weights' linker sections, and `tinyaot report` (text,
SVG and JSON).

The expected values come from the .tflite read with the `tflite` package and from the built
program's symbol table, not from the compiler's own numbers.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import xml.etree.ElementTree as ET
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest
import tflite
from closeness import outputs_match
from harness import (
    REPO,
    c_name,
    compile_model,
    linked_code,
    split_outputs,
    symbol_sizes,
    tinyaot,
)
from host import runner
from reference import Reference, model_paths
from tinyaot.runtime_sources import runtime_sources

MODELS = model_paths()
CRT = REPO / "crt"
BUILTIN = {v: k for k, v in vars(tflite.BuiltinOperator).items() if not k.startswith("_")}
# tflite.TensorType -> enum tinyaot_dtype (crt/include/tinyaot/tinyaot.h).
DTYPES = {
    tflite.TensorType.FLOAT32: (0, np.float32),
    tflite.TensorType.INT8: (1, np.int8),
    tflite.TensorType.UINT8: (2, np.uint8),
    tflite.TensorType.INT16: (3, np.int16),
    tflite.TensorType.INT32: (4, np.int32),
    tflite.TensorType.INT64: (5, np.int64),
    tflite.TensorType.BOOL: (6, np.bool_),
    # Inside the audio front end only: never a port, so no code in tinyaot_dtype.
    tflite.TensorType.UINT16: (None, np.uint16),
    tflite.TensorType.UINT32: (None, np.uint32),
    tflite.TensorType.UINT64: (None, np.uint64),
}

# argv[1] "info": every field of <name>_info and the header's macros, one per line, a tensor's
# name last on its line. "run": the inputs from stdin through <name>_run(..., NULL), the
# pinned arena, with separate output buffers; the outputs to stdout.
MAIN = r"""
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "{name}.h"

static void print_tensors(const char *what, int n, const struct tinyaot_tensor_info *t)
{{
	for (int i = 0; i < n; i++) {{
		printf("%s %d %d %d %zu %.9g %d ", what, i, (int)t[i].dtype, (int)t[i].ndim,
		       t[i].size, (double)t[i].scale, (int)t[i].zero_point);
		for (int d = 0; d < t[i].ndim; d++) {{
			printf("%s%d", d ? "," : "", (int)t[i].shape[d]);
		}}
		printf(" %s\n", t[i].name);
	}}
}}

int main(int argc, char **argv)
{{
	const struct tinyaot_model_info *info = &{name}_info;
	void *in[{NAME}_NUM_INPUTS], *out[{NAME}_NUM_OUTPUTS];

	if (argc == 2 && strcmp(argv[1], "info") == 0) {{
		printf("name %s\n", info->name);
		printf("arena_size %zu %d\n", info->arena_size, (int){NAME}_ARENA_SIZE);
		printf("arena_alignment %zu %d\n", info->arena_alignment,
		       (int){NAME}_ARENA_ALIGNMENT);
		printf("weights_size %zu\n", info->weights_size);
		printf("num_inputs %d %d\n", (int)info->num_inputs, (int){NAME}_NUM_INPUTS);
		printf("num_outputs %d %d\n", (int)info->num_outputs, (int){NAME}_NUM_OUTPUTS);
		printf("num_ops %d\n", (int)info->num_ops);
		printf("macs %" PRIu64 "\n", info->macs);
		print_tensors("input", info->num_inputs, info->inputs);
		print_tensors("output", info->num_outputs, info->outputs);
		return 0;
	}}
	for (int i = 0; i < {NAME}_NUM_INPUTS; i++) {{
		in[i] = malloc(info->inputs[i].size);
		if (fread(in[i], 1, info->inputs[i].size, stdin) != info->inputs[i].size) {{
			return 65;
		}}
	}}
	for (int i = 0; i < {NAME}_NUM_OUTPUTS; i++) {{
		out[i] = malloc(info->outputs[i].size);
	}}
	struct {name}_inputs ins = {{{in_fields}}};
	struct {name}_outputs outs;

	{out_assign}
	if ({name}_run(&ins, &outs, NULL) != 0) {{
		return 67;
	}}
	for (int i = 0; i < {NAME}_NUM_OUTPUTS; i++) {{
		fwrite(out[i], 1, info->outputs[i].size, stdout);
	}}
	return 0;
}}
"""


CFLAGS = ("-std=c99", "-O2", "-Wall", "-Wextra", "-Werror")


def runtime(out: Path, *flags: str) -> list[Path]:
    """crt/src compiled once with these flags, for every program built with them."""
    out.mkdir(parents=True, exist_ok=True)
    objects = []
    for source in runtime_sources():
        obj = out / f"{source.stem}.o"
        cmd = ["gcc", *CFLAGS, *flags, "-I", str(CRT / "include"), "-c", str(source)]
        subprocess.run([*cmd, "-o", str(obj)], check=True)
        objects.append(obj)
    return objects


def build(gen: Path, name: str, exe: Path, crt: list[Path], *flags: str) -> Path:
    header = (gen / f"{name}.h").read_text()
    ins = runner.struct_fields(header, name, "inputs")
    outs = runner.struct_fields(header, name, "outputs")
    main = exe.with_suffix(".c")
    main.write_text(
        MAIN.format(
            name=name,
            NAME=name.upper(),
            in_fields=", ".join(f"({t} *)in[{i}]" for i, (t, _) in enumerate(ins)),
            out_assign=" ".join(f"outs.{f} = ({t} *)out[{i}];" for i, (t, f) in enumerate(outs)),
        )
    )
    sources = [main, gen / f"{name}.c", *crt]
    cmd = ["gcc", *CFLAGS, *flags, "-I", str(gen), "-I", str(CRT / "include")]
    cmd += [*map(str, sources), "-o", str(exe)]
    done = subprocess.run(cmd, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return exe


@dataclass
class TensorInfo:
    dtype: int
    ndim: int
    size: int
    scale: np.float32
    zero_point: int
    shape: list[int]
    name: str


def read_info(exe: Path) -> tuple[dict[str, list[str]], list[TensorInfo], list[TensorInfo]]:
    lines = subprocess.run([str(exe), "info"], capture_output=True, text=True, check=True).stdout
    fields: dict[str, list[str]] = {}
    ports: dict[str, list[TensorInfo]] = {"input": [], "output": []}
    for line in lines.splitlines():
        key, rest = line.split(" ", 1)
        if key in ports:
            index, dtype, ndim, size, scale, zero, shape, name = rest.split(" ", 7)
            assert int(index) == len(ports[key])
            dims = [int(d) for d in shape.split(",")] if shape else []
            t = TensorInfo(
                int(dtype), int(ndim), int(size), np.float32(scale), int(zero), dims, name
            )
            ports[key].append(t)
        else:
            fields[key] = rest.split(" ")
    return fields, ports["input"], ports["output"]


class TfliteModel:
    """What the .tflite itself says, read with the flatbuffer bindings."""

    def __init__(self, path: Path) -> None:
        self.model = tflite.Model.GetRootAsModel(path.read_bytes(), 0)
        self.graph = self.model.Subgraphs(0)

    def tensor(self, index: int) -> tflite.Tensor:
        return self.graph.Tensors(index)

    def nbytes(self, index: int) -> int:
        t = self.tensor(index)
        return (
            int(np.prod(t.ShapeAsNumpy(), dtype=np.int64)) * np.dtype(DTYPES[t.Type()][1]).itemsize
        )

    def ops(self) -> list[str]:
        out = []
        for i in range(self.graph.OperatorsLength()):
            code = self.model.OperatorCodes(self.graph.Operators(i).OpcodeIndex())
            name = BUILTIN[max(code.BuiltinCode(), code.DeprecatedBuiltinCode())]
            # A custom op goes by its custom code (the signal library's SignalWindow, ...).
            out.append(code.CustomCode().decode() if name == "CUSTOM" else name)
        return out

    def macs(self) -> int:
        """Multiply-accumulates of CONV_2D, DEPTHWISE_CONV_2D and FULLY_CONNECTED (each
        output element takes one per weight of its filter window), SVDF (each filter one
        per input feature and one per memory slot) and UNIDIRECTIONAL_SEQUENCE_LSTM (each
        of the four gates one per input feature and one per unit, per step of each
        sequence)."""
        return sum(self.op_macs(i) or 0 for i in range(self.graph.OperatorsLength()))

    def op_macs(self, index: int) -> int | None:
        """The op's MACs by the formula above; None for other ops."""
        kind = self.ops()[index]
        op = self.graph.Operators(index)
        outputs = int(np.prod(self.tensor(op.Outputs(0)).ShapeAsNumpy(), dtype=np.int64))
        w = self.tensor(op.Inputs(1)).ShapeAsNumpy() if op.InputsLength() > 1 else None
        if kind == "CONV_2D":  # weights [out, kh, kw, in]
            return outputs * int(w[1] * w[2] * w[3])
        if kind == "DEPTHWISE_CONV_2D":  # weights [1, kh, kw, channels]
            return outputs * int(w[1] * w[2])
        if kind == "FULLY_CONNECTED":  # weights [units, depth]
            return outputs * int(w[-1])
        if kind == "SVDF":  # feature weights [filters, input], time weights [filters, memory]
            batches = int(self.tensor(op.Inputs(0)).ShapeAsNumpy()[0])
            time = self.tensor(op.Inputs(2)).ShapeAsNumpy()
            return batches * int(w[0]) * int(w[1] + time[1])
        if kind == "UNIDIRECTIONAL_SEQUENCE_LSTM":  # input-to-forget weights [units, input]
            steps = int(np.prod(self.tensor(op.Inputs(0)).ShapeAsNumpy()[:-1]))
            units, size = map(int, self.tensor(op.Inputs(2)).ShapeAsNumpy())
            return steps * 4 * units * (size + units)
        return None

    def ports(self, which: str) -> list[int]:
        get = self.graph.Inputs if which == "input" else self.graph.Outputs
        count = self.graph.InputsLength() if which == "input" else self.graph.OutputsLength()
        return [get(i) for i in range(count)]


@pytest.fixture(scope="module")
def programs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[Path, Path, Path]]:
    """Per model: generated folder, the program, and the same built -DTINYAOT_NO_ARG_CHECKS."""
    root = tmp_path_factory.mktemp("info")
    lean_flag = "-DTINYAOT_NO_ARG_CHECKS"
    crt, lean_crt = runtime(root / "crt"), runtime(root / "crt_lean", lean_flag)

    def make(model: Path) -> tuple[Path, Path, Path]:
        name = c_name(model)
        gen = compile_model(model, root / model.stem / "gen", name, "--quiet")
        plain = build(gen, name, root / model.stem / "info", crt)
        lean = build(gen, name, root / model.stem / "lean", lean_crt, lean_flag)
        return gen, plain, lean

    with ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
        return dict(zip((m.stem for m in MODELS), pool.map(make, MODELS), strict=True))


@pytest.mark.parametrize("model", MODELS, ids=[m.stem for m in MODELS])
def test_info_matches_the_tflite(programs, model: Path) -> None:
    _, exe, _ = programs[model.stem]
    fields, inputs, outputs = read_info(exe)
    tfl = TfliteModel(model)
    name = c_name(model)
    assert fields["name"] == [name]
    arena, header_arena = map(int, fields["arena_size"])
    assert arena == header_arena
    assert list(map(int, fields["arena_alignment"])) == [16, 16]  # the compiler's default
    assert fields["num_inputs"] == [str(len(tfl.ports("input")))] * 2
    assert fields["num_outputs"] == [str(len(tfl.ports("output")))] * 2
    assert int(fields["num_ops"][0]) == tfl.graph.OperatorsLength()
    assert int(fields["macs"][0]) == tfl.macs()

    for which, got in (("input", inputs), ("output", outputs)):
        for info, index in zip(got, tfl.ports(which), strict=True):
            t = tfl.tensor(index)
            q = t.Quantization()
            scaled = q is not None and q.ScaleLength() > 0
            assert info.name == (t.Name() or b"").decode()
            assert info.dtype == DTYPES[t.Type()][0]
            assert info.shape == list(t.ShapeAsNumpy()) and info.ndim == len(info.shape)
            assert info.size == tfl.nbytes(index)
            assert info.scale == (np.float32(q.Scale(0)) if scaled else 0)
            assert info.zero_point == (int(q.ZeroPoint(0)) if scaled else 0)
    # Every input is live before the first op and every output after the last.
    assert arena >= sum(t.size for t in inputs) and arena >= sum(t.size for t in outputs)

    # The weights the program links: the model's tensors and the generated tables.
    symbols = symbol_sizes(exe)
    weights = [size for s, (_, size) in symbols.items() if re.fullmatch(rf"{name}_[wc]\d+", s)]
    assert int(fields["weights_size"][0]) == sum(weights)
    assert symbols[f"{name}_arena"][1] == arena


@pytest.mark.parametrize("model", MODELS, ids=[m.stem for m in MODELS])
def test_run_in_pinned_arena_and_without_arg_checks(programs, model: Path) -> None:
    """<name>_run(..., NULL) gives TFLM's outputs, with the argument checks and without."""
    _, plain, lean = programs[model.stem]
    ref = Reference(model)
    rng = np.random.default_rng(11)
    for _ in range(2):
        inputs = ref.random_inputs(rng)
        want = ref.run(inputs)
        for exe in (plain, lean):
            raw = runner.run(exe, [x.tobytes() for x in inputs], "run")
            assert outputs_match(split_outputs(raw, want), want), exe.name


def test_alignment_option_reaches_info(tmp_path: Path) -> None:
    model = next(m for m in MODELS if m.stem == "tflm_hello_world_int8")
    gen = compile_model(model, tmp_path / "gen", "hw", "--arena-alignment", "64")
    fields, _, _ = read_info(build(gen, "hw", tmp_path / "info", runtime(tmp_path / "crt")))
    assert list(map(int, fields["arena_alignment"])) == [64, 64]


def test_arena_and_weights_sections_in_the_object(tmp_path: Path) -> None:
    """The arena and the constants land in the named sections of the object and of the linked
    program, and in .bss and .rodata without the options."""
    model = next(m for m in MODELS if m.stem == "mlperf_tiny_kws_dscnn_int8")
    options = ("--arena-section", ".tinyaot_arena", "--weights-section", ".tinyaot_weights")
    gen = compile_model(model, tmp_path / "gen", "kws", *options)
    obj = tmp_path / "kws.o"
    cmd = ["gcc", "-std=c99", "-c", "-I", str(gen), "-I", str(CRT / "include")]
    subprocess.run([*cmd, str(gen / "kws.c"), "-o", str(obj)], check=True)
    header = (gen / "kws.h").read_text()
    arena = int(re.search(r"#define KWS_ARENA_SIZE\s+(\d+)", header)[1])
    crt = runtime(tmp_path / "crt")
    for binary in (obj, build(gen, "kws", tmp_path / "kws", crt)):
        symbols = symbol_sizes(binary)
        assert symbols["kws_arena"] == (".tinyaot_arena", arena), binary.name
        weights = {s: v for s, v in symbols.items() if re.fullmatch(r"kws_[wc]\d+", s)}
        assert weights and {v[0] for v in weights.values()} == {".tinyaot_weights"}
    fields, _, _ = read_info(tmp_path / "kws")
    assert sum(size for _, size in weights.values()) == int(fields["weights_size"][0])
    plain = compile_model(model, tmp_path / "plain", "kws")
    symbols = symbol_sizes(build(plain, "kws", tmp_path / "plain_kws", crt))
    assert symbols["kws_arena"][0] == ".bss"
    assert {symbols[s][0] for s in weights} == {".rodata"}


def test_one_section_for_arena_and_weights_is_refused() -> None:
    model = next(m for m in MODELS if m.stem == "tflm_hello_world_int8")
    done = tinyaot("compile", str(model), "--output-dir", "unused", "--arena-section", ".x",
                   "--weights-section", ".x")  # fmt: skip
    assert done.returncode == 2
    assert done.stderr.startswith("error: --weights-section and --arena-section are both '.x'")


def parse_report(text: str) -> tuple[list[list[str]], list[tuple[int, int, int, int, int]], dict]:
    """The ops rows, the arena tensor rows (tensor, bytes, start, end, offset) and the totals."""
    ops, tensors, totals = [], [], {}
    section = None
    for line in text.splitlines():
        if line == "ops:" or line.startswith("arena tensors"):
            section = line.split()[0]
        elif m := re.match(r"^(arena|weights|MACs):\s+(\d+)", line):
            totals[m[1]] = int(m[2])
        elif section == "ops:" and re.match(r"^\s+\d+\s", line):
            ops.append(line.split())
        elif section == "arena" and (
            m := re.match(r"^\s+(\d+)\s+(\d+)\s+(-?\d+)\.\.(\d+)\s+(\d+)\s", line)
        ):
            tensors.append(tuple(int(g) for g in m.groups()))
    return ops, tensors, totals


@pytest.mark.parametrize("model", MODELS, ids=[m.stem for m in MODELS])
def test_report_text_and_svg(programs, model: Path, tmp_path: Path) -> None:
    gen, exe, _ = programs[model.stem]
    fields, _, _ = read_info(exe)
    tfl = TfliteModel(model)
    svg = tmp_path / "arena.svg"
    done = tinyaot("report", str(model), "--svg", str(svg))
    assert done.returncode == 0, done.stderr
    ops, tensors, totals = parse_report(done.stdout)

    header = (gen / f"{c_name(model)}.h").read_text()
    assert totals["arena"] == int(re.search(r"_ARENA_SIZE\s+(\d+)", header)[1])
    assert totals["weights"] == int(fields["weights_size"][0])
    assert totals["MACs"] == tfl.macs() == sum(int(row[-1]) for row in ops)
    assert [int(row[0]) for row in ops] == list(range(tfl.graph.OperatorsLength()))
    assert [row[1] for row in ops] == tfl.ops()
    assert tensors, "no arena tensors"
    for tensor, size, _, _, offset in tensors:
        # Past the model's tensors come the kernels' scratch buffers, sized by the compiler.
        if tensor < tfl.graph.TensorsLength():
            assert size == tfl.nbytes(tensor)
        assert offset + size <= totals["arena"]

    # One rectangle per arena tensor, each titled with the same figures as the table.
    root = ET.parse(svg).getroot()
    ns = "{http://www.w3.org/2000/svg}"
    titles = [
        r.find(f"{ns}title").text
        for r in root.iter(f"{ns}rect")
        if r.find(f"{ns}title") is not None
    ]
    drawn = []
    for title in titles:
        m = re.match(r"tensor (\d+) .*: (\d+) B at (\d+), steps (-?\d+)\.\.(\d+)$", title)
        assert m, title
        t, size, offset, start, end = map(int, m.groups())
        drawn.append((t, size, start, end, offset))
    assert sorted(drawn) == sorted(tensors)


# The JSON report's keys, in their order (doc/index.rst, "Reports as data").
REPORT_KEYS = {
    "": ["schema", "model", "inputs", "outputs", "ops", "arena", "state", "weights", "code",
         "patch_stage", "patch_stages"],
    "model": ["name", "source", "macs"],
    "port": ["tensor", "name", "dtype", "shape", "bytes", "quantization", "in_place"],
    "quantization": ["scale", "zero_point", "axis"],
    "op": ["index", "op", "kernel", "output_shape", "macs"],
    "arena": ["bytes", "alignment", "section", "shared_pool", "tensors"],
    "tensor": ["tensor", "name", "bytes", "offset", "first_step", "last_step"],
    "state": ["bytes"],
    "weights": ["bytes", "section", "dsp_bytes", "mve_bytes"],
    "code": ["bytes", "model", "runtime", "source", "image"],
    "patch_stage": ["first_step", "last_step", "layers", "stripes", "output_shape",
                    "extra_macs", "kept_bytes", "arena_without"],
}  # fmt: skip
# Float and int8 I/O, int16, several inputs, several outputs, variable tensors, resource
# variables: one model each keeps the test cheap (a report compiles the model again).
JSON_MODELS = [
    "arm_kws_ds_cnn_s_int8",
    "mlperf_tiny_kws_dscnn_int8",
    "tflm_keyword_scrambled_svdf_int16",
    "tflm_simple_add",
    "efinix_yolo_person_detect_int8",
    "mww_vad_int8",
]
TYPE_NAMES = {v: k.lower() for k, v in vars(tflite.TensorType).items() if not k.startswith("_")}


@pytest.mark.parametrize("stem", JSON_MODELS)
def test_report_json(programs, stem: str) -> None:
    """`tinyaot report --json --elf` against the .tflite and the linked program."""
    model = next(m for m in MODELS if m.stem == stem)
    name = c_name(model)
    gen, exe, _ = programs[stem]
    fields, _, _ = read_info(exe)
    done = tinyaot("report", str(model), "--name", name, "--json", "--elf", str(exe))
    assert done.returncode == 0, done.stderr
    got = json.loads(done.stdout)
    tfl = TfliteModel(model)

    assert list(got) == REPORT_KEYS[""] and got["schema"] == "tinyaot-report/1"
    assert list(got["model"]) == REPORT_KEYS["model"]
    assert got["model"] == {"name": name, "source": model.name, "macs": int(fields["macs"][0])}
    for which in ("input", "output"):
        ports = got[f"{which}s"]
        assert [p["tensor"] for p in ports] == tfl.ports(which)
        for port in ports:
            assert list(port) == REPORT_KEYS["port"]
            t = tfl.tensor(port["tensor"])
            assert port["name"] == (t.Name() or b"").decode()
            assert port["dtype"] == TYPE_NAMES[t.Type()]
            assert port["shape"] == t.ShapeAsNumpy().tolist()
            assert port["bytes"] == tfl.nbytes(port["tensor"])
            q = t.Quantization()
            if q is None or q.ScaleLength() == 0:
                assert port["quantization"] is None
            else:
                assert list(port["quantization"]) == REPORT_KEYS["quantization"]
                assert port["quantization"]["scale"] == q.ScaleAsNumpy().tolist()
                assert port["quantization"]["zero_point"] == q.ZeroPointAsNumpy().tolist()
                assert port["quantization"]["axis"] == q.QuantizedDimension()

    assert [list(op) for op in got["ops"]] == [REPORT_KEYS["op"]] * len(got["ops"])
    assert [op["index"] for op in got["ops"]] == list(range(tfl.graph.OperatorsLength()))
    assert [op["op"] for op in got["ops"]] == tfl.ops()
    assert sum(op["macs"] for op in got["ops"]) == got["model"]["macs"]
    for op in got["ops"]:
        if tfl.op_macs(op["index"]) is not None:
            assert op["macs"] == tfl.op_macs(op["index"]), op
        outputs = tfl.graph.Operators(op["index"]).OutputsAsNumpy()
        if op["output_shape"] is not None:
            assert op["output_shape"] == tfl.tensor(int(outputs[0])).ShapeAsNumpy().tolist()

    header = (gen / f"{name}.h").read_text()
    arena = got["arena"]
    assert list(arena) == REPORT_KEYS["arena"]
    assert arena["bytes"] == int(re.search(r"_ARENA_SIZE\s+(\d+)", header)[1])
    assert (arena["alignment"], arena["section"], arena["shared_pool"]) == (16, None, None)
    for t in arena["tensors"]:
        assert list(t) == REPORT_KEYS["tensor"]
        assert t["offset"] + t["bytes"] <= arena["bytes"]
        if t["tensor"] < tfl.graph.TensorsLength():
            assert t["bytes"] == tfl.nbytes(t["tensor"])
        else:
            # One the compiler made, a kernel's scratch: named for its op, held by its step.
            assert re.fullmatch(r".+ \(op \d+\)", t["name"]), t
            assert t["first_step"] == t["last_step"] and t["bytes"] > 0, t
    assert got["state"] == {"bytes": int(re.search(r"_STATE_SIZE\s+(\d+)", header)[1])}
    # The generated info's weights_size per core: the first value whose #if holds for a core
    # with the DSP kernels and an FPU, then for one with Helium's too.
    sizes = re.findall(
        r"^(?:#(?:el)?if (.*)\n|#else\n)?\t\.weights_size = (\d+),",
        (gen / f"{name}.c").read_text(),
        re.M,
    )
    dsp = next(int(n) for cond, n in sizes if "MVE" not in cond)
    mve = next(int(n) for cond, n in sizes if "MVE" in cond or not cond)
    assert got["weights"] == {
        "bytes": int(fields["weights_size"][0]),
        "section": None,
        "dsp_bytes": dsp,
        "mve_bytes": mve,
    }

    # The code of the linked program, by its symbol table.
    assert list(got["code"]) == REPORT_KEYS["code"]
    assert got["code"] == linked_code(symbol_sizes(exe), name, exe.name)
    assert got["patch_stage"] is None and got["patch_stages"] == []


def test_report_json_patch_stage_and_text_code(tmp_path: Path) -> None:
    """The patch stage in the JSON as in the text report; the text's code size says where it
    comes from."""
    model = next(m for m in MODELS if m.stem == "mlperf_tiny_kws_dscnn_int8")
    done = tinyaot("report", str(model), "--json", "--patch-stage", "2:2")
    assert done.returncode == 0, done.stderr
    got = json.loads(done.stdout)
    stage = got["patch_stage"]
    assert got["patch_stages"] == [stage]
    assert list(stage) == REPORT_KEYS["patch_stage"]
    assert stage["stripes"] == 2 and len(stage["layers"]) == 2
    assert stage["last_step"] - stage["first_step"] + 1 == 2 * 2
    assert stage["layers"] == [op["op"] for op in got["ops"][: len(stage["layers"])]]
    assert got["model"]["macs"] == sum(op["macs"] for op in got["ops"])
    text = tinyaot("report", str(model), "--patch-stage", "2:2")
    assert text.returncode == 0, text.stderr
    code = [line for line in text.stdout.splitlines() if line.startswith("code:")]
    if got["code"] is None:
        assert code == ["code:    not measured (no linked image given, no arm-none-eabi-gcc "
                        "to estimate)"]  # fmt: skip
    else:
        assert got["code"]["source"] == "estimate" and got["code"]["image"] is None
        assert code == [f"code:    {got['code']['bytes']} bytes (estimate: model "
                        f"{got['code']['model']}, runtime kernels {got['code']['runtime']}, "
                        "linked alone at Cortex-M3 -Os without the C library)"]  # fmt: skip
        # The routines in assembly count: KWS's pointwise and depthwise layers run these two.
        cc = ["arm-none-eabi-gcc", "-mcpu=cortex-m3", "-mthumb", "-Os", "-I", str(CRT / "include")]
        sizes = {}
        for src in ("conv_routines.S", "dw3x3_routines.S"):
            obj = tmp_path / f"{src}.o"
            subprocess.run(
                [*cc, "-c", str(CRT / "src" / "thumb2" / src), "-o", str(obj)], check=True
            )
            nm = subprocess.run(
                ["arm-none-eabi-nm", "-S", str(obj)], capture_output=True, text=True
            )
            sizes |= {
                f[3]: int(f[1], 16)
                for line in nm.stdout.splitlines()
                if len(f := line.split()) == 4
            }
        routines = sizes["tinyaot_conv_pairs_body"] + sizes["tinyaot_dw3x3_stage_t2"]
        assert routines > 2000 and got["code"]["runtime"] > routines
    assert f"+{stage['extra_macs']} MACs" in text.stdout


def test_report_elf_errors(tmp_path: Path) -> None:
    """An image without the model's code, or that nm cannot read, is one error line."""
    model = next(m for m in MODELS if m.stem == "tflm_hello_world_int8")
    obj = tmp_path / "add.o"
    cmd = ["gcc", "-std=c99", "-c", "-I", str(CRT / "include"), str(CRT / "src" / "add.c")]
    subprocess.run([*cmd, "-o", str(obj)], check=True)
    done = tinyaot("report", str(model), "--name", "hw", "--elf", str(obj))
    assert (done.returncode, done.stderr) == (
        2,
        f"error: '{obj}' has no code of model 'hw' (--name?)\n",
    )
    missing = tmp_path / "none.elf"
    done = tinyaot("report", str(model), "--json", "--elf", str(missing))
    assert done.returncode == 2 and done.stderr.startswith(
        f"error: cannot read the symbols of '{missing}': "
    )
