"""The compiler's model of a network: tensors, ops and the graph that joins them.

The frontend builds it from a .tflite file; passes and the planner read it and
add to it; nothing in it refers back to the flatbuffer.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field

import numpy as np


class DType(enum.Enum):
    """Element types the runtime knows, with what codegen needs of each."""

    FLOAT32 = ("float32", "float", 4, "TINYAOT_DTYPE_FLOAT32")
    INT8 = ("int8", "int8_t", 1, "TINYAOT_DTYPE_INT8")
    UINT8 = ("uint8", "uint8_t", 1, "TINYAOT_DTYPE_UINT8")
    INT16 = ("int16", "int16_t", 2, "TINYAOT_DTYPE_INT16")
    INT32 = ("int32", "int32_t", 4, "TINYAOT_DTYPE_INT32")
    INT64 = ("int64", "int64_t", 8, "TINYAOT_DTYPE_INT64")
    # The audio front end's Signal* custom ops (energies, filter bank sums).
    UINT32 = ("uint32", "uint32_t", 4, "TINYAOT_DTYPE_UINT32")
    UINT64 = ("uint64", "uint64_t", 8, "TINYAOT_DTYPE_UINT64")
    # One byte, 0 or 1, as TFLite stores bool.
    BOOL = ("bool", "uint8_t", 1, "TINYAOT_DTYPE_BOOL")

    def __init__(self, short: str, ctype: str, size: int, c_enum: str) -> None:
        self.short = short
        self.ctype = ctype
        self.size = size
        self.c_enum = c_enum

    @property
    def numpy(self) -> np.dtype:
        return np.dtype(self.short)


@dataclass(frozen=True)
class Quant:
    """Affine quantisation: real = scale * (q - zero_point), per tensor or per channel."""

    scales: tuple[float, ...]
    zero_points: tuple[int, ...]
    axis: int = 0

    @property
    def per_channel(self) -> bool:
        return len(self.scales) > 1


@dataclass
class Tensor:
    index: int
    name: str
    dtype: DType
    shape: tuple[int, ...]
    quant: Quant | None = None
    data: np.ndarray | None = None
    # State, kept across invocations in the state buffer, never in the arena (state.py): a
    # variable tensor (LSTM, SVDF) or a resource variable's slot.
    variable: bool = False
    # A resource handle (VAR_HANDLE's output): names a resource variable, holds no data.
    resource: bool = False

    @property
    def is_const(self) -> bool:
        return self.data is not None

    @property
    def num_elements(self) -> int:
        n = 1
        for d in self.shape:
            n *= d
        return n

    @property
    def nbytes(self) -> int:
        return self.num_elements * self.dtype.size

    @property
    def scale(self) -> float:
        """The per-tensor scale (0.0 when not quantised)."""
        return self.quant.scales[0] if self.quant else 0.0

    @property
    def zero_point(self) -> int:
        return self.quant.zero_points[0] if self.quant else 0


@dataclass
class Op:
    index: int
    kind: str
    inputs: list[int | None]
    outputs: list[int]
    options: dict[str, object] = field(default_factory=dict)

    def describe(self) -> str:
        return f"op {self.index} ({self.kind})"


@dataclass
class Graph:
    tensors: list[Tensor]
    ops: list[Op]
    inputs: list[int]
    outputs: list[int]
    # The model's other subgraphs by index (CALL_ONCE's initialisation subgraphs).
    subgraphs: dict[int, Graph] = field(default_factory=dict)

    def tensor(self, index: int | None) -> Tensor:
        assert index is not None
        return self.tensors[index]

    def producers(self) -> dict[int, int]:
        """Tensor index -> index of the op that writes it."""
        return {t: op.index for op in self.ops for t in op.outputs}

    def consumers(self) -> dict[int, list[int]]:
        users: dict[int, list[int]] = {}
        for op in self.ops:
            for t in op.inputs:
                if t is not None:
                    users.setdefault(t, []).append(op.index)
        return users
