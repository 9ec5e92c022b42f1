"""How an error result looks: default patterns plus the catalogue's own (prefixes, JSON keys).

A tool result is an error when it

- starts with ``Error`` or with an exception name and a colon (``ValueError: ...``,
  ``ValidationError: ...``, ``requests.exceptions.HTTPError: ...``);
- is a JSON object with a non-empty ``error`` (or ``errors``) value, or with an HTTP status code
  of 400-599 under ``status``, ``status_code``, ``statusCode`` or ``http_status``;
- is an HTTP 4xx/5xx body in text (``HTTP/1.1 404 Not Found``, ``500 Internal Server Error``);
- matches one of the catalogue's extra ``prefixes`` or ``json_keys``, or carries one of its
  ``status_codes`` under a status key (default keys plus its ``status_keys``).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

_EXCEPTION_RE = re.compile(r"^((?i:error)|[A-Za-z_][\w.]*(Error|Exception|Fault)\s*:)")
_HTTP_RE = re.compile(r"^(HTTP/\d(\.\d)?\s+)?[45]\d\d\s+[A-Z][A-Za-z]+")
_STATUS_KEYS = ("status", "status_code", "statusCode", "http_status")
_ERROR_KEYS = ("error", "errors")


def _status(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, str) and value.isdigit():
        value = int(value)
    return value if isinstance(value, int) else None


@dataclass(frozen=True)
class ErrorPatterns:
    """The catalogue's extra error markers; the default patterns always apply."""

    prefixes: tuple[str, ...] = ()
    json_keys: tuple[str, ...] = ()
    status_keys: tuple[str, ...] = ()
    #: Status codes that mean an error besides 400-599.
    status_codes: tuple[int, ...] = ()

    @classmethod
    def from_dict(cls, data: Any, where: str) -> ErrorPatterns:
        data = data or {}
        keys = {"prefixes", "json_keys", "status_keys", "status_codes"}
        if not isinstance(data, dict) or set(data) - keys:
            raise ValueError(f"{where}: 'errors' takes only {', '.join(sorted(keys))}")
        codes = data.get("status_codes") or []
        if not isinstance(codes, list) or not all(
            isinstance(c, int) and not isinstance(c, bool) for c in codes
        ):
            raise ValueError(f"{where}.errors.status_codes must be a list of integers")
        return cls(
            tuple(_strings(data.get("prefixes"), f"{where}.errors.prefixes")),
            tuple(_strings(data.get("json_keys"), f"{where}.errors.json_keys")),
            tuple(_strings(data.get("status_keys"), f"{where}.errors.status_keys")),
            tuple(codes),
        )

    def to_dict(self) -> dict[str, list]:
        return {
            "prefixes": list(self.prefixes),
            "json_keys": list(self.json_keys),
            "status_keys": list(self.status_keys),
            "status_codes": list(self.status_codes),
        }

    def is_error(self, text: str | None) -> bool:
        """Whether a logged tool result is an error (default patterns and this catalogue's)."""
        if text is None:
            return False
        stripped = text.lstrip()
        if _EXCEPTION_RE.match(stripped) or _HTTP_RE.match(stripped):
            return True
        if any(stripped.startswith(p) for p in self.prefixes):
            return True
        if not stripped.startswith("{"):
            return False
        try:
            value = json.loads(stripped)
        except ValueError:
            return False
        if not isinstance(value, dict):
            return False
        for key in (*_ERROR_KEYS, *self.json_keys):
            if value.get(key) not in (None, False, "", [], {}):
                return True
        for key in (*_STATUS_KEYS, *self.status_keys):
            code = _status(value.get(key))
            if code is not None and (400 <= code <= 599 or code in self.status_codes):
                return True
        return False


DEFAULT_ERRORS = ErrorPatterns()


def is_error_text(text: str | None) -> bool:
    """The default error patterns (no catalogue)."""
    return DEFAULT_ERRORS.is_error(text)


def _strings(value: Any, where: str) -> Iterable[str]:
    if value is None:
        return []
    if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
        raise ValueError(f"{where} must be a list of non-empty strings")
    return value
