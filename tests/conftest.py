"""Puts the compiler and the test helpers on the path for every test module."""

import sys
from pathlib import Path

TESTS = Path(__file__).resolve().parent
sys.path[:0] = [str(TESTS.parent / "scripts"), str(TESTS)]
