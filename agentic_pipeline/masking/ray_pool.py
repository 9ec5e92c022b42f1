"""Presidio analysis on a Ray cluster: ``RayAnalyzerPool``, a drop-in for ``AnalyzerPool``.

This is the *analysis-only* mode of ``Masker(ray_address=...)``: ``mask_steps`` sends its unique
strings to long-lived Ray actors, one per worker CPU, each of which builds Presidio and spaCy once
(``TextAnalyzer``) and returns detections; everything else (known entities, pseudonyms, the audit,
the leak scan) stays in the driver, so it does not scale past the driver's serial work (on a
2-core machine: 1.37x with 2 actors against 1). The pipeline's Ray deployment masks *whole shards*
on actors instead (``shards.py``, ``MaskingResource.build_shard_masker``). ``ray_address`` (the
address resolution) is shared by both. Design choices of this mode:

- **The key never leaves the driver.** Actors only detect spans (which needs no key); the keyed
  pseudonyms are computed by the driver's ``Pseudonymizer``. So the key is in no task argument, no
  ``runtime_env`` (visible in Ray's dashboard) and no worker environment. The strings analysed are
  personal data and travel through Ray's object store, as they travel to the local worker
  processes; Ray does not log task arguments.
- **The same bytes either way.** An actor runs exactly the ``TextAnalyzer.analyze`` the local pool
  runs, detections are per string, and results are put back by string index, so the masked output
  and audit do not depend on the number of actors or on which actor analysed what.
- **Ray's own client, not dagster-ray.** ``dagster-ray`` 0.4.8 does install next to our pinned
  Dagster 1.13.27 (it requires ``dagster>=1.12``), but what it offers is a resource that calls
  ``ray.init`` for an op, an executor and a run launcher that run whole Dagster steps or runs as Ray
  jobs, and KubeRay cluster clients. Our unit of distribution is smaller (a batch of strings of one
  shard, to actors that keep a 500 MB spaCy model loaded across shards and days), and this module is
  plain Python under ``agentic_pipeline/``, which never imports Dagster. ``ray.init(address=...)``
  is all it needs; a deployment on KubeRay gives the cluster's address.
- **Offline.** Usage statistics are switched off (``RAY_USAGE_STATS_ENABLED=0``) before Ray starts.

Ray is imported only here and only when an address is given: the local default (the demo, tests)
uses the process pool and needs no Ray.
"""

from __future__ import annotations

import logging
import os
import resource
import sys
from collections.abc import Sequence
from typing import Any

from agentic_pipeline.masking.engine import AnalyzerConfig, AnalyzerPool, Span, TextAnalyzer

RAY_ADDRESS_ENV = "RAY_ADDRESS"
#: The line an actor writes to its worker log once its analyzer is built.
ACTOR_READY = "agentic_pipeline analyzer actor ready"
#: Batches per actor of one ``analyze`` call: several, so that the actors finish together.
BATCHES_PER_ACTOR = 4


class _AnalyzerActor:
    """Ray actor body: one analyzer, built once, used for every batch sent to this actor."""

    def __init__(self, config: AnalyzerConfig) -> None:
        self.analyzer = TextAnalyzer(config)
        # goes to the worker's log on its node (``worker-*.err``): how operators see the actors
        print(f"{ACTOR_READY} pid={os.getpid()}", file=sys.stderr, flush=True)

    def analyze(self, texts: list[str], use_ner: bool) -> list[list[Span]]:
        return self.analyzer.analyze(texts, use_ner)

    def pid(self) -> int:
        return os.getpid()

    def peak_rss_mb(self) -> float:
        """This actor's peak resident memory (MB, Linux ``ru_maxrss``)."""
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def balanced_batches(texts: Sequence[str], n_batches: int) -> list[list[int]]:
    """Indices of ``texts`` in ``n_batches`` batches of about equal characters (empty ones dropped),
    longest texts placed first; deterministic for given texts."""
    order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
    batches: list[list[int]] = [[] for _ in range(max(1, n_batches))]
    loads = [0] * len(batches)
    for i in reversed(order):
        b = loads.index(min(loads))
        batches[b].append(i)
        loads[b] += len(texts[i]) + 50
    return [b for b in batches if b]


class RayAnalyzerPool:
    """``n_workers`` Ray actors (0: one per CPU of the cluster), each with its own analyzer.

    Same interface as ``AnalyzerPool`` (``config``, ``n_workers``, ``analyze``, ``close``).
    Connects with ``ray.init(address=address)`` unless Ray is already initialized in this process;
    ``close`` kills the actors and disconnects if this pool connected.
    """

    def __init__(self, config: AnalyzerConfig | None, address: str, n_workers: int = 0) -> None:
        os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")  # offline: no usage report
        import ray  # only a Ray deployment needs it

        self._ray = ray
        self.config = config or AnalyzerConfig()
        self.address = address
        self._connected = connect(ray, address)
        cpus = int(ray.cluster_resources().get("CPU", 1))
        self.n_workers = max(1, int(n_workers) if n_workers else cpus)
        actor_cls = ray.remote(num_cpus=1, max_restarts=1, max_task_retries=1)(_AnalyzerActor)
        self.actors: list[Any] = [actor_cls.remote(self.config) for _ in range(self.n_workers)]

    def worker_pids(self) -> list[int]:
        """Process ids of the actors (on their nodes)."""
        return sorted(self._ray.get([a.pid.remote() for a in self.actors]))

    def analyze(self, texts: Sequence[str], use_ner: bool) -> list[list[Span]]:
        """Detections per text, the batches spread over the actors as they become free."""
        texts = list(texts)
        if not texts:
            return []
        from ray.util import ActorPool

        batches = balanced_batches(texts, len(self.actors) * BATCHES_PER_ACTOR)
        pool = ActorPool(self.actors)
        results = pool.map(
            lambda actor, batch: actor.analyze.remote([texts[i] for i in batch], use_ner), batches
        )
        out: list[list[Span]] = [[] for _ in texts]
        for batch, spans in zip(batches, results, strict=True):
            for i, found in zip(batch, spans, strict=True):
                out[i] = [tuple(s) for s in found]  # type: ignore[misc]
        return out

    def close(self) -> None:
        """Kill the actors; disconnect from the cluster if this pool connected."""
        release_actors(self._ray, self.actors, self._connected)
        self.actors, self._connected = [], False


def connect(ray: Any, address: str) -> bool:
    """Connect this process to the cluster at ``address`` unless Ray is already initialized;
    True if this call connected (so the caller disconnects when done)."""
    if ray.is_initialized():
        return False
    ray.init(
        address=address,
        logging_level=logging.WARNING,
        log_to_driver=False,  # worker output may hold library warnings, never forwarded
        configure_logging=False,
    )
    return True


def release_actors(ray: Any, actors: Sequence[Any], disconnect: bool) -> None:
    """Kill ``actors`` (one already gone is fine); ``disconnect`` shuts this process's Ray
    connection down too (when this process made it)."""
    for actor in actors:
        try:
            ray.kill(actor)
        except Exception:  # noqa: BLE001 - an actor already gone is fine
            pass
    if disconnect and ray.is_initialized():
        ray.shutdown()


def ray_address(configured: str | None = None) -> str:
    """The Ray address to use: ``configured`` if set, else ``RAY_ADDRESS``, else "" (local)."""
    return (configured or os.environ.get(RAY_ADDRESS_ENV, "")).strip()


def analyzer_pool(
    config: AnalyzerConfig, n_workers: int = 1, address: str | None = None, ray_workers: int = 0
) -> AnalyzerPool | RayAnalyzerPool:
    """The analysis pool of a deployment: Ray actors when a Ray address is given (argument or
    ``RAY_ADDRESS``), else the local process pool of ``n_workers`` processes."""
    resolved = ray_address(address)
    if resolved:
        return RayAnalyzerPool(config, resolved, ray_workers)
    return AnalyzerPool(config, n_workers=n_workers)
