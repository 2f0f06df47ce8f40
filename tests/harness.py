"""Compile a model with the CLI, run it on the host, compare with TFLite Micro.

Shared by the end-to-end tests of the shared models and the per-op tests.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from closeness import FLOAT_RTOL, float_error
from host import runner
from reference import Reference

REPO = Path(__file__).resolve().parents[1]


def tinyaot(*args: str, cwd: Path | None = None, env: dict[str, str] | None = None):
    """Run `python3 -m tinyaot ...` as a user would; returns the CompletedProcess."""
    full_env = dict(os.environ, PYTHONPATH=str(REPO / "scripts"))
    full_env.update(env or {})
    return subprocess.run(
        [sys.executable, "-m", "tinyaot", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        env=full_env,
        timeout=600,
    )


def symbol_sizes(binary: Path) -> dict[str, tuple[str, int]]:
    """name -> (section, size) of every symbol of an object or program, from objdump. A local
    name defined in several objects (a static inline function the compiler kept out of line in
    each) gives the sum of their sizes."""
    done = subprocess.run(["objdump", "-t", str(binary)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    out: dict[str, tuple[str, int]] = {}
    for line in done.stdout.splitlines():
        m = re.match(r"^[0-9a-f]+ .{7} (\S+)\s+([0-9a-f]+)\s+(\S+)$", line)
        if m:
            before = out.get(m[3], (m[1], 0))[1]
            out[m[3]] = (m[1], before + int(m[2], 16))
    return out


def linked_code(symbols: dict[str, tuple[str, int]], model: str, image: str) -> dict:
    """The "code" a JSON report of `model` linked into `image` must give: the .text bytes of
    the model's functions (<model>_*, the image's only model so named) and of the runtime's."""
    code = {
        owner: sum(
            size
            for name, (section, size) in symbols.items()
            if section == ".text" and name.startswith(f"{owner}_")
        )
        for owner in (model, "tinyaot")
    }
    return {
        "bytes": code[model] + code["tinyaot"],
        "model": code[model],
        "runtime": code["tinyaot"],
        "source": "link",
        "image": image,
    }


def c_name(model: Path) -> str:
    """A C prefix for the model from its file name (the compiler takes 1 to 32 identifier
    characters, and corpus file names can be longer)."""
    return ("m_" + re.sub(r"\W", "_", model.stem))[:32]


def compile_model(model: Path, out: Path, name: str = "m", *options: str) -> Path:
    done = tinyaot("compile", str(model), "--name", name, "--output-dir", str(out), *options)
    assert done.returncode == 0, done.stderr
    return out


@dataclass
class Comparison:
    exact: bool
    max_rel_error: float
    # The integer and bool outputs alone, which must always be exact.
    integers_exact: bool = True


def compare(got: list[np.ndarray], want: list[np.ndarray]) -> Comparison:
    """int8: byte equality. float: closeness.float_error, infinite on a NaN or inf mismatch."""
    exact, integers, worst = True, True, 0.0
    for g, w in zip(got, want, strict=True):
        if w.dtype.kind == "f":
            worst = max(worst, float_error(g, w))
            exact = exact and bool(np.array_equal(g, w))
        else:
            integers = integers and g.tobytes() == w.tobytes()
    return Comparison(exact and integers, worst, integers)


def split_outputs(raw: bytes, like: list[np.ndarray]) -> list[np.ndarray]:
    out, off = [], 0
    for w in like:
        out.append(np.frombuffer(raw[off : off + w.nbytes], dtype=w.dtype).reshape(w.shape))
        off += w.nbytes
    assert off == len(raw), f"got {len(raw)} output bytes, expected {off}"
    return out


def check_against_tflm(
    model: Path,
    workdir: Path,
    sets: int = 3,
    seed: int = 0,
    mode: str = "invoke",
    options: tuple[str, ...] = (),
) -> Comparison:
    """Compile (with the CLI's `options`), build for the host, and compare `sets` random
    inputs with TFLM.

    Asserts int8 outputs are byte-identical and float outputs within FLOAT_RTOL.
    """
    gen = compile_model(model, workdir / "gen", "m", *options)
    exe = runner.build(gen, "m", workdir)
    ref = Reference(model)
    rng = np.random.default_rng(seed)
    result = Comparison(True, 0.0)
    for _ in range(sets):
        inputs = ref.random_inputs(rng)
        want = ref.run(inputs)
        got = split_outputs(runner.run(exe, [x.tobytes() for x in inputs], mode), want)
        c = compare(got, want)
        assert c.integers_exact, f"{model.name}: an integer output differs from TFLite Micro"
        assert c.max_rel_error <= FLOAT_RTOL, f"{model.name}: float error {c.max_rel_error:.3g}"
        result = Comparison(result.exact and c.exact, max(result.max_rel_error, c.max_rel_error))
    return result
