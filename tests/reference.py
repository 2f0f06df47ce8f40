"""The reference every exactness test compares with: the TFLite Micro interpreter."""

from __future__ import annotations

from pathlib import Path

import corpus
import corpus_status
import numpy as np
import tflite
from tflite_micro.python.tflite_micro import runtime

REPO = Path(__file__).resolve().parents[1]
MODELS = corpus.MODELS
# Enough for every model here; TFLM's own need is what bench/tflm_arena.py measures.
ARENA = 8 << 20


def model_paths() -> list[Path]:
    """The corpus models the compiler takes (corpus_status.py), sorted by name."""
    return corpus_status.supported_paths()


class Reference:
    def __init__(self, model: Path) -> None:
        data = model.read_bytes()
        self.interp = runtime.Interpreter.from_bytes(data, arena_size=ARENA)
        graph = tflite.Model.GetRootAsModel(data, 0).Subgraphs(0)
        self.inputs = [self.interp.get_input_details(i) for i in range(graph.InputsLength())]
        self.outputs = [self.interp.get_output_details(i) for i in range(graph.OutputsLength())]

    def random_inputs(self, rng: np.random.Generator) -> list[np.ndarray]:
        out = []
        for d in self.inputs:
            shape, dtype = tuple(d["shape"]), np.dtype(d["dtype"])
            if dtype.kind == "f":
                out.append(rng.uniform(-1.0, 1.0, size=shape).astype(dtype))
            elif dtype.kind == "b":
                out.append(rng.integers(0, 2, size=shape).astype(dtype))
            else:
                info = np.iinfo(dtype)
                out.append(rng.integers(info.min, info.max, size=shape, endpoint=True, dtype=dtype))
        return out

    def run(self, inputs: list[np.ndarray]) -> list[np.ndarray]:
        """One invocation from the model's initial state (what a fresh process of ours runs)."""
        return self.run_sequence([inputs])[0]

    def run_sequence(self, sets: list[list[np.ndarray]]) -> list[list[np.ndarray]]:
        """Invocations one after the other from the initial state, a stateful model's state
        carried from each to the next (what one firmware run of several input sets does)."""
        self.interp.reset()
        return [self._invoke(inputs) for inputs in sets]

    def _invoke(self, inputs: list[np.ndarray]) -> list[np.ndarray]:
        for i, x in enumerate(inputs):
            self.interp.set_input(x, i)
        self.interp.invoke()
        return [np.array(self.interp.get_output(i)) for i in range(len(self.outputs))]
