"""Which corpus models the compiler takes today.

Every other corpus model must compile and match TFLite Micro in every suite that runs models.
A model listed here must still fail, with exactly the error given (test_models checks both
ways): when an op lands and it compiles, the test fails until it leaves the list, so the list
never hides a regression or a model that works.
"""

from __future__ import annotations

from pathlib import Path

import corpus

# model file stem -> the start of the compiler's error for it (after "error: ").
UNSUPPORTED: dict[str, str] = {}


def supported_paths() -> list[Path]:
    """The corpus models the compiler takes: all but UNSUPPORTED."""
    return [p for p in corpus.model_paths() if p.stem not in UNSUPPORTED]


def unsupported_paths() -> list[Path]:
    return [p for p in corpus.model_paths() if p.stem in UNSUPPORTED]
