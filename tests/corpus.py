"""The corpus of real, public models in models/: its manifest and the paths of its files."""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

import yaml

# Found from this file rather than from the checkout's name, so that every clone or worktree
# tests its own corpus.
MODELS = Path(__file__).resolve().parents[1] / "models"
MANIFEST = MODELS / "manifest.yaml"

Entry = dict[str, Any]


@cache
def entries() -> tuple[Entry, ...]:
    """The manifest's entries, sorted by file name."""
    with MANIFEST.open(encoding="utf-8") as f:
        manifest = yaml.safe_load(f)
    return tuple(sorted(manifest["models"], key=lambda entry: entry["file"]))


def model_paths() -> list[Path]:
    return [MODELS / entry["file"] for entry in entries()]


def entry(name: str) -> Entry:
    """The entry of a file, named with or without its .tflite suffix."""
    file = name if name.endswith(".tflite") else f"{name}.tflite"
    for candidate in entries():
        if candidate["file"] == file:
            return candidate
    raise KeyError(file)
