"""``agentic-pipeline``: the project's command line (``cli.main:main``, or ``python -m cli``).

``main`` parses and dispatches; ``common`` holds the data root, the masking key and usage errors;
``runs`` runs days in-process; ``commands`` and ``erase`` are the commands; ``housekeeping``
gives back what a killed run held.
"""
