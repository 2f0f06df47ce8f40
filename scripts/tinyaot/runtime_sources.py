"""The runtime's source files, from crt/sources.txt: the one list CMake, bench/ and the tests
build from."""

from pathlib import Path

CRT = Path(__file__).resolve().parents[2] / "crt"
LIST = CRT / "sources.txt"


def runtime_sources(suffix: str | None = None) -> list[Path]:
    """The runtime's sources in the list's order; with suffix (".c", ".S"), only those."""
    lines = (line.strip() for line in LIST.read_text().splitlines())
    paths = [CRT / line for line in lines if line and not line.startswith("#")]
    return [p for p in paths if suffix is None or p.suffix == suffix]
