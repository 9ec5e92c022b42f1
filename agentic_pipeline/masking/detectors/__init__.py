"""Detector families of the masking, one family per module, their words and labels as data files
beside them (``labels.yaml``, ``presidio.yaml``).

- ``presidio_set``: the predefined Presidio recognizers that run and the personal types they report;
- ``labels``: ids of people found by their label, in prose, lines, headers and keys;
- ``checked_ids``: national ids without a label, by their written shape and check digits;
- ``field_labels``: the values of ``label: value`` lines whose label names personal data;
- ``records``: whether a JSON object is a person's record or a thing's (bare ``id`` and ``name``);
- ``redacted``: partly redacted SSNs and cards, UPI payment addresses;
- ``data_files``: the one reader of the YAML data files.
"""

from agentic_pipeline.masking.detectors.field_labels import FieldLabelRecognizer
from agentic_pipeline.masking.detectors.labels import IdLabelRecognizer, label_entity
from agentic_pipeline.masking.detectors.presidio_set import (
    country_recognizers,
    masked_types,
    not_personal_types,
    predefined_types,
)

__all__ = [
    "FieldLabelRecognizer",
    "IdLabelRecognizer",
    "country_recognizers",
    "label_entity",
    "masked_types",
    "not_personal_types",
    "predefined_types",
]
