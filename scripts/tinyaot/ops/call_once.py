"""CALL_ONCE: state.py evaluates its initialisation subgraph at compile time into the state's
initial image, which reset writes, and the first invoke when nothing did; the op itself emits
no code."""

from __future__ import annotations

from ..lowering import OpDef
from ..state import unresolved

OP = OpDef(
    "CALL_ONCE",
    ("none",),
    unresolved,
    "its initialisation subgraph evaluated at compile time into the state's initial image",
    inputs=(0, 0),
    outputs=(0, 0),
)
