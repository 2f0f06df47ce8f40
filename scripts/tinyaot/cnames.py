"""C spellings: identifiers from arbitrary tensor names, string and number literals."""

from __future__ import annotations

import re

import numpy as np

from .compiler import C_KEYWORDS

# C99 guarantees 63 significant characters in an internal identifier.
MAX_IDENT = 63
# Struct fields must also survive newer C (C23 keywords, GNU modes), the header's
# C++ users, and the lowercase macros of the standard headers a firmware includes.
RESERVED = C_KEYWORDS | frozenset(
    "alignas alignof bool constexpr false nullptr static_assert thread_local true typeof "
    "typeof_unqual asm errno assert offsetof setjmp stdin stdout stderr complex imaginary "
    "va_arg va_copy va_end va_start and and_eq bitand bitor catch char16_t char32_t char8_t "
    "class compl concept consteval constinit const_cast co_await co_return co_yield decltype "
    "delete dynamic_cast explicit export friend mutable namespace new noexcept not not_eq "
    "operator or or_eq private protected public reinterpret_cast requires static_cast "
    "template this throw try typeid typename using virtual wchar_t xor xor_eq".split()
)


def identifiers(names: list[str], fallback: str) -> list[str]:
    """Valid, unique C identifiers for `names`; empty names become fallback<i>."""
    out: list[str] = []
    used: set[str] = set()
    for i, name in enumerate(names):
        ident = re.sub(r"[^0-9A-Za-z_]", "_", name.encode("ascii", "replace").decode())
        ident = re.sub(r"_+", "_", ident).strip("_").lower()
        if not ident:
            ident = f"{fallback}{i}"
        if ident[0].isdigit():
            ident = f"t_{ident}"
        ident = ident[: MAX_IDENT - 4]
        if ident in RESERVED:
            ident += "_"
        base, n = ident, 2
        while ident in used:
            ident = f"{base}_{n}"
            n += 1
        used.add(ident)
        out.append(ident)
    return out


def string(text: str) -> str:
    """A C string literal holding the UTF-8 bytes of text; safe for any input."""
    parts = []
    for byte in text.encode("utf-8"):
        ch = chr(byte)
        if ch in '"\\?':
            parts.append("\\" + ch)
        elif 0x20 <= byte < 0x7F:
            parts.append(ch)
        else:
            parts.append(f"\\{byte:03o}")
    return '"' + "".join(parts) + '"'


def int_literal(v: int) -> str:
    v = int(v)
    if v == -(1 << 31):
        return "(-2147483647 - 1)"
    return str(v)


def float_literal(v: float) -> str:
    """Shortest decimal that reads back as the same float32."""
    f = np.float32(v)
    if not np.isfinite(f):
        raise ValueError(f"non-finite constant {v}")
    text = (
        np.format_float_positional(f, unique=True, trim="0")
        if abs(f) < 1e7 and (f == 0 or abs(f) >= 1e-4)
        else np.format_float_scientific(f, unique=True, trim="0")
    )
    if text.endswith("."):
        text += "0"
    if "." not in text and "e" not in text:
        text += ".0"
    return text + "f"


def array_body(values: np.ndarray, per_line: int = 16) -> list[str]:
    """Initializer lines for a flat array of ints or floats."""
    flat = values.reshape(-1)
    if flat.dtype.kind == "f":
        items = [float_literal(x) for x in flat.tolist()]
        per_line = 6
    else:
        items = [int_literal(x) for x in flat.tolist()]
    return [", ".join(items[i : i + per_line]) + "," for i in range(0, len(items), per_line)]
