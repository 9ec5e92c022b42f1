"""The detectors' data files (``labels.yaml``, ``addresses.yaml``, ``presidio.yaml``,
``redacted.yaml``): word lists and labels kept as data beside the code that reads them."""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import cache
from importlib import resources
from typing import Any

import yaml


@cache
def data_file(name: str) -> dict[str, Any]:
    """The parsed YAML data file ``name`` of this package, read once per process."""
    text = resources.files(__package__).joinpath(name).read_text(encoding="utf-8")
    return yaml.safe_load(text)


@cache
def word_set(file: str, name: str) -> frozenset[str]:
    """The word list ``name`` of the data file ``file`` as a set, built once (for lists asked
    of every key or JSON object)."""
    return frozenset(data_file(file)[name])


def alternation(words: Iterable[str]) -> str:
    """A word list as one regex alternation, longest first (so "Str." wins over "St")."""
    return "|".join(re.escape(w) for w in sorted(set(words), key=len, reverse=True))
