"""What a firmware engineer asks of a model: where RAM and flash go, op by op.

`summary` is the one line the build prints; `text` the full report; `data` the same
as JSON for tools (schema in doc/index.rst, "Reports as data"); `svg` the arena drawn
over time (x: step, y: offset, one rectangle per tensor).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import tempfile
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from html import escape
from pathlib import Path

from . import codegen, patch
from .compiler import Compiled, Step
from .errors import CompileError
from .lowering import DSP_GUARD, FPU_GUARD, MVE_GUARD
from .runtime_sources import runtime_sources

CRT = Path(__file__).resolve().parents[2] / "crt"
SCHEMA = "tinyaot-report/1"


@dataclass
class CodeSize:
    """Code bytes and where the figure comes from: "link" (the symbols of a linked image) or
    "estimate" (the model linked alone for Cortex-M3, without the C library and libgcc)."""

    source: str
    model: int
    runtime: int
    image: str | None = None

    @property
    def total(self) -> int:
        return self.model + self.runtime

    def describe(self) -> str:
        if self.source == "link":
            return (
                f"{self.total} bytes (from the link of {self.image}: model {self.model}, "
                f"runtime kernels {self.runtime})"
            )
        return (
            f"{self.total} bytes (estimate: model {self.model}, runtime kernels {self.runtime}, "
            "linked alone at Cortex-M3 -Os without the C library)"
        )


def _in_place(c: Compiled) -> str:
    """' (input 9216 B read in place)' for the inputs _run() reads in the caller's buffers."""
    ports = [t for t in c.graph.inputs if c.root[t] in c.in_place]
    if not ports:
        return ""
    size = sum(c.graph.tensors[t].nbytes for t in ports)
    return f" ({'input' if len(ports) == 1 else f'{len(ports)} inputs'} {size} B read in place)"


def _dsp_weights(c: Compiled) -> tuple[int, int]:
    """The weights a core with the DSP extension and an FPU links, and one with Helium too."""
    return (
        c.weights_size_where(frozenset({DSP_GUARD, FPU_GUARD})),
        c.weights_size_where(frozenset({DSP_GUARD, MVE_GUARD, FPU_GUARD})),
    )


def _other_cores(c: Compiled, unit: str) -> str:
    """'48897{unit} with the DSP kernels, 34561{unit} with Helium's' where those cores link
    other bytes than a plain one (the int16 weights of --speed-flash, other layouts), else ''."""
    dsp, mve = _dsp_weights(c)
    if dsp == mve == c.weights_size:
        return ""
    return f"{dsp}{unit} with the DSP kernels, {mve}{unit} with Helium's"


def summary(c: Compiled) -> str:
    line = (
        f"tinyaot: {c.options.name}: arena {c.plan.size} B{_in_place(c)}, "
        f"weights {c.weights_size} B, {len(c.graph.ops)} ops, {c.macs} MACs"
    )
    line += "".join(f"\ntinyaot: {c.options.name}: {patch.describe(p)}" for p in c.patches)
    if other := _other_cores(c, " B"):
        line += f"\ntinyaot: {c.options.name}: weights {other}"
    return line


def code_size(c: Compiled) -> CodeSize | None:
    """Thumb-2 code bytes of the model and of the runtime kernels it keeps, at Cortex-M3 -Os,
    if the ARM toolchain is there: an estimate, linked without the C library or libgcc. The
    generated code and every runtime source (crt/sources.txt, assembly included) are linked with
    --gc-sections from the model's public functions, so the figure counts what a firmware's link
    keeps, whichever file a routine lives in."""
    gcc, nm = shutil.which("arm-none-eabi-gcc"), shutil.which("arm-none-eabi-nm")
    if not gcc or not nm:
        return None
    flags = ["-mcpu=cortex-m3", "-mthumb", "-Os", "-std=c99", "-ffunction-sections"]
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp)
        generated = codegen.generate(c)
        for fname, body in generated.items():
            (out / fname).write_text(body)
        model_src = out / f"{c.options.name}.c"
        sources = [model_src] + [p for p in runtime_sources() if p.name != "profile.c"]

        def compile_one(item: tuple[int, Path]) -> Path | None:
            i, src = item
            obj = out / f"{i}.o"
            cmd = [gcc, *flags, "-I", str(out), "-I", str(CRT / "include"), "-c", str(src)]
            done = subprocess.run([*cmd, "-o", str(obj)], capture_output=True)
            return obj if done.returncode == 0 else None

        with ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
            objects = list(pool.map(compile_one, enumerate(sources)))
        if None in objects:
            return None
        done = subprocess.run(
            [nm, "-g", "--defined-only", str(objects[0])], capture_output=True, text=True
        )
        if done.returncode != 0:
            return None
        public = [f[2] for line in done.stdout.splitlines() if (f := line.split())[1:2] == ["T"]]
        if not public:
            return None
        elf = out / "model.elf"
        cmd = [gcc, *flags, "-nostdlib", "-Wl,--gc-sections", "-Wl,--unresolved-symbols=ignore-all"]
        cmd += [f"-Wl,--undefined={f}" for f in public] + [f"-Wl,-e,{public[0]}"]
        if subprocess.run(
            [*cmd, *map(str, objects), "-o", str(elf)], capture_output=True
        ).returncode:
            return None
        linked = link_size(c.options.name, "".join(generated.values()), elf, nm)
        return CodeSize("estimate", linked.model, linked.runtime)


def link_size(name: str, generated: str, elf: Path, nm: str = "nm") -> CodeSize:
    """The code of model `name` and of the runtime in a linked image, from its symbol table:
    the model's functions are the <name>_* identifiers of its generated files (so that a model
    "kws" does not claim the symbols of a model "kws_small"), the runtime's are tinyaot_*. A
    model the link dropped whole (never called, with --gc-sections) has 0 bytes."""
    try:
        done = subprocess.run([nm, "-S", str(elf)], capture_output=True, text=True)
    except OSError as exc:
        raise CompileError(f"cannot run '{nm}': {exc.strerror}") from None
    if done.returncode != 0:
        first = done.stderr.strip().splitlines()[0] if done.stderr.strip() else ""
        raise CompileError(f"cannot read the symbols of '{elf}': {first}")
    own = set(re.findall(rf"\b{name}_\w+", generated))
    model = runtime = 0
    for line in done.stdout.splitlines():
        m = re.match(r"^[0-9a-fA-F]+ ([0-9a-fA-F]+) [tTwW] (\S+)$", line)
        if not m:
            continue
        if m[2] in own:
            model += int(m[1], 16)
        elif m[2].startswith("tinyaot_"):
            runtime += int(m[1], 16)
    return CodeSize("link", model, runtime, Path(elf).name)


def text(c: Compiled, measure_code: bool = True, code: CodeSize | None = None) -> str:
    """The report; `code` (from a link) is estimated when not given and measure_code is set."""
    g = c.graph
    lines = [f"model {c.options.name} ({c.source_name})", "", "ops:"]
    lines.append(f"  {'#':>3}  {'op':<20} {'kernel':<22} {'output shape':<18} {'MACs':>10}")
    # A patch stage's op runs once per stripe, after the copy of kept rows in all but the first.
    step_of: dict[int, Step] = {}
    for s in c.steps:
        step_of.setdefault(s.op.index, s)
    macs_of: dict[int, int] = {}
    for s in c.steps:
        macs_of[s.op.index] = macs_of.get(s.op.index, 0) + s.call.macs
    for op in g.ops:
        step = step_of.get(op.index)
        kernel = step.call.function if step else "(view: no code)"
        # Ops on resource variables (ASSIGN_VARIABLE, CALL_ONCE) have no output.
        shape = "x".join(str(d) for d in g.tensors[op.outputs[0]].shape) if op.outputs else "-"
        macs = macs_of.get(op.index, 0)
        lines.append(f"  {op.index:>3}  {op.kind:<20} {kernel:<22} {shape:<18} {macs:>10}")
    lines += [
        "",
        f"arena tensors (steps: first write .. last read; -1 = input, {len(c.steps)} = output):",
    ]
    lines.append(f"  {'tensor':>6}  {'bytes':>7}  {'steps':>9}  {'offset':>7}  name")
    for key, buf in _by_offset(c):
        t = g.tensors[key]
        views = [i for i, r in c.root.items() if r == key and i != key]
        name = (t.name if len(t.name) <= 60 else t.name[:57] + "...") + (
            f" (+ {len(views)} view)" if views else ""
        )
        live = f"{buf.start:>4}..{buf.end:<4}"
        lines.append(f"  {key:>6}  {buf.size:>7}  {live}  {c.plan.offsets[key]:>7}  {name}")
    if code is None and measure_code:
        code = code_size(c)
    largest = max((b.size for b in c.plan.buffers.values()), default=0)
    lines += [
        "",
        f"arena:   {c.plan.size} bytes (largest tensor {largest})"
        + "".join(
            f"; input {t} '{g.tensors[t].name}' ({g.tensors[t].nbytes} B) read in place by "
            f"{c.options.name}_run(), not in the arena"
            for t in g.inputs
            if c.root[t] in c.in_place
        ),
        f"weights: {c.weights_size} bytes (const, in "
        + (f"section {c.options.weights_section})" if c.options.weights_section else "flash)")
        + (f"; {other}" if (other := _other_cores(c, "")) else ""),
        f"code:    {code.describe()}"
        if code is not None
        else "code:    not measured"
        + (" (no linked image given, no arm-none-eabi-gcc to estimate)" if measure_code else ""),
        f"MACs:    {c.macs}",
    ]
    for p in c.patches:
        first, last = _stage_steps(c, p)
        lines.append(f"{patch.describe(p)}; its steps {first}..{last}")
    return "\n".join(lines) + "\n"


def data(c: Compiled, code: CodeSize | None) -> dict:
    """The report as JSON-ready data, keys in a fixed order (the schema in doc/index.rst)."""
    g = c.graph

    def port(index: int) -> dict:
        t = g.tensors[index]
        quant = None
        if t.quant is not None:
            quant = {
                "scale": list(t.quant.scales),
                "zero_point": list(t.quant.zero_points),
                "axis": t.quant.axis,
            }
        return {
            "tensor": index,
            "name": t.name,
            "dtype": t.dtype.short,
            "shape": list(t.shape),
            "bytes": t.nbytes,
            "quantization": quant,
            "in_place": c.root[index] in c.in_place,
        }

    macs_of: dict[int, int] = {}
    kernel_of: dict[int, str] = {}
    for s in c.steps:
        macs_of[s.op.index] = macs_of.get(s.op.index, 0) + s.call.macs
        kernel_of.setdefault(s.op.index, s.call.function)
    ops = [
        {
            "index": op.index,
            "op": op.kind,
            "kernel": kernel_of.get(op.index),
            "output_shape": list(g.tensors[op.outputs[0]].shape) if op.outputs else None,
            "macs": macs_of.get(op.index, 0),
        }
        for op in g.ops
    ]
    tensors = [
        {
            "tensor": key,
            "name": g.tensors[key].name,
            "bytes": buf.size,
            "offset": c.plan.offsets[key],
            "first_step": buf.start,
            "last_step": buf.end,
        }
        for key, buf in sorted(
            c.plan.buffers.items(), key=lambda kv: (c.plan.offsets[kv[0]], kv[0])
        )
    ]
    stages = [
        {
            "first_step": _stage_steps(c, p)[0],
            "last_step": _stage_steps(c, p)[1],
            "layers": list(p.kinds),
            "stripes": p.stripes,
            "output_shape": list(p.out_shape),
            "extra_macs": p.extra_macs,
            "kept_bytes": p.kept_bytes,
            "arena_without": p.base_arena,
        }
        for p in c.patches
    ]
    return {
        "schema": SCHEMA,
        "model": {"name": c.options.name, "source": c.source_name, "macs": c.macs},
        "inputs": [port(t) for t in g.inputs],
        "outputs": [port(t) for t in g.outputs],
        "ops": ops,
        "arena": {
            "bytes": c.plan.size,
            "alignment": c.options.arena_alignment,
            "section": c.options.arena_section,
            "shared_pool": c.options.shared_arena,
            "tensors": tensors,
        },
        "state": {"bytes": c.state.size},
        "weights": {
            "bytes": c.weights_size,
            "section": c.options.weights_section,
            "dsp_bytes": _dsp_weights(c)[0],
            "mve_bytes": _dsp_weights(c)[1],
        },
        "code": None if code is None else _code(code),
        "patch_stage": stages[0] if stages else None,
        "patch_stages": stages,
    }


def _code(code: CodeSize) -> dict:
    return {
        "bytes": code.total,
        "model": code.model,
        "runtime": code.runtime,
        "source": code.source,
        "image": code.image,
    }


def json_text(c: Compiled, code: CodeSize | None) -> str:
    return json.dumps(data(c, code), indent=2) + "\n"


def add_link_size(path: Path, elf: Path, nm: str) -> None:
    """Fills in "code" of a <name>_report.json written at compile time, from the linked image;
    the generated <name>.c beside it names the model's symbols."""
    report = json.loads(path.read_text(encoding="utf-8"))
    name = report["model"]["name"]
    generated = (path.parent / f"{name}.c").read_text(encoding="utf-8")
    code = link_size(name, generated, elf, nm)
    report["code"] = _code(code)
    path.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")


def _by_offset(c: Compiled) -> list:
    return sorted(c.plan.buffers.items(), key=lambda kv: (c.plan.offsets[kv[0]], kv[0]))


def _stage_steps(c: Compiled, p: patch.PatchPlan) -> tuple[int, int]:
    """The first and last of the compiled steps a stage became (the stages before it grew)."""
    first = p.first_step + sum(q.steps - q.depth for q in c.patches if q.first_step < p.first_step)
    return first, first + p.steps - 1


def svg(c: Compiled) -> str:
    """The arena over time: one rectangle per tensor, from its first write to its last read."""
    width, height, left, top, bottom = 960, 560, 70, 40, 40
    steps = len(c.steps) + 2
    size = max(c.plan.size, 1)
    x_of = lambda step: left + (step + 1) * (width - left - 20) / steps  # noqa: E731
    y_of = lambda off: top + off * (height - top - bottom) / size  # noqa: E731
    palette = ["#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948", "#b07aa1"]
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        'font-family="sans-serif" font-size="11">',
        f'<text x="{left}" y="20" font-size="14">{escape(c.options.name)}: arena {c.plan.size} B'
        f"{_in_place(c)} over {len(c.steps)} steps (x: step, y: offset)</text>",
        f'<rect x="{left}" y="{top}" width="{width - left - 20}" height="{height - top - bottom}" '
        'fill="none" stroke="#999"/>',
    ]
    for p in c.patches:
        # Each patch stage: a band behind its steps, a line between its stripes.
        first = _stage_steps(c, p)[0]
        x0, x1 = x_of(first), x_of(first + p.steps)
        out.append(
            f'<rect x="{x0:.1f}" y="{top}" width="{x1 - x0:.1f}" height="{height - top - bottom}" '
            f'fill="#eee"><title>{escape(patch.describe(p))}</title></rect>'
        )
        for k in range(1, p.stripes):
            x = x_of(first + sum(p.stripe_steps[:k]))
            out.append(
                f'<line x1="{x:.1f}" y1="{top}" x2="{x:.1f}" y2="{height - bottom}" '
                'stroke="#bbb" stroke-dasharray="3,3"/>'
            )
        out.append(f'<text x="{x0 + 3:.1f}" y="{top - 4}">patch stage: {p.stripes} stripes</text>')
    for i, (key, buf) in enumerate(sorted(c.plan.buffers.items())):
        off = c.plan.offsets[key]
        x0, x1 = x_of(buf.start), x_of(buf.end + 1)
        y0, y1 = y_of(off), y_of(off + buf.size)
        name = escape(c.graph.tensors[key].name)
        out.append(
            f'<rect x="{x0:.1f}" y="{y0:.1f}" width="{x1 - x0:.1f}" height="{max(y1 - y0, 1):.1f}" '
            f'fill="{palette[i % len(palette)]}" fill-opacity="0.6" stroke="#333">'
            f"<title>tensor {key} {name}: {buf.size} B at {off}, steps {buf.start}..{buf.end}"
            "</title></rect>"
        )
        if y1 - y0 > 12:
            out.append(f'<text x="{x0 + 3:.1f}" y="{y0 + 12:.1f}">{key}: {buf.size} B</text>')
    for s in range(len(c.steps)):
        x = (x_of(s) + x_of(s + 1)) / 2
        out.append(f'<text x="{x:.1f}" y="{height - 22}" text-anchor="middle">{s}</text>')
    for frac in (0, 0.25, 0.5, 0.75, 1):
        y = y_of(size * frac)
        out.append(
            f'<text x="{left - 6}" y="{y + 4:.1f}" text-anchor="end">{int(size * frac)}</text>'
        )
    out.append("</svg>")
    return "\n".join(out) + "\n"
