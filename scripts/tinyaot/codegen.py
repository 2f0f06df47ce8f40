"""C sources from a compiled model, through the jinja2 templates in templates/.

Output depends only on the model and the options (no paths, times or hash
order), so builds are reproducible.
"""

from __future__ import annotations

from dataclasses import dataclass

import jinja2
import numpy as np

from . import cnames
from .compiler import Compiled
from .ir import Tensor
from .lowering import DSP_GUARD, ByTarget, ConstArray, Routine, TensorArg, TensorList

_ENV = jinja2.Environment(
    loader=jinja2.PackageLoader("tinyaot", "templates"),
    keep_trailing_newline=True,
    trim_blocks=True,
    lstrip_blocks=True,
    undefined=jinja2.StrictUndefined,
    autoescape=False,
)


@dataclass
class Array:
    name: str
    ctype: str
    length: int
    lines: list[str]
    # Compiled only under this preprocessor condition (None: always).
    guard: str | None = None


@dataclass
class Port:
    """A model input or output as the API shows it."""

    field: str
    ctype: str
    offset: int
    size: int
    tensor: Tensor
    shape_name: str


COLUMNS = 100
TAB = 8


def wrap(head: str, args: list[str], indent: int = 1, end: str = ");") -> str:
    """`head(args)end` bin-packed to 100 columns the way clang-format lays it out."""
    return _bin_pack(head, args, indent, end)


def _bin_pack(head: str, args: list[str], indent: int, end: str) -> str:
    align = TAB * indent + len(head) + 1
    pad = "\t" * (align // TAB) + " " * (align % TAB)
    lines, line, col = [], "\t" * indent + f"{head}(", align
    for i, a in enumerate(args):
        tail = end if i == len(args) - 1 else ","
        piece = ("" if line.endswith("(") else " ") + a + tail
        if col + len(piece) > COLUMNS and not line.endswith("("):
            lines.append(line)
            line, col = pad + a + tail, align + len(a + tail)
        else:
            line += piece
            col += len(piece)
    lines.append(line)
    return "\n".join(lines)


def _flatten(params: dict[str, object], prefix: str = "") -> list[tuple[str, object]]:
    """Nested structs as `.d.in_h = ...` designators: one field a line, as clang-format keeps it."""
    out: list[tuple[str, object]] = []
    for k, v in params.items():
        if isinstance(v, dict):
            out += _flatten(v, f"{prefix}{k}.")
        else:
            out.append((prefix + k, v))
    return out


def generate(c: Compiled) -> dict[str, str]:
    """File name -> contents."""
    name = c.options.name
    graph = c.graph
    weights: dict[int, str] = {}
    arrays: list[Array] = []
    for t in c.weight_tensors():
        weights[t.index] = f"{name}_w{t.index}"
        assert t.data is not None
        arrays.append(
            Array(weights[t.index], t.dtype.ctype, t.num_elements, cnames.array_body(t.data))
        )
    consts: dict[tuple[str, bytes], str] = {}
    for i, (arr, guard) in enumerate(c.const_arrays()):
        consts[arr.key()] = f"{name}_c{i}"
        arrays.append(
            Array(
                consts[arr.key()],
                arr.ctype,
                arr.values.size,
                cnames.array_body(arr.values),
                guard,
            )
        )

    def value(v: object) -> str:
        if v is None:
            return "NULL"
        if isinstance(v, Routine):
            return v.name
        if isinstance(v, bool):
            return "1" if v else "0"
        if isinstance(v, int | np.integer):
            return cnames.int_literal(int(v))
        if isinstance(v, float | np.floating):
            return cnames.float_literal(float(v))
        if isinstance(v, ConstArray):
            return consts[v.key()]
        if isinstance(v, list):
            return "{" + ", ".join(value(x) for x in v) + "}"
        if isinstance(v, dict):
            return "{" + ", ".join(f".{k} = {value(x)}" for k, x in v.items()) + "}"
        raise TypeError(f"cannot emit {v!r}")

    def arg(a: object) -> str:
        if a is None:
            return "NULL"
        if isinstance(a, ConstArray):
            return consts[a.key()]
        if isinstance(a, TensorList):
            return "list"
        assert isinstance(a, TensorArg)
        t = graph.tensors[a.index]
        if t.is_const:
            return weights[t.index]
        const = "" if a.writable else "const "
        return f"({const}{t.dtype.ctype} *)(arena + {c.offset(t.index)}u)"

    calls = []
    for i, step in enumerate(c.steps):
        call = step.call
        params = None
        if call.params_type:
            params = {
                "name": f"{name}_op{i}",
                "type": call.params_type,
                "fields": [
                    (k, (value(v.default), value(v.dsp)) if isinstance(v, ByTarget) else value(v))
                    for k, v in _flatten(call.params)
                ],
            }
        args = ([f"&{name}_op{i}"] if params else []) + [arg(a) for a in call.args]
        lists = [a for a in call.args if isinstance(a, TensorList)]
        if lists:
            # Kernels with a varying number of inputs take an array of pointers, filled
            # here because the arena is only known at run time.
            items = lists[0].tensor_args()
            ctype = graph.tensors[items[0].index].dtype.ctype
            code = ["\t{", f"\t\tconst {ctype} *list[{len(items)}];", ""]
            code += [f"\t\tlist[{k}] = {arg(t)};" for k, t in enumerate(items)]
            code += [wrap(call.function, args, indent=2), "\t}"]
            calls.append({"op": step.op, "params": params, "code": "\n".join(code)})
        else:
            calls.append({"op": step.op, "params": params, "code": wrap(call.function, args)})

    def ports(indices: list[int], fallback: str) -> list[Port]:
        fields = cnames.identifiers([graph.tensors[t].name for t in indices], fallback)
        return [
            Port(
                f,
                graph.tensors[t].dtype.ctype,
                c.offset(t),
                graph.tensors[t].nbytes,
                graph.tensors[t],
                f"{name}_{fallback}{i}_shape",
            )
            for i, (f, t) in enumerate(zip(fields, indices, strict=True))
        ]

    ctx = {
        "name": name,
        "NAME": name.upper(),
        "source": c.source_name,
        "arena_size": c.plan.size,
        "alignment": c.options.arena_alignment,
        "section": cnames.string(c.options.arena_section) if c.options.arena_section else None,
        "pool": c.options.shared_arena,
        "weights_size": c.weights_size,
        "headers": sorted({s.call.header for s in c.steps}),
        "arrays": arrays,
        "calls": calls,
        "inputs": ports(graph.inputs, "input"),
        "outputs": ports(graph.outputs, "output"),
        "num_ops": len(graph.ops),
        "macs": c.macs,
        "run_params": [
            f"const struct {name}_inputs *inputs",
            f"const struct {name}_outputs *outputs",
            "uint8_t *arena",
        ],
        "dsp_guard": DSP_GUARD,
        "wrap": wrap,
        "cstr": cnames.string,
        "flt": cnames.float_literal,
    }
    return {
        f"{name}.h": _ENV.get_template("model.h.j2").render(ctx),
        f"{name}.c": _ENV.get_template("model.c.j2").render(ctx),
    }
