"""agentic-pipeline domain library: plain Python, no Dagster.

Turns the logs of LLM agents into decisions: ingest raw logs (``formats``, ``ingest``), mask
personal data (``masking``), replay episodes through an environment (``environments``,
``replay``), score them (``rewards``) and select a policy per task type (``selection``).
``storage`` holds the partitioned Parquet layout shared by every stage and ``demo`` the
built-in CRM demo data (never imported by product code).
"""

__version__ = "0.1.0"
