"""The values of ``label: value`` lines whose label names personal data (``FieldLabelRecognizer``):
any type the JSON key rules know ("email", "phone", "street", "place of birth", "password"...),
as the JSON key rule masks the same value under the same key.

A person's name under a name label ("Payee: …") is the name model's to decide (it reads the label
as a feature): a person span reported here would only make Presidio drop the model's own spans
inside it (``remove_duplicates`` keeps the higher score of one type) before ``decide_persons``
drops every person span the model did not report."""

from __future__ import annotations

import re

from presidio_analyzer import LocalRecognizer, RecognizerResult
from presidio_analyzer.nlp_engine import NlpArtifacts

from agentic_pipeline.masking.detectors.key_rules import key_entity
from agentic_pipeline.masking.detectors.labels import LABEL_SCORE

#: A ``label: value`` line (also a YAML mapping line or a bullet): the label and the value.
#: Fields of one line separated by " | " ("Street: … | City: … | Plan: gold") are read one by one.
_FIELD_LINE = re.compile(
    r"(?m)(?:^|(?<=\|))[ \t]*(?:[-*•>][ \t]+)?(?:\*\*)?(?P<label>[^\W\d][\w'’ ./-]{0,38}?)(?:\*\*)?"
    r"[ \t]*[:=：](?:\*\*)?[ \t]*(?P<value>[^\n|]*?)[ \t]*(?=$|\|)"
)


#: Types masked only under their label (a place is no personal data alone, a place of birth or a
#: home town under its label is): reported whether or not the analysis asks for them.
LABEL_ONLY_TYPES = frozenset({"LOCATION"})


class FieldLabelRecognizer(LocalRecognizer):
    """The value of a ``label: value`` line whose label names personal data of a type the JSON
    key rules know ("email", "phone", "street", "date of birth", "place of birth", "password"...),
    as the JSON key rule masks it (no person: see the module doc)."""

    def __init__(self) -> None:
        super().__init__(
            supported_entities=[
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
        if ":" not in text and "=" not in text and "：" not in text:
            return []
        out = []
        for m in _FIELD_LINE.finditer(text):
            value = m.group("value").strip("* \t")
            if not value or len(value) > 120:
                continue
            et = key_entity(m.group("label").strip())
            if et not in self.supported_entities:
                continue
            if entities and et not in entities and et not in LABEL_ONLY_TYPES:
                continue
            start = m.start("value") + m.group("value").find(value)
            if et == "CREDENTIAL" and (" " in value or len(value) < 4):
                continue  # "Password: see the vault", "PIN: n/a": no secret written here
            out.append(RecognizerResult(et, start, start + len(value), LABEL_SCORE))
        return out
