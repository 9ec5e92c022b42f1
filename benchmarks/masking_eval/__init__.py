"""The masking benchmark on the development corpora (issue #21): labelled corpora
(``corpora``), recall and over-masking measurement (``evaluation``, ``misses``) and the
leave-one-corpus-out harness beside plain Presidio (``python -m benchmarks.masking_eval``).

Evaluation code lives here, outside the product: ``agentic_pipeline`` never imports it."""
