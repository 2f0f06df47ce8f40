"""The Zephyr-style docs stay in step with what they describe: doc/index.rst lists every
Kconfig option with its help text and every argument of tinyaot_add_model(), and each sample
has a README.rst in Zephyr's code-sample form."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
PAGE = REPO / "doc" / "index.rst"
SAMPLES = sorted(p for p in (REPO / "samples").iterdir() if (p / "sample.yaml").exists())


def words(text: str) -> str:
    return " ".join(text.replace("\\*", "*").split())


def kconfig_options() -> dict[str, str]:
    """Option name -> its help text, from zephyr_module/Kconfig."""
    options: dict[str, str] = {}
    name = None
    in_help = False
    for line in (REPO / "zephyr_module" / "Kconfig").read_text().splitlines():
        if m := re.match(r"^(?:menu)?config (\w+)$", line):
            name, in_help = m[1], False
            options[name] = ""
        elif line.strip() == "help":
            in_help = True
        elif in_help and name and line.startswith("\t  "):
            options[name] += " " + line.strip()
        elif line.strip():
            in_help = False
    return {k: words(v) for k, v in options.items()}


def test_page_has_every_kconfig_option_with_its_help() -> None:
    page = PAGE.read_text()
    terms = re.findall(r"^``CONFIG_(\w+)`` \(", page, re.M)
    options = kconfig_options()
    assert terms == list(options), "doc/index.rst's options differ from the Kconfig file's"
    flat = words(page)
    for name, help_text in options.items():
        assert help_text and help_text in flat, f"CONFIG_{name}'s help is not the Kconfig's"


def test_page_has_every_cmake_argument() -> None:
    cmake = (REPO / "cmake" / "tinyaot.cmake").read_text()
    cmake = cmake[cmake.index("function(tinyaot_add_model ") :]
    args = r'cmake_parse_arguments\(PARSE_ARGV 1 arg "([^"]*)"\s+"([^"]*)"\s+"([^"]*)"\)'
    m = re.search(args, cmake)
    assert m, "tinyaot_add_model's cmake_parse_arguments not found"
    keywords = [k for k in ";".join(m.groups()).split(";") if k]
    page = PAGE.read_text()
    signature = page[page.index("tinyaot_add_model(<target>") :].split("\n\n")[0]
    for keyword in keywords:
        assert f"[{keyword}" in signature or f"{keyword} <" in signature, keyword
        assert f"``{keyword}``" in page, f"{keyword} is not described"


def test_readme_links_the_page() -> None:
    assert "(doc/index.rst)" in (REPO / "README.md").read_text()


@pytest.mark.parametrize("sample", SAMPLES, ids=[p.name for p in SAMPLES])
def test_sample_readme_is_a_zephyr_code_sample(sample: Path) -> None:
    text = (sample / "README.rst").read_text()
    assert re.match(r"\.\. zephyr:code-sample:: tinyaot-[a-z-]+\n   :name: \S", text)
    headings = re.findall(r"^(.+)\n([*=])\2+$", text, re.M)
    titles = [title for title, _ in headings]
    assert titles[0] == "Overview" and "Sample Output" in titles
    assert ("Building and Running", "*") in headings
    assert f":zephyr-app: samples/{sample.name}\n" in text
    for title, rule in re.findall(r"^(.+)\n([*=]+)$", text, re.M):
        assert len(rule) >= len(title), f"{title}: the underline is shorter than the title"
