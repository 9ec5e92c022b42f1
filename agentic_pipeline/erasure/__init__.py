"""Right to be forgotten: remove one *person* (not one string) from every table and file.

The subject is given in clear by one or more of their identifiers: an email, phone, card, user or
customer id, or a name together with another identifier. Values are only used as their keyed
pseudonyms (the key resolved by ``masking.keys.masking_key``, like masking does) and never stored.

The person is found from the warehouse alone, because retention may have deleted the raw days:

1. *seed*: each given value gives the pseudonyms it may have been masked as (an email may have been
   an ``EMAIL_ADDRESS`` or a ``USER_ID``, a digit string a phone or a card number, ...); ids that
   masking keeps in clear (customer ids) are searched as they are;
2. *episodes*: an episode of ``masked_trajectories`` is the subject's when it holds one of the
   subject's *identifying* identifiers (email, phone, card, user or customer id, SSN, IBAN, bank
   account, ID document), or their full name together with their street address or birth date;
3. *linking*: in those episodes, each structured record (a JSON object, not crossing into lists)
   that holds one of the subject's identifiers is the person's record: its other pseudonyms and
   customer ids are *linked*, each with the reason. Then 2 again with them, at most
   ``MAX_ROUNDS`` times. First or last names alone, cities, zip codes, card endings are linked as
   *generic*: recorded, never used to find episodes, since strangers share them.

Every Parquet table of both zones with an ``episode_id`` (or ``logged_episode_id``) column then
loses those episodes' rows. Quarantined and landing records that quote one of the person's
identifying values in clear go too: the given values and, while the raw rows still exist, the raw
values of linked pseudonyms (recovered by hashing the raw structured values of the found episodes).
Aggregates are recomputed by the caller. The receipt records pseudonyms, entity types, reasons,
partitions and counts, never a value; ``verify_erasure`` scans every table and file afterwards.

Modules: ``subjects`` (identifiers, plan and receipt shapes, seeding), ``forms`` (normal forms of
a value), ``linking`` (episodes and records of the subject), ``plan`` (the erasure plan and the
re-materialization plan), ``apply`` (one day or landing file at a time, receipt), ``landing``
(landing files through the ingestion's bounded readers), ``verify``, and ``job`` (the journaled
job that runs them all and resumes after a crash). See ``docs/erasure.md``.
"""

from agentic_pipeline.erasure.apply import TableCheckError, write_receipt
from agentic_pipeline.erasure.forms import clear_pattern, phone_forms, token_forms
from agentic_pipeline.erasure.job import CRASH_ENV, Journal, job_id, run_erasure
from agentic_pipeline.erasure.landing import LandingCheckError, erase_landing_file
from agentic_pipeline.erasure.linking import LegacyTokensError
from agentic_pipeline.erasure.plan import plan_erasure, rematerialization_runs
from agentic_pipeline.erasure.subjects import (
    MAX_IDENTIFYING,
    MAX_ROUNDS,
    RECEIPTS_DIR,
    ErasurePlan,
    ErasureTooBroadError,
    Identifier,
    Receipt,
    UnknownSubjectError,
    subject_kinds,
)
from agentic_pipeline.erasure.verify import remaining_mentions, verify_erasure

__all__ = [
    "CRASH_ENV",
    "MAX_IDENTIFYING",
    "MAX_ROUNDS",
    "RECEIPTS_DIR",
    "ErasurePlan",
    "ErasureTooBroadError",
    "Identifier",
    "Journal",
    "LandingCheckError",
    "LegacyTokensError",
    "Receipt",
    "TableCheckError",
    "UnknownSubjectError",
    "clear_pattern",
    "erase_landing_file",
    "job_id",
    "phone_forms",
    "plan_erasure",
    "rematerialization_runs",
    "remaining_mentions",
    "run_erasure",
    "subject_kinds",
    "token_forms",
    "verify_erasure",
    "write_receipt",
]
