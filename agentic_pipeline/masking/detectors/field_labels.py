"""The values of ``label: value`` lines whose label names personal data (``FieldLabelRecognizer``):
a person's name under a name label of ``labels.yaml`` ("Payee: …", "Account holder: …"), or any
type the JSON key rules know ("email", "phone", "street", "place of birth", "password"...), as
the JSON key rule masks the same value under the same key."""

from __future__ import annotations

import re

from presidio_analyzer import LocalRecognizer, RecognizerResult
from presidio_analyzer.nlp_engine import NlpArtifacts

from agentic_pipeline.masking.detectors.key_rules import key_entity
from agentic_pipeline.masking.detectors.labels import (
    BARE_NAME_SCORE,
    LABEL_SCORE,
    label_entity,
    norm_label,
)

#: A ``label: value`` line (also a YAML mapping line or a bullet): the label and the value.
#: Fields of one line separated by " | " ("Street: … | City: … | Plan: gold") are read one by one.
_FIELD_LINE = re.compile(
    r"(?m)(?:^|(?<=\|))[ \t]*(?:[-*•>][ \t]+)?(?:\*\*)?(?P<label>[^\W\d][\w'’ ./-]{0,38}?)(?:\*\*)?"
    r"[ \t]*[:=](?:\*\*)?[ \t]*(?P<value>[^\n|]*?)[ \t]*(?=$|\|)"
)
_NAME_VALUE = re.compile(r"[^\W\d_][^\W\d_'’.-]*(?:[ \t]+[^\W\d_][^\W\d_'’.-]*){0,3}\.?")


#: Types masked only under their label (a place is no personal data alone, a place of birth or a
#: home town under its label is): reported whether or not the analysis asks for them.
LABEL_ONLY_TYPES = frozenset({"LOCATION"})


class FieldLabelRecognizer(LocalRecognizer):
    """The value of a ``label: value`` line whose label names personal data: a person's name
    ("Payee: Ruth Okafor", "Account holder: ..."), or any type the JSON key rules know ("email",
    "phone", "street", "date of birth", "place of birth", "password"...), as the JSON key rule
    masks it.
    A bare "Name:" scores ``BARE_NAME_SCORE``."""

    def __init__(self) -> None:
        super().__init__(
            supported_entities=[
                "PERSON",
                "EMAIL_ADDRESS",
                "PHONE_NUMBER",
                "STREET_ADDRESS",
                "DATE_OF_BIRTH",
                "USER_ID",
                "CREDENTIAL",
                *sorted(LABEL_ONLY_TYPES),
            ],
            name="FieldLabelRecognizer",
        )

    def load(self) -> None:  # noqa: D102
        pass

    def analyze(
        self, text: str, entities: list[str], nlp_artifacts: NlpArtifacts | None = None
    ) -> list[RecognizerResult]:
        """Report the values of personal ``label: value`` lines."""
        if ":" not in text and "=" not in text:
            return []
        out = []
        for m in _FIELD_LINE.finditer(text):
            value = m.group("value").strip("* \t")
            if not value or len(value) > 120:
                continue
            label = m.group("label").strip()
            et = label_entity(label)
            if et != "PERSON":
                et = key_entity(label)
            if et not in self.supported_entities:
                continue
            if entities and et not in entities and et not in LABEL_ONLY_TYPES:
                continue
            start = m.start("value") + m.group("value").find(value)
            if et == "CREDENTIAL" and (" " in value or len(value) < 4):
                continue  # "Password: see the vault", "PIN: n/a": no secret written here
            if et == "PERSON":
                name = _NAME_VALUE.match(value)
                if name is None or len(name.group().rstrip(".")) < 2:
                    continue
                value = name.group().rstrip(".")
                score = BARE_NAME_SCORE if norm_label(label) == "name" else LABEL_SCORE
            else:
                score = LABEL_SCORE
            out.append(RecognizerResult(et, start, start + len(value), score))
        return out
