"""The second line of defence: a scan of masked tables with detectors of its own family.

``leaks.py`` scans tables (strict patterns, every raw value masking found, and the detectors of
``detectors.py``, which masking does not use) and reports where a leak is, never the value;
``find_leaks`` also hands masking the values, so that it masks them (``mask.mask_leaks``) and
withholds an episode only when that fails.
"""

from agentic_pipeline.masking.scan.leaks import (
    MASKED_AND_ID_COLUMNS,
    Leak,
    PIILeakError,
    compile_values,
    find_leaks,
    independent_leaks,
    scan_for_leaks,
    string_columns,
)

__all__ = [
    "Leak",
    "MASKED_AND_ID_COLUMNS",
    "PIILeakError",
    "compile_values",
    "find_leaks",
    "independent_leaks",
    "scan_for_leaks",
    "string_columns",
]
