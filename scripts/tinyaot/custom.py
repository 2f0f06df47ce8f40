"""Custom ops whose kernel the application supplies.

A model's CUSTOM op is known by its custom code. The compiler has kernels for a few (ops/
files named after the code); for any other, the user declares the code (`--custom-op`,
CMake `CUSTOM_OPS`, Kconfig `TINYAOT_CUSTOM_OPS`) and links a C function

    int tinyaot_custom_<code>(const struct tinyaot_custom_call *call);

that gets every input and output with its shape, dtype and quantisation, and the op's custom
options bytes as the .tflite stores them (tinyaot/tinyaot.h). An undeclared one stops the
compile, naming it.
"""

from __future__ import annotations

import re

from .errors import CompileError
from .ir import Graph, Op
from .lowering import CustomOp, KernelCall, TensorArg

PREFIX = "tinyaot_custom_"


def function_name(code: str) -> str:
    """The C function a custom op's kernel must be called: its code with every character
    that a C identifier cannot hold replaced by '_'."""
    return PREFIX + re.sub(r"[^0-9A-Za-z_]", "_", code)


def check_declared(codes: tuple[str, ...]) -> None:
    """Declared codes must be non-empty and map to distinct C functions."""
    seen: dict[str, str] = {}
    for code in codes:
        if not code or not code.isprintable():
            raise CompileError(f"custom op name '{code}' is empty or has unprintable characters")
        fn = function_name(code)
        if fn in seen and seen[fn] != code:
            raise CompileError(
                f"custom ops '{seen[fn]}' and '{code}' would both need the C function {fn}"
            )
        seen[fn] = code


def is_custom(op: Op) -> bool:
    return bool(op.options.get("custom"))


def undeclared(graph: Graph, op: Op) -> CompileError:
    t = op.outputs[0]
    return CompileError(
        f"op {op.index} is the custom op '{op.kind}' (writing tensor {t} "
        f"'{graph.tensors[t].name}'), which the compiler has no kernel for; declare it with "
        f"--custom-op {op.kind} (CMake CUSTOM_OPS, Kconfig TINYAOT_CUSTOM_OPS) and link "
        f"int {function_name(op.kind)}(const struct tinyaot_custom_call *call)"
    )


def lower(graph: Graph, op: Op) -> KernelCall:
    """A call of the application's kernel with every present input, then every output."""
    inputs = tuple(t for t in op.inputs if t is not None)
    options = op.options.get("custom_options", b"")
    assert isinstance(options, bytes)
    args: list[TensorArg] = [TensorArg(t) for t in inputs]
    args += [TensorArg(t, writable=True) for t in op.outputs]
    return KernelCall(
        function_name(op.kind),
        "tinyaot/tinyaot.h",
        None,
        {},
        list(args),
        custom=CustomOp(op.kind, options, inputs, tuple(op.outputs)),
    )
