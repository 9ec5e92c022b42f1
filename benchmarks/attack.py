"""Replay the attack on the pipeline (issues 11, 22) and print, per line, held or broke.

Each line of the attack is reproduced by one or more tests (small inputs: the heavy parts scaled
down, real Dagster, real Presidio, real processes killed with SIGKILL). This script runs exactly
those tests in one pytest session and reports each line as ``held`` when every test of the line
passed, ``broke`` otherwise (a skipped test counts as broke: the line was not shown to hold).

    python benchmarks/attack.py            # about 2 minutes on 2 cores (104 tests)
    python benchmarks/attack.py --list     # the lines and their tests, without running them
"""

import argparse
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

#: (attack line, the tests that reproduce it). The node ids are pytest's, relative to the repo.
E = "tests/test_erasure.py::"
ING = "tests/test_ingest_hardening.py::"
R = "tests/test_robustness.py::"
C = "tests/test_cli_errors.py::"
X = "tests/test_crash_recovery.py::"
RAY = "tests/test_ray.py::"
SM = "tests/test_shard_masker.py::"
ER = "tests/test_erasure_robust.py::"
TK = "tests/test_tokens_and_keys.py::"
DB = "tests/test_day_budgets.py::"
LB = "tests/test_masking_labels.py::"
ATTACK: list[tuple[str, list[str]]] = [
    (
        "1 erase with the production key finds the person after retention removed the raw days",
        [
            E + "test_erase_uses_the_key_value_and_finds_the_person_after_retention",
            E + "test_landing_file_labels_are_keyed_with_the_same_key",
        ],
    ),
    (
        "2 erasing by one identifier erases the person (linked identifiers), names need another",
        [
            E + "test_erasing_by_email_erases_the_person_everywhere_but_not_a_namesake",
            E + "test_a_name_alone_cannot_be_erased",
            E + "test_linking_stays_inside_the_subjects_record",
            E + "test_a_name_counts_with_a_birth_date_but_not_alone",
            E + "test_a_customer_id_kept_in_clear_finds_the_person",
            E + "test_linked_values_are_recovered_from_raw_rows_to_find_unmasked_days",
        ],
    ),
    (
        "3 no raw PII through ts, started_at, source_file, ids, labels or event-log metadata",
        [
            ING + "test_timestamps_are_typed_and_unparseable_ones_quarantined",
            ING + "test_source_file_is_relative_and_a_personal_name_is_hashed",
            ING + "test_identifier_columns_must_be_strict_identifiers",
            ING + "test_unmasked_string_columns_hold_no_personal_data",
            ING + "test_asset_takes_limits_from_the_resource_and_keeps_the_event_log_clean",
            "tests/test_leak_scan_columns.py::test_personal_data_in_lineage_and_timestamp_columns_is_found",
            R + "test_metadata_tables_keyed_by_personal_values_are_redacted",
            R + "test_safe_metadata_scans_every_kind_of_value",
        ],
    ),
    (
        "4 kill -9 during masking leaves no slot, no orphan worker, no half-swapped day; "
        "SIGINT/SIGTERM stop the run cleanly",
        [
            X + "test_masking_workers_die_with_their_killed_parent",
            X + "test_interrupted_masking_stops_its_busy_workers",
            X + "test_cli_killed_during_masking_leaves_nothing_held",
            X + "test_cli_stops_cleanly_on_sigterm_during_masking",
            X + "test_release_dead_runs_frees_the_slot_of_a_dead_owner_only",
            X + "test_cli_waiting_for_a_busy_pool_says_so_and_stops_on_sigint",
            X + "test_a_run_marked_failed_by_hand_gives_its_slot_back",
            "tests/test_storage.py::test_writer_killed_at_any_point_leaves_a_readable_day",
        ],
    ),
    (
        "5 unbounded input: gzip bomb, one 2 GiB line, 10^6 episodes a day, a dense 1 MiB record",
        [
            ING + "test_one_huge_line_is_skipped_without_being_held",
            ING + "test_a_gzip_bomb_stops_at_the_expansion_limit",
            ING + "test_day_record_limit_quarantines_the_overflow_and_counts_add_up",
            ING + "test_day_byte_limit_cuts_the_day",
            ING + "test_a_json_file_over_its_limit_is_refused",
            ING + "test_an_episode_that_expands_by_repetition_is_quarantined",
            ING + "test_day_output_limit_quarantines_the_episodes_over_it",
            "tests/test_masking_limits.py::test_ner_reads_a_bounded_start_and_patterns_read_everything",
            "tests/test_masking_limits.py::test_a_string_longer_than_the_ner_limit_gets_a_guard_record",
            "tests/test_masking_limits.py::test_masking_time_of_a_dense_record_grows_linearly",
        ],
    ),
    (
        "6 one bad record (huge int, deep nesting, type drift) never fails a day, no blind retries",
        [
            ING + "test_records_that_used_to_fail_the_day_are_quarantined",
            ING + "test_an_unexpected_exception_quarantines_one_record",
            ING + "test_an_empty_or_all_quarantined_day_has_the_fixed_schema",
            R + "test_selection_window_mixing_int_and_null_first_message_chars",
            R + "test_deeply_nested_json_skips_the_episode_not_the_day",
            R + "test_poisoned_day_materializes_replay_and_shadow",
            R + "test_bad_data_fails_at_once_and_the_cli_prints_its_cause",
        ],
    ),
    (
        "7 symlinks in landing (to /etc/passwd, outside the root) are refused unread",
        [
            ING + "test_symlinks_and_files_outside_landing_are_refused_unread",
            ING + "test_a_symlinked_landing_day_is_refused",
            ING + "test_a_file_swapped_for_a_symlink_after_listing_is_not_followed",
        ],
    ),
    (
        "8 no masking key: masking, erase and export refuse unless development mode is explicit",
        [
            E + "test_without_key_nothing_is_masked_erased_or_exported",
            E + "test_development_mode_is_announced_once_per_command",
            E + "test_the_key_comes_from_the_variable_value_or_explicit_dev_mode",
        ],
    ),
    (
        "9 concurrent writers of one partition and a kill between the renames of a swap",
        [
            "tests/test_storage.py::test_concurrent_writers_of_one_day_serialize",
            "tests/test_storage.py::test_day_lost_between_renames_is_restored_by_a_read",
            "tests/test_storage.py::test_trash_left_by_an_interrupted_swap_of_the_old_layout_is_"
            "renamed_back",
            "tests/test_storage.py::test_recover_skips_a_day_whose_writer_is_alive",
            "tests/test_storage.py::test_delete_killed_midway_never_leaves_half_a_day",
        ],
    ),
    (
        "10 CLI: future day, bad or empty selection, unwritable zone: one line, no run",
        [
            C + "test_bad_days_are_refused_in_one_line_before_dagster_loads",
            C + "test_bad_selection_is_an_error_and_runs_nothing",
            C + "test_unwritable_zone_fails_at_once",
            C + "test_unexpected_error_is_one_line_with_debug_hint",
        ],
    ),
    (
        "11 deterministic audit, strict JSON, private data root and instance",
        [
            "tests/test_audit_determinism.py::test_tied_spans_give_the_same_audit_in_any_order",
            "tests/test_audit_determinism.py::test_recognizers_run_in_name_order",
            R + "test_strict_json_dumps_writes_null_for_non_finite_numbers",
            R + "test_ingested_context_and_masked_json_are_strict",
            R + "test_training_exports_are_strict_json",
            R + "test_shadow_requests_are_strict_json",
            R + "test_data_root_and_dagster_home_are_private",
        ],
    ),
    (
        "12 one leaking string or false alarm refuses one episode, not the day",
        [
            "tests/test_masking_asset.py::test_a_leaking_episode_is_withheld_and_the_rest_of_the_day_is_written",
            "tests/test_leak_scan_independent.py::test_floats_arithmetic_amounts_timestamps_and_ids_raise_no_leak",
        ],
    ),
    # --- issue 22 (robust erasure, tokens, day budgets, cost per record, smaller points) ------
    (
        "22.1 erasure is a journaled job: killed at each step and re-run, the bytes of one clean "
        "erase; a bomb or corrupt file in any day skipped with a reason; a tau2 file loses only "
        "the subject's simulations",
        [
            ER + "test_killed_at_each_step_and_run_again_gives_the_bytes_of_one_clean_erasure",
            ER + "test_a_bomb_in_another_day_is_skipped_with_its_reason_in_bounded_memory",
            ER + "test_a_tau2_results_file_loses_only_the_subjects_simulations",
        ],
    ),
    (
        "22.2 erasure by person: a phone written differently, cards and emails in any form; "
        "lock waits name the holder; no pseudonym in the event log",
        [
            ER + "test_phones_are_one_person_in_every_normal_form",
            ER + "test_killed_at_each_step_and_run_again_gives_the_bytes_of_one_clean_erasure",
            ER + "test_waiting_for_a_day_lock_says_who_holds_it",
            ER + "test_the_erasure_writes_no_pseudonym_to_the_event_log",
        ],
    ),
    (
        "22.3 tokens never merge two people: 96-bit tokens, 10^5 values without a collision, a "
        "collision at masking time fails loudly, 32-bit data roots refused in one line",
        [
            TK + "test_tokens_carry_at_least_64_bits_and_match_the_one_token_pattern",
            TK + "test_a_hundred_thousand_emails_get_a_hundred_thousand_tokens",
            TK + "test_a_collision_at_masking_time_fails_loudly_without_the_values",
            ER + "test_a_data_root_of_32_bit_pseudonyms_is_refused_in_one_line",
        ],
    ),
    (
        "22.4 hostile encodings are masked where they stand: full-width, %XX in tool-call URLs, "
        "HTML references, names used as JSON keys, phones as integers under unknown keys",
        [
            LB + "test_hostile_encodings_are_masked_where_they_stand",
            LB + "test_personal_keys_and_bare_numbers_under_unknown_keys",
            LB + "test_bare_number_rules",
            LB + "test_text_view_maps_back_to_the_original_characters",
            "tests/test_masking_asset.py::test_a_personal_json_key_is_masked_and_the_whole_day_written",
        ],
    ),
    (
        "22.5 fair day budgets: a small file sorted first cannot starve the day; budget refusals "
        "fail the blocking check and the CLI in one line",
        [
            DB + "test_a_small_file_sorted_first_cannot_empty_the_day",
            DB + "test_the_day_goes_to_the_smallest_files_first",
            DB + "test_records_refused_by_a_budget_fail_the_day_and_the_cli_exits_non_zero",
        ],
    ),
    (
        "22.6 bounded cost per record: dense and unbroken records quarantined at ingestion; "
        "a hostile day (bomb, 5,001-digit int, deep JSON, symlink) keeps its 60 good episodes",
        [
            DB + "test_a_record_over_the_analysis_budget_is_quarantined_at_ingestion",
            DB + "test_a_long_run_without_whitespace_is_quarantined_at_ingestion",
            DB + "test_real_benchmark_records_fit_the_default_analysis_budget",
            DB + "test_a_hostile_day_materializes_with_every_good_episode",
        ],
    ),
    (
        "22.8 corrupt Parquet named with its rebuild command, weak keys refused, insane day "
        "folders ignored",
        [
            "tests/test_storage.py::test_a_corrupt_part_file_is_named_with_its_path_and_how_to_"
            "rebuild_it",
            TK + "test_short_or_low_entropy_keys_are_refused_in_one_line",
            TK + "test_random_keys_and_the_development_path_are_accepted",
            "tests/test_partitions_start.py::test_day_folders_outside_a_sane_range_are_reported_"
            "and_ignored",
        ],
    ),
    # --- end of issue 22 (robust) ---------------------------------------------------------------
    (
        "22.7 Ray without a token: no client without the cluster's token reads the workers' key, "
        "masking refuses a driver or node without token auth, the head listens on loopback only",
        [
            RAY + "test_a_driver_without_the_cluster_token_is_refused",
            RAY + "test_every_socket_of_the_head_listens_on_loopback",
            SM + "test_a_driver_without_token_authentication_is_refused_before_ray",
            SM + "test_the_documented_head_needs_token_authentication_and_keeps_loopback",
        ],
    ),
    (
        "22.7 Ray with the head down: the masking step fails in seconds with one line, no retry, "
        "and gives the masking pool back",
        [
            RAY + "test_a_missing_head_fails_the_run_in_seconds_and_frees_the_masking_pool",
            SM + "test_a_missing_head_is_reported_in_one_line_at_once",
        ],
    ),
    (
        "held before, must keep holding: offline, re-runs identical, stable keyed pseudonyms, "
        "malformed input quarantined, restricted zone 0700/0600",
        [
            "tests/test_masking.py::test_email_analysis_makes_no_network_call",
            "tests/test_orchestration.py::test_rematerializing_a_day_is_idempotent",
            "tests/test_masking.py::test_pseudonyms_are_keyed_normalized_and_consistent",
            "tests/test_ingest.py::test_malformed_records_are_quarantined_with_reasons",
            "tests/test_storage.py::test_restricted_zone_permissions",
        ],
    ),
]


def _node_outcomes(junit: Path) -> dict[str, str]:
    outcomes: dict[str, str] = {}
    for case in ET.parse(junit).getroot().iter("testcase"):
        path = case.get("classname", "").replace(".", "/")
        node = f"{path}.py::{case.get('name')}"
        if case.find("failure") is not None or case.find("error") is not None:
            outcomes[node] = "failed"
        elif case.find("skipped") is not None:
            outcomes[node] = "skipped"
        else:
            outcomes[node] = "passed"
    return outcomes


def _matches(node: str, outcome_node: str) -> bool:
    """A listed node id matches itself and, without brackets, each of its parametrized cases."""
    return outcome_node == node or outcome_node.startswith(node + "[")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--list", action="store_true", help="list the lines and their tests")
    args = parser.parse_args()
    if args.list:
        for line, nodes in ATTACK:
            print(line)
            for node in nodes:
                print(f"    {node}")
        return 0
    nodes = sorted({node for _, tests in ATTACK for node in tests})
    with tempfile.TemporaryDirectory() as tmp:
        junit = Path(tmp) / "attack.xml"
        subprocess.run(
            [
                sys.executable,
                "-m",
                "pytest",
                "-q",
                "-p",
                "no:cacheprovider",
                f"--junitxml={junit}",
                *nodes,
            ],
            cwd=REPO,
            check=False,
        )
        outcomes = _node_outcomes(junit) if junit.exists() else {}
    held = 0
    print()
    for line, tests in ATTACK:
        results = [o for n, o in outcomes.items() if any(_matches(t, n) for t in tests)]
        ok = bool(results) and all(o == "passed" for o in results)
        held += ok
        print(f"{'held ' if ok else 'BROKE'}  {line}  ({len(results)} test(s))")
    print(f"\n{held} of {len(ATTACK)} lines held")
    return 0 if held == len(ATTACK) else 1


if __name__ == "__main__":
    sys.exit(main())
