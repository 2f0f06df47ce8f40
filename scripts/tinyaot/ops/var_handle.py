"""VAR_HANDLE: names a resource variable. state.py gives the variable a slot in the state
buffer; the op itself emits no code."""

from __future__ import annotations

from ..lowering import OpDef
from ..state import unresolved

OP = OpDef(
    "VAR_HANDLE",
    ("resource",),
    unresolved,
    "resolved at compile time: a slot in the state buffer",
    inputs=(0, 0),
)
