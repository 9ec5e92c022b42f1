"""PII masking of canonical step rows (plain Python + Presidio, fully offline).

Public API: ``Masker``, ``mask_steps``, ``MaskResult``, ``WITHHELD_SCHEMA``, ``scan_for_leaks``,
``Leak``, ``PIILeakError``, ``pseudonym_for``, ``DEV_MASKING_KEY``, ``is_dev_key``. See ``mask.py``
for the pipeline (``episode.py``: known values and votes; ``apply.py``: masking one string;
``tables.py``: audit and withheld tables) and ``detectors/`` for what is masked and what is kept
(one detector family per module; ``names/``: person names decided by a trained model;
``vocabulary.py``: word frequencies, places and calendar words).
"""

from agentic_pipeline.masking.engine import MASK_ENTITIES  # noqa: I001  (sets tldextract offline)
from agentic_pipeline.masking.mask import (
    AUDIT_SCHEMA,
    MASK_COLUMNS,
    WITHHELD_SCHEMA,
    Masker,
    MaskResult,
    mask_steps,
)
from agentic_pipeline.masking.pseudonyms import DEV_MASKING_KEY, is_dev_key, pseudonym_for
from agentic_pipeline.masking.scan import Leak, PIILeakError, scan_for_leaks

__all__ = [
    "AUDIT_SCHEMA",
    "DEV_MASKING_KEY",
    "Leak",
    "MASK_COLUMNS",
    "MASK_ENTITIES",
    "MaskResult",
    "Masker",
    "PIILeakError",
    "WITHHELD_SCHEMA",
    "is_dev_key",
    "mask_steps",
    "pseudonym_for",
    "scan_for_leaks",
]
