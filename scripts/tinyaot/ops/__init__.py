"""The op table: every module in this package defines OP, an OpDef for one builtin.

Adding an op means adding one file here (and its kernel in crt/); nothing else
refers to the list. Modules named `*_common` hold what a family of ops shares (as
TFLite Micro's kernels keep `*_common.cc`) and define no op. README.md beside this
file is the template and the checklist.
"""

from __future__ import annotations

import importlib
import pkgutil

from ..lowering import OpDef


def _discover() -> dict[str, OpDef]:
    table: dict[str, OpDef] = {}
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        if info.name.endswith("_common"):
            continue
        module = importlib.import_module(f"{__name__}.{info.name}")
        op: OpDef = module.OP
        table[op.name] = op
    return dict(sorted(table.items()))


OPS: dict[str, OpDef] = _discover()
