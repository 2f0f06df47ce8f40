"""C sources from a compiled model, through the jinja2 templates in templates/.

Output depends only on the model and the options (no paths, times or hash
order), so builds are reproducible.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import jinja2
import numpy as np

from . import cnames
from .compiler import Compiled
from .ir import Graph, Tensor
from .lowering import ByFpu, ByTarget, ConstArray, KernelCall, Routine, TensorArg, TensorList

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
    # For an input the generated code reads where the caller has it (Compiled.in_place): the
    # body's parameter that points at it.
    param: str | None = None


COLUMNS = 100
TAB = 8


def wrap(head: str, args: list[str], indent: int = 1, end: str = ");") -> str:
    """`head(args)end` bin-packed to 100 columns the way clang-format lays it out."""
    return _bin_pack(head, args, indent, end)


def _bin_pack(head: str, args: list[str], indent: int, end: str) -> str:
    first = "\t" * indent + f"{head}("
    if TAB * indent + len(head) + 1 + len(", ".join(args) + end) <= COLUMNS:
        return first + ", ".join(args) + end
    lhs, eq, call = head.rpartition(" = ")
    rest = f"{call}({', '.join(args)}{end}"
    if eq and TAB * (indent + 1) + len(rest) <= COLUMNS:
        # clang-format breaks an assignment after its `=` when the call then fits one line.
        return "\t" * indent + f"{lhs} =\n" + "\t" * (indent + 1) + rest
    align = TAB * indent + len(head) + 1
    if any(align + len(a) + 1 > COLUMNS for a in args):
        # An argument would overflow aligned after the parenthesis: clang-format breaks after
        # it and packs the arguments one indent deeper.
        pad = "\t" * (indent + 1)
        return first + "\n" + _pack(pad, TAB * (indent + 1), pad, args, end)
    return _pack(first, align, "\t" * (align // TAB) + " " * (align % TAB), args, end)


def _pack(first: str, col: int, pad: str, args: list[str], end: str) -> str:
    """Arguments after `first` (ending at column `col`), each further line starting at `pad`."""
    lines, line, start = [], first, col
    for i, a in enumerate(args):
        tail = end if i == len(args) - 1 else ","
        fresh = line == first
        piece = ("" if fresh and first.endswith(("(", "\t")) else " ") + a + tail
        if col + len(piece) > COLUMNS and not fresh:
            lines.append(line)
            line, col = pad + a + tail, start + len(a + tail)
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
        return f"({const}{t.dtype.ctype} *)({where(t.index)})"

    # The body's parameter for each input read in place, by its root.
    in_place = {
        c.root[t]: f"input{k}" for k, t in enumerate(graph.inputs) if c.root[t] in c.in_place
    }

    def where(tensor: int) -> str:
        """The tensor's address: in the state buffer, in the arena or in an input's buffer."""
        off = c.state_offset(tensor)
        if off is not None:
            return f"state + {off}u"
        if c.root[tensor] in in_place:
            return f"{in_place[c.root[tensor]]} + {c.offset(tensor)}u"
        return f"arena + {c.offset(tensor)}u"

    def untyped(a: TensorArg) -> str:
        """A tensor's address as a void *. A constant loses its const here: a custom kernel's
        contract is not to write its inputs."""
        t = graph.tensors[a.index]
        return f"(void *){weights[t.index]}" if t.is_const else where(t.index)

    calls = []
    custom_tables: list[str] = []
    for i, step in enumerate(c.steps):
        call = step.call
        if call.custom is not None:
            code, tables = _custom_call(f"{name}_op{i}", step.op.index, call, graph, untyped)
            calls.append({"op": step.op, "params": None, "code": code})
            custom_tables += tables
            continue
        params = None
        if call.params_type:
            params = {
                "name": f"{name}_op{i}",
                "type": call.params_type,
                "fields": [
                    (
                        k,
                        [(cond, value(x)) for cond, x in v.guarded()]
                        if isinstance(v, ByTarget | ByFpu)
                        else value(v),
                    )
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
            calls.append({"op": step.op, "params": params, "code": _call(call, args)})

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
                in_place.get(c.root[t]),
            )
            for i, (f, t) in enumerate(zip(fields, indices, strict=True))
        ]

    inputs = ports(graph.inputs, "input")
    state = _state(c, any("(state + " in call["code"] for call in calls))
    body_params = ["uint8_t *arena"] + (["uint8_t *state"] if state else [])
    body_params += [f"const uint8_t *{p.param}" for p in inputs if p.param]
    base_args = ["arena"] + (["state"] if state else [])
    ctx = {
        "name": name,
        "NAME": name.upper(),
        "source": c.source_name,
        "arena_size": c.plan.size,
        "alignment": c.options.arena_alignment,
        "section": cnames.string(c.options.arena_section) if c.options.arena_section else None,
        "pool": c.options.shared_arena,
        "weights_section": cnames.string(c.options.weights_section)
        if c.options.weights_section
        else None,
        "weights_size": c.weights_size,
        "weights_by_core": c.weights_by_core(),
        "headers": sorted({s.call.header for s in c.steps}),
        "custom_tables": custom_tables,
        "custom_functions": sorted({s.call.function for s in c.steps if s.call.custom}),
        "arrays": arrays,
        "calls": calls,
        "inputs": inputs,
        "any_in_place": any(p.param for p in inputs),
        "input_in_place": sum(1 << k for k, p in enumerate(inputs) if p.param),
        "input_buffers": [f"{name}_{p.param}" if p.param else "NULL" for p in inputs],
        "body_params": body_params,
        # The body's arguments in _invoke() (the pinned input buffers) and in _run().
        "invoke_args": base_args + [f"{name}_{p.param}" for p in inputs if p.param],
        "run_args": base_args + [f"(const uint8_t *)inputs->{p.field}" for p in inputs if p.param],
        "outputs": ports(graph.outputs, "output"),
        "num_ops": len(graph.ops),
        "macs": c.macs,
        "run_params": [
            f"const struct {name}_inputs *inputs",
            f"const struct {name}_outputs *outputs",
            "uint8_t *arena",
        ],
        "state": state,
        "wrap": wrap,
        "cstr": cnames.string,
        "flt": cnames.float_literal,
    }
    return {
        f"{name}.h": _ENV.get_template("model.h.j2").render(ctx),
        f"{name}.c": _ENV.get_template("model.c.j2").render(ctx),
    }


def _state(c: Compiled, used: bool) -> dict[str, object] | None:
    """What the templates need of the model's state: its size, its slots (each reset by a
    memset when its initial bytes are all one value, else copied from an array), the flag."""
    layout = c.state
    if not layout.size:
        return None
    slots = []
    for k, slot in enumerate(layout.slots):
        lines = None
        if slot.fill is None:
            lines = cnames.array_body(np.frombuffer(slot.initial, np.uint8))
        slots.append(
            {
                "name": slot.name,
                "offset": slot.offset,
                "size": slot.size,
                "fill": slot.fill,
                "array": f"{c.options.name}_state_init{k}",
                "lines": lines,
            }
        )
    return {"size": layout.size, "flag": layout.flag_offset, "slots": slots, "used": used}


def _call(call: KernelCall, args: list[str]) -> str:
    """The kernel's call; one that returns a status is checked, and an error ends the invoke."""
    if not call.returns_status:
        return wrap(call.function, args)
    return "\n".join(
        [
            "\t{",
            wrap(f"const int err = {call.function}", args, indent=2),
            "",
            "\t\tif (err != TINYAOT_OK) {",
            "\t\t\treturn err;",
            "\t\t}",
            "\t}",
        ]
    )


def _custom_call(
    prefix: str, index: int, call: KernelCall, graph: Graph, pointer: Callable[[TensorArg], str]
) -> tuple[str, list[str]]:
    """The block that calls an application's custom kernel, and the constant tables it
    points at: each tensor's description and the op's custom options."""
    assert call.custom is not None
    tensors = [graph.tensors[t] for t in call.custom.inputs + call.custom.outputs]
    tables = []
    for k, t in enumerate(tensors):
        dims = ", ".join(str(d) for d in t.shape) or "1"
        size = max(len(t.shape), 1)
        tables.append(f"static const int32_t {prefix}_shape{k}[{size}] = {{{dims}}};")
    tables.append(f"static const struct tinyaot_tensor_info {prefix}_tensors[{len(tensors)}] = {{")
    for k, t in enumerate(tensors):
        tables.append(
            f"\t{{{cnames.string(t.name)}, {t.dtype.c_enum}, {len(t.shape)}, {prefix}_shape{k}, "
            f"{t.nbytes}, {cnames.float_literal(t.scale)}, {t.zero_point}}},"
        )
    tables.append("};")
    options = call.custom.options
    if options:
        tables.append(f"static const uint8_t {prefix}_options[{len(options)}] = {{")
        tables += ["\t" + line for line in cnames.array_body(np.frombuffer(options, np.uint8))]
        tables.append("};")
    n_in = len(call.custom.inputs)
    lines = ["\t{", f"\t\tconst struct tinyaot_custom_tensor tensors[{len(tensors)}] = {{"]
    for k, a in enumerate(call.args):
        assert isinstance(a, TensorArg)
        lines.append(f"\t\t\t{{&{prefix}_tensors[{k}], {pointer(a)}}},")
    lines += [
        "\t\t};",
        "\t\tconst struct tinyaot_custom_call call = {",
        f"\t\t\t.code = {cnames.string(call.custom.code)},",
        f"\t\t\t.op_index = {index},",
        f"\t\t\t.num_inputs = {n_in},",
        f"\t\t\t.num_outputs = {len(call.custom.outputs)},",
        "\t\t\t.inputs = &tensors[0],",
        f"\t\t\t.outputs = &tensors[{n_in}],",
        f"\t\t\t.options = {prefix + '_options' if options else 'NULL'},",
        f"\t\t\t.options_size = {len(options)}u,",
        "\t\t};",
        f"\t\tconst int err = {call.function}(&call);",
        "",
        "\t\tif (err != TINYAOT_OK) {",
        "\t\t\treturn err;",
        "\t\t}",
        "\t}",
    ]
    return "\n".join(lines), tables
