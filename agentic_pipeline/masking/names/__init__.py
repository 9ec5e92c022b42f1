"""Person names, decided by a trained model (issue #21, point 4).

* ``lexicon``: the name lists (Faker's locales) and word lists the features read;
* ``features``: the candidate tokens of a text and their features;
* ``model``: the logistic-regression weights (``data/name_model.json``, or the file named by
  ``$AGENTIC_PIPELINE_NAME_MODEL``) and the spans they give, spaCy's PERSON entities included
  unless vetoed (the floor);
* ``recognizer``: the Presidio recognizer reporting them and ``decide_persons``, the step of the
  masking that keeps only the model's person spans;
* ``build``: the training corpora and ``build_model`` (``python -m
  agentic_pipeline.masking.names.build`` rebuilds the shipped model).
"""

from agentic_pipeline.masking.names.lexicon import (
    COMMON_WORDS,
    is_name_pair,
    listed_name,
    listed_names,
    name_gazetteer,
    not_a_name_word,
)
from agentic_pipeline.masking.names.model import (
    MODEL_ENV,
    MODEL_PATH,
    NameModel,
    default_model,
    load_model,
)
from agentic_pipeline.masking.names.recognizer import (
    DETECTOR,
    NameModelRecognizer,
    decide_persons,
)

__all__ = [
    "COMMON_WORDS",
    "DETECTOR",
    "MODEL_ENV",
    "MODEL_PATH",
    "NameModel",
    "NameModelRecognizer",
    "decide_persons",
    "default_model",
    "is_name_pair",
    "listed_name",
    "listed_names",
    "load_model",
    "name_gazetteer",
    "not_a_name_word",
]
