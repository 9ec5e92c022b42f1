"""The declarative tool catalogue: one source of domain knowledge for replay, risk and rewards.

Built-in catalogues (the demo CRM, the tau-bench airline and retail domains) are YAML files in
``builtin/``; a deployment adds or replaces tool sets with its own YAML file(s), named by
``AGENTIC_PIPELINE_TOOL_CATALOGUE`` (files or folders, separated by ``os.pathsep``).
See :mod:`agentic_pipeline.catalogue.model` for the file layout.
"""

from __future__ import annotations

import os
from functools import lru_cache
from pathlib import Path

import yaml

from agentic_pipeline.catalogue.errors import DEFAULT_ERRORS, ErrorPatterns, is_error_text
from agentic_pipeline.catalogue.inference import infer_effect
from agentic_pipeline.catalogue.model import (
    EFFECTS,
    UNKNOWN,
    UNKNOWN_TOOL_SET,
    Catalogue,
    ToolEntry,
    ToolKind,
    ToolSet,
    ToolSpec,
)

BUILTIN_DIR = Path(__file__).parent / "builtin"
CATALOGUE_ENV = "AGENTIC_PIPELINE_TOOL_CATALOGUE"

__all__ = [
    "BUILTIN_DIR",
    "CATALOGUE_ENV",
    "DEFAULT_ERRORS",
    "EFFECTS",
    "UNKNOWN",
    "UNKNOWN_TOOL_SET",
    "Catalogue",
    "ErrorPatterns",
    "ToolEntry",
    "ToolKind",
    "ToolSet",
    "ToolSpec",
    "builtin_catalogue",
    "default_catalogue",
    "infer_effect",
    "is_error_text",
    "load_catalogue",
]


def _yaml_files(path: Path) -> list[Path]:
    if path.is_dir():
        return sorted(p for p in path.iterdir() if p.suffix in (".yaml", ".yml"))
    if not path.is_file():
        raise FileNotFoundError(f"tool catalogue not found: {path}")
    return [path]


def load_file(path: str | Path) -> Catalogue:
    """One catalogue YAML file (raises ``ValueError`` naming the file on a bad entry)."""
    with open(path, encoding="utf-8") as fh:
        data = yaml.safe_load(fh) or {}
    return Catalogue.from_dict(data, source=Path(path).name)


def load_catalogue(paths: str | Path | list[str | Path] | None, builtins: bool = True) -> Catalogue:
    """The built-in tool sets (unless ``builtins`` is false) plus those of ``paths``.

    ``paths`` is a file, a folder of ``*.yaml`` files, a list of those, or a string of them joined
    by ``os.pathsep``; later tool sets replace earlier ones of the same name.
    """
    if isinstance(paths, str):
        paths = [p for p in paths.split(os.pathsep) if p]
    elif isinstance(paths, Path):
        paths = [paths]
    catalogue = builtin_catalogue() if builtins else Catalogue({}, "v1", ())
    for path in paths or []:
        for file in _yaml_files(Path(path)):
            catalogue = catalogue.merged(load_file(file))
    return catalogue


@lru_cache(maxsize=1)
def builtin_catalogue() -> Catalogue:
    """The packaged catalogues (``builtin/*.yaml``)."""
    catalogue = Catalogue({}, "v1", ())
    for file in _yaml_files(BUILTIN_DIR):
        catalogue = catalogue.merged(load_file(file))
    return catalogue


def default_catalogue() -> Catalogue:
    """The built-ins plus ``$AGENTIC_PIPELINE_TOOL_CATALOGUE`` when it is set."""
    return load_catalogue(os.environ.get(CATALOGUE_ENV) or None)
