"""The masking key: one resolution, from the environment variable's *value*, for every code path.

Masking, erasure and the CLI all call :func:`masking_key`. A key is the value of
``AGENTIC_PIPELINE_MASKING_KEY``. Without it, only an explicit development mode
(``AGENTIC_PIPELINE_DEV_MODE=1``) gives the public development key; otherwise
:class:`MissingMaskingKeyError` is raised, because tokens made with a key that ships with the
repository can be recomputed by anyone who has the repository.

A key shorter than ``MIN_KEY_BYTES`` bytes or of low estimated entropy (``key_problem``) is refused
with :class:`WeakMaskingKeyError`: a guessable key lets anyone recompute every token. The
development key path stays as it is (it is public anyway, and announced).
"""

from __future__ import annotations

import hashlib
import hmac
import math
import os
from collections import Counter
from collections.abc import Mapping

from agentic_pipeline.masking.pseudonyms import DEV_MASKING_KEY, is_dev_key

MASKING_KEY_ENV = "AGENTIC_PIPELINE_MASKING_KEY"
DEV_MODE_ENV = "AGENTIC_PIPELINE_DEV_MODE"
_TRUE = frozenset({"1", "true", "yes", "on"})

DEV_KEY_NOTICE = (
    f"DEVELOPMENT MODE ({DEV_MODE_ENV}=1): personal data is masked with the PUBLIC development "
    f"key, so anyone with this repository can recompute every token. Never use it for real data: "
    f"set {MASKING_KEY_ENV} to a secret."
)
MISSING_KEY_MESSAGE = (
    f"no masking key: set {MASKING_KEY_ENV} to a secret (or {DEV_MODE_ENV}=1 for the public "
    f"development key, demo and tests only)"
)

#: The fixed message whose keyed hash is a key's fingerprint (versioned: never reuse it for tokens).
_FINGERPRINT_LABEL = b"agentic-pipeline masking-key fingerprint v1"
FINGERPRINT_HEX_CHARS = 16

#: Shortest key accepted (bytes of its UTF-8 form): 32, the size of the HMAC-SHA256 block's half.
MIN_KEY_BYTES = 32
#: Least estimated entropy (bits) of an accepted key (see ``key_problem``).
MIN_KEY_BITS = 96

_announced = False


class MissingMaskingKeyError(RuntimeError):
    """Neither a masking key nor development mode: personal data must not be masked or erased."""


class WeakMaskingKeyError(MissingMaskingKeyError):
    """The key is too short or too regular to keep tokens from being recomputed."""


def key_problem(key: str) -> str | None:
    """Why ``key`` is too weak to mask with, or ``None`` (the message never holds the key).

    Refused: fewer than ``MIN_KEY_BYTES`` bytes; an estimated entropy under ``MIN_KEY_BITS``
    bits, the estimate being the key's length times the Shannon entropy of its own characters
    (``"x" * 40`` has 0 bits, ``"abab..."`` 1 bit a character); a key that is one shorter string
    repeated. ``openssl rand -base64 32`` or ``-hex 32`` gives about 170-250 bits by this estimate.
    """
    data = key.encode("utf-8", "surrogatepass")
    if len(data) < MIN_KEY_BYTES:
        return f"{MASKING_KEY_ENV} is shorter than {MIN_KEY_BYTES} bytes"
    counts = Counter(key)
    bits = -sum(c / len(key) * math.log2(c / len(key)) for c in counts.values()) * len(key)
    period = next(
        (
            p
            for p in range(1, len(key) // 2 + 1)
            if key == key[:p] * (len(key) // p) + key[: len(key) % p]
        ),
        None,
    )
    if period is not None:
        return f"{MASKING_KEY_ENV} repeats a {period}-character string: use a random secret"
    if bits < MIN_KEY_BITS:
        return (
            f"{MASKING_KEY_ENV} has too little entropy (about {int(bits)} bits estimated, "
            f"{MIN_KEY_BITS} needed): use a random secret such as `openssl rand -base64 32`"
        )
    return None


def dev_mode(environ: Mapping[str, str] | None = None) -> bool:
    """True when development mode was asked for explicitly (``AGENTIC_PIPELINE_DEV_MODE=1``)."""
    env = os.environ if environ is None else environ
    return env.get(DEV_MODE_ENV, "").strip().lower() in _TRUE


def masking_key(environ: Mapping[str, str] | None = None) -> str:
    """The key to pseudonymize with: the variable's value, else the dev key in dev mode.

    Raises ``MissingMaskingKeyError`` (message names the variables, never a value) otherwise, and
    ``WeakMaskingKeyError`` for a key ``key_problem`` refuses. A variable set to the development
    key itself counts as no key.
    """
    env = os.environ if environ is None else environ
    key = env.get(MASKING_KEY_ENV) or ""
    if key and not is_dev_key(key):
        problem = key_problem(key)
        if problem:
            raise WeakMaskingKeyError(problem)
        return key
    if dev_mode(env):
        return DEV_MASKING_KEY
    raise MissingMaskingKeyError(MISSING_KEY_MESSAGE)


def uses_dev_key(environ: Mapping[str, str] | None = None) -> bool:
    """True when :func:`masking_key` gives the development key (raises like it without any key)."""
    return is_dev_key(masking_key(environ))


def announce_dev_key() -> str | None:
    """The development-key notice the first time it is asked for in this process, then ``None``.

    The CLI prints it once before its runs; the asset logs it as a warning only when nobody in
    the process did yet, so a run (or a CLI command of many day runs) shows it once.
    """
    global _announced
    if _announced:
        return None
    _announced = True
    return DEV_KEY_NOTICE


def key_fingerprint(key: str | bytes) -> str:
    """A short public fingerprint of ``key``: HMAC-SHA256(key, a fixed label), 16 hex digits.

    Two processes compare fingerprints to check that they hold the same key without sending it
    (the Ray workers resolve their own key, see ``masking/shards.py``). The label is not a value
    anyone masks, so the fingerprint is no token of any value, and it cannot give the key back.
    """
    k = key if isinstance(key, bytes) else key.encode("utf-8")
    return hmac.new(k, _FINGERPRINT_LABEL, hashlib.sha256).hexdigest()[:FINGERPRINT_HEX_CHARS]
