"""The model corpus is what its manifest says, and stays within the limits the issue set."""

from __future__ import annotations

import hashlib

import pytest
from corpus import MODELS, Entry, entries, model_paths

# The limits: every file must stay small enough for a microcontroller's flash and the
# whole corpus small enough to keep in git without LFS.
MAX_FILE_BYTES = 1_000_000
MAX_TOTAL_BYTES = 15_000_000
MIN_MODELS = 40
MIN_SOURCES = 6

FIELDS = {
    "file",
    "sha256",
    "bytes",
    "source",
    "commit",
    "path",
    "license",
    "license_file",
    "task",
    "area",
    "dtype",
    "stateful",
}


def test_enough_models():
    assert len(entries()) >= MIN_MODELS


def test_enough_independent_sources():
    assert len({e["source"] for e in entries()}) >= MIN_SOURCES


def test_every_file_is_listed_once():
    listed = [e["file"] for e in entries()]
    assert len(listed) == len(set(listed))
    assert sorted(p.name for p in MODELS.glob("*.tflite")) == sorted(listed)


def test_no_duplicate_models():
    hashes = [e["sha256"] for e in entries()]
    assert len(hashes) == len(set(hashes))


def test_total_size():
    assert sum(p.stat().st_size for p in model_paths()) < MAX_TOTAL_BYTES


@pytest.mark.parametrize("entry", entries(), ids=lambda e: e["file"])
def test_entry_matches_file(entry: Entry):
    assert FIELDS <= entry.keys(), FIELDS - entry.keys()
    path = MODELS / entry["file"]
    data = path.read_bytes()
    assert len(data) == entry["bytes"]
    assert len(data) < MAX_FILE_BYTES
    assert hashlib.sha256(data).hexdigest() == entry["sha256"]
    # A FlatBuffer with the TFLite file identifier, not a Git LFS pointer or a C array.
    assert data[4:8] == b"TFL3"
    assert (MODELS / entry["license_file"]).is_file()
    assert isinstance(entry["stateful"], bool)
    assert len(entry["commit"]) == 40
    assert entry["source"].count("/") == 1
