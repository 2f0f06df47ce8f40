"""Human-readable figures about a compiled model: the one-line build summary and the report."""

from __future__ import annotations

from .compiler import Compiled


def summary(c: Compiled) -> str:
    return (
        f"tinyaot: {c.options.name}: arena {c.plan.size} B, weights {c.weights_size} B, "
        f"{len(c.graph.ops)} ops, {c.macs} MACs"
    )


def text(c: Compiled) -> str:
    return summary(c) + "\n"


def svg(c: Compiled) -> str:
    return ""
