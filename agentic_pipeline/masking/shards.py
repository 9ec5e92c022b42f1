"""Masking a day shard by shard: in this process (the default) or whole shards on Ray actors.

``shard_masker(...)`` gives the masker of a deployment; its ``map(shards)`` takes the day's raw
shards (Arrow tables, in order) and yields one ``MaskResult`` per shard, in the same order:

- **Local** (no Ray address): ``LocalShardMasker`` runs ``mask_steps`` in this process, its
  Presidio/spaCy analysis in the local process pool (``Masker(n_workers=...)``), as before.
- **Ray** (an address in the resource config or ``RAY_ADDRESS``): ``RayShardMasker`` starts one
  long-lived actor per worker (0: one per CPU of the cluster). Each actor holds a complete
  ``Masker`` with its analyzer in the actor's own process, built once, and runs ``mask_steps`` on a
  whole shard: collect, analysis, known entities, keyed pseudonyms, apply, the leak scan and the
  audit all run on the actor; the driver only reads shards, sends them and writes the results. At
  most ``in_flight_per_actor`` shards per actor are sent and not yet consumed (driver and object
  store memory stay bounded by a few shards); each new shard goes to the actor with the fewest
  unfinished shards; results are consumed strictly in shard order, so the output and the audit's
  ``row`` offsets are those of the local run. ``mask_steps`` is deterministic and per shard, so
  which actor masked what does not change a byte.

**The key is a secret, never sent through Ray.** Neither the key nor anything derived from it
that could give it back is in an actor's arguments, a task's arguments or a ``runtime_env`` (all
visible in Ray's dashboard and state API). Each actor resolves the key from its own environment
with ``keys.masking_key``, the resolver the driver uses: on KubeRay the key is a Kubernetes Secret
mounted as ``AGENTIC_PIPELINE_MASKING_KEY`` in the worker pods; a head started with ``ray start``
passes the environment of whoever started it to its workers. The driver sends only the key's
public fingerprint (``keys.key_fingerprint``) and whether it masks with the development key; an
actor whose key has another fingerprint (or that has no key) refuses to mask, and the driver raises
``WorkerKeyError`` with a one-line message that holds no key material. Because the actors hold
the key, masking on Ray requires Ray's token authentication on the driver and on every node, and
a head that is down fails the run at once (``ray_cluster.py``).

The raw shards and their masked results are personal data and restricted data on their way: they
travel through Ray's object store (shared memory, spilled to the nodes' Ray temp folder under
pressure), as they travel to the local worker processes; Ray does not log task arguments, and
actors' output is not forwarded to the driver.

**Ray's own client, not dagster-ray.** ``dagster-ray`` 0.4.8 installs next to our pinned Dagster
1.13.27 (it requires ``dagster>=1.12``), but it runs whole Dagster steps or runs as Ray jobs, and
this module is plain Python under ``agentic_pipeline/``, which never imports Dagster. Actors that
keep a 500 MB spaCy model loaded across the shards and days of a run need only ``ray.init`` and
``ray.remote``. Ray is imported only when an address is given: the demo and the local default need
no Ray. Usage statistics are switched off (``RAY_USAGE_STATS_ENABLED=0``) before Ray starts.
"""

from __future__ import annotations

import os
import resource
import sys
import time
from collections import deque
from collections.abc import Iterable, Iterator, Mapping
from typing import Any, Protocol

import pyarrow as pa

from agentic_pipeline.masking.keys import (
    DEV_MODE_ENV,
    MASKING_KEY_ENV,
    MissingMaskingKeyError,
    key_fingerprint,
    masking_key,
)
from agentic_pipeline.masking.mask import Masker, MaskResult, mask_steps
from agentic_pipeline.masking.pseudonyms import is_dev_key
from agentic_pipeline.masking.ray_cluster import (
    RayClusterError,
    connect,
    ray_address,
    release_actors,
    require_token_auth,
    token_auth_error,
)

#: The line an actor writes to its worker log once its masker is built (how operators, and the
#: tests, see the actors).
ACTOR_READY = "agentic_pipeline shard masker actor ready"
#: Shards per actor sent and not yet consumed: one masked while the next waits in its queue.
IN_FLIGHT_PER_ACTOR = 2
#: Arguments a shard masker never takes as ``Masker`` options: the key is resolved where the masker
#: runs, and where that is (here or on Ray) is ``shard_masker``'s choice alone.
_RESERVED = frozenset({"key", "n_workers", "ray_address", "ray_workers"})

KEY_MISMATCH_MESSAGE = (
    f"the Ray workers' masking key differs from the driver's: set {MASKING_KEY_ENV} to the same "
    "secret in the workers' environment (the worker pods' Secret on KubeRay, the environment of "
    "`ray start` for a local head)"
)
WORKER_NO_KEY_MESSAGE = (
    f"the Ray workers have no masking key: set {MASKING_KEY_ENV} in the workers' environment "
    "(the worker pods' Secret on KubeRay, the environment of `ray start` for a local head)"
)


class WorkerKeyError(RayClusterError):
    """A Ray worker has no masking key or another key than the driver (message names no value)."""


class ShardMasker(Protocol):
    """Masks a day's shards in order; close it (``with``) when done."""

    def map(self, shards: Iterable[pa.Table]) -> Iterator[MaskResult]: ...

    def close(self) -> None: ...

    def __enter__(self) -> ShardMasker: ...

    def __exit__(self, *exc: object) -> None: ...


def _options(options: Mapping[str, Any]) -> dict[str, Any]:
    reserved = sorted(_RESERVED & options.keys())
    if reserved:
        raise ValueError(f"not a masker option of a shard masker: {', '.join(reserved)}")
    return dict(options)


class LocalShardMasker:
    """``mask_steps`` in this process, shard after shard (analysis in the local process pool)."""

    def __init__(self, key: str | bytes, n_workers: int = 1, **options: Any) -> None:
        self.masker = Masker(key=key, n_workers=n_workers, **_options(options))
        self.masker.pool.start()  # workers load while the first shard is read and collected

    def map(self, shards: Iterable[pa.Table]) -> Iterator[MaskResult]:
        for raw in shards:
            yield mask_steps(raw, self.masker)

    def close(self) -> None:
        self.masker.close()

    def __enter__(self) -> LocalShardMasker:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def worker_key(fingerprint: str, dev: bool, environ: Mapping[str, str] | None = None) -> str:
    """The key of this worker, resolved from its own environment like the driver's; raises
    ``WorkerKeyError`` when there is none or its fingerprint is not ``fingerprint``.

    ``dev``: the driver masks with the development key, so development mode is on here too (and
    off otherwise: a worker never falls back to the public key under a driver with a real one).
    """
    env = dict(os.environ if environ is None else environ)
    if dev:
        env[DEV_MODE_ENV] = "1"
    else:
        env.pop(DEV_MODE_ENV, None)
    try:
        key = masking_key(env)
    except MissingMaskingKeyError:
        raise WorkerKeyError(WORKER_NO_KEY_MESSAGE) from None
    if key_fingerprint(key) != fingerprint:
        raise WorkerKeyError(KEY_MISMATCH_MESSAGE)
    return key


class _ShardActor:
    """Ray actor body: one complete ``Masker`` (analyzer in this process), built once."""

    def __init__(self, options: dict[str, Any], fingerprint: str, dev: bool) -> None:
        self.masker: Masker | None = None
        t = time.perf_counter()
        # reported by ``ready``: the driver raises it. A node without token authentication
        # masks nothing: any client that reaches it could read this worker's key.
        self.error: RayClusterError | None = token_auth_error()
        if self.error is not None:
            return
        try:
            key = worker_key(fingerprint, dev)
        except WorkerKeyError as exc:
            self.error = exc
            return
        self.masker = Masker(key=key, n_workers=1, **options)
        self.masker.pool.local  # noqa: B018 - build Presidio and spaCy now, once
        del key
        self.startup_seconds = time.perf_counter() - t
        # goes to the worker's log on its node (``worker-*.err``)
        print(f"{ACTOR_READY} pid={os.getpid()}", file=sys.stderr, flush=True)

    def ready(self) -> RayClusterError | None:
        """``None`` when the masker is built, else why it was not (one line, no key material)."""
        return self.error

    def mask(self, table: pa.Table) -> MaskResult:
        """``mask_steps`` of one whole shard; ``stats["seconds"]``: ``worker`` (its wall time here)
        and ``worker_cpu`` (this process's CPU time for it)."""
        if self.masker is None:
            raise self.error or WorkerKeyError("no masker")
        t, cpu = time.perf_counter(), time.process_time()
        result = mask_steps(table, self.masker)
        result.stats["seconds"]["worker"] = time.perf_counter() - t
        result.stats["seconds"]["worker_cpu"] = time.process_time() - cpu
        return result

    def info(self) -> dict[str, float]:
        """Process id, masker build time and peak resident memory (MB, Linux ``ru_maxrss``)."""
        return {
            "pid": os.getpid(),
            "startup_seconds": getattr(self, "startup_seconds", 0.0),
            "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        }


class RayShardMasker:
    """``n_workers`` Ray actors (0: one per CPU of the cluster), each masking whole shards.

    Refuses without Ray's token authentication in this process (``RayAuthError``: the actors
    hold the key). Connects with ``ray.init(address=address)`` unless Ray is already initialized in
    this process (``RayUnavailableError`` at once when no head answers), starts the actors and
    waits until each has built its masker (``startup_seconds``); raises ``WorkerKeyError`` if an
    actor's key is missing or differs, ``RayAuthError`` if its node runs without token
    authentication. ``close`` kills the actors and disconnects if this masker connected.
    """

    def __init__(
        self,
        address: str,
        fingerprint: str,
        dev: bool,
        n_workers: int = 0,
        in_flight_per_actor: int = IN_FLIGHT_PER_ACTOR,
        **options: Any,
    ) -> None:
        require_token_auth()
        os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")  # offline: no usage report
        import ray  # only a Ray deployment needs it

        self._ray = ray
        self.address = address
        self.actors: list[Any] = []
        t = time.perf_counter()
        self._connected = connect(ray, address)
        try:
            cpus = int(ray.cluster_resources().get("CPU", 1))
            self.n_workers = max(1, int(n_workers) if n_workers else cpus)
            self.max_in_flight = max(1, int(in_flight_per_actor)) * self.n_workers
            actor_cls = ray.remote(num_cpus=1, max_restarts=1, max_task_retries=1)(_ShardActor)
            opts = _options(options)
            self.actors = [actor_cls.remote(opts, fingerprint, dev) for _ in range(self.n_workers)]
            errors = ray.get([a.ready.remote() for a in self.actors])
        except BaseException:
            self.close()
            raise
        refused = next((e for e in errors if e), None)
        if refused:
            self.close()
            raise refused
        self.startup_seconds = time.perf_counter() - t

    def map(self, shards: Iterable[pa.Table]) -> Iterator[MaskResult]:
        """Mask ``shards`` on the actors; results in shard order, at most ``max_in_flight``
        shards sent and not yet consumed."""
        ray = self._ray
        pending: deque[list[Any]] = deque()  # [ref, actor index, finished], in shard order
        running = [0] * len(self.actors)  # unfinished shards per actor
        source = iter(shards)
        exhausted = False
        while True:
            while not exhausted and len(pending) < self.max_in_flight:
                table = next(source, None)
                if table is None:
                    exhausted = True
                    break
                self._note_finished(pending, running)
                a = min(range(len(self.actors)), key=lambda i: (running[i], i))
                pending.append([self.actors[a].mask.remote(table), a, False])
                running[a] += 1
                del table  # the object store holds it now
            if not pending:
                return
            ref, a, finished = pending.popleft()
            result = ray.get(ref)
            if not finished:
                running[a] -= 1
            yield result

    def _note_finished(self, pending: deque[list[Any]], running: list[int]) -> None:
        """Mark the sent shards whose masking has finished (no waiting, nothing fetched)."""
        open_refs = {p[0].hex(): p for p in pending if not p[2]}
        if not open_refs:
            return
        refs = [p[0] for p in open_refs.values()]
        done, _ = self._ray.wait(refs, num_returns=len(refs), timeout=0, fetch_local=False)
        for ref in done:
            entry = open_refs[ref.hex()]
            entry[2] = True
            running[entry[1]] -= 1

    def actor_info(self) -> list[dict[str, float]]:
        """Per actor: process id, masker build time, peak resident memory (MB)."""
        return self._ray.get([a.info.remote() for a in self.actors])

    def close(self) -> None:
        """Kill the actors; disconnect from the cluster if this masker connected."""
        release_actors(self._ray, self.actors, self._connected)
        self.actors, self._connected = [], False

    def __enter__(self) -> RayShardMasker:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def shard_masker(
    key: str | bytes,
    n_workers: int = 1,
    address: str | None = None,
    ray_workers: int = 0,
    **options: Any,
) -> LocalShardMasker | RayShardMasker:
    """The shard masker of a deployment: whole shards on Ray actors when a Ray address is given
    (argument or ``RAY_ADDRESS``), else ``mask_steps`` here with ``n_workers`` analysis
    processes. ``options``: other ``Masker`` arguments (``phone_regions``, ...). With Ray, only
    the key's fingerprint leaves this process; the actors resolve the key themselves."""
    resolved = ray_address(address)
    if resolved:
        fingerprint = key_fingerprint(key)
        dev = is_dev_key(key)
        return RayShardMasker(resolved, fingerprint, dev, n_workers=ray_workers, **options)
    return LocalShardMasker(key, n_workers=n_workers, **options)
