"""Analysis worker processes: ``AnalyzerPool`` spreads NER batches over processes that each build
their ``TextAnalyzer`` once (``engine.py``), and this process takes the batches no worker has
started yet."""

from __future__ import annotations

import ctypes
import multiprocessing as mp
import os
import signal
import sys
import threading
import time
from collections.abc import Sequence
from concurrent.futures import Future, ProcessPoolExecutor

from agentic_pipeline.forkserver_guard import name_owner
from agentic_pipeline.masking.engine import AnalyzerConfig, Span, TextAnalyzer
from agentic_pipeline.processes import die_with_parent, process_start

_WORKER: TextAnalyzer | None = None
_PR_SET_PDEATHSIG = 1
#: How often a worker's watchdog checks that its parent is still there (seconds).
WATCHDOG_SECONDS = 1.0
#: How long ``AnalyzerPool.close`` lets busy workers finish before killing them (seconds).
CLOSE_GRACE_SECONDS = 3.0


def _die_with_parent(owner: int, owner_start: str | None) -> None:
    """Make this worker process die with the process that owns the pool, SIGKILL included.

    A killed run used to leave ~550 MB of spaCy workers behind for good: with the ``forkserver``
    context a worker's parent is the fork server, which only exits once every worker has (each
    worker holds its "alive" pipe), and a worker blocked on its task queue never sees EOF (it
    holds the queue's write end itself). So a watchdog kills this worker when the owner (pid and
    start time, so neither a zombie nor a reused pid fools it) or the parent is gone; on Linux the
    kernel also sends SIGKILL when the direct parent dies (``PR_SET_PDEATHSIG``: the fork server
    forks from its main thread, the one that stays). The fork server itself dies with the owner
    through ``agentic_pipeline.forkserver_guard``. SIGINT from the terminal is left to the owner,
    which stops the pool.
    """
    if sys.platform.startswith("linux"):
        try:
            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(_PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0)
        except (OSError, AttributeError):
            pass  # the watchdog below still applies
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    die_with_parent(owner, owner_start, every=WATCHDOG_SECONDS)


def _init_worker(config: AnalyzerConfig, owner: int, owner_start: str | None) -> None:
    global _WORKER
    _die_with_parent(owner, owner_start)
    _WORKER = TextAnalyzer(config)


def _worker_analyze(texts: list[str], use_ner: bool) -> list[list[Span]]:
    assert _WORKER is not None
    return _WORKER.analyze(texts, use_ner)


class AnalyzerPool:
    """``n_workers`` processes, each building its analyzer once (in-process if ``n_workers<=1``).

    Workers die with their parent (see ``_die_with_parent``); ``close`` stops them, and kills the
    ones still busy when it is called while a batch is in flight (an interrupted run).
    """

    def __init__(self, config: AnalyzerConfig | None = None, n_workers: int = 1) -> None:
        self.config = config or AnalyzerConfig()
        self.n_workers = max(1, int(n_workers))
        self._local: TextAnalyzer | None = None
        self._pool: ProcessPoolExecutor | None = None
        self._in_flight: list[Future] = []
        self._starting: threading.Thread | None = None
        if self.n_workers > 1:
            name_owner()  # the fork server watches this process from its first import on

    @property
    def local(self) -> TextAnalyzer:
        """The in-process analyzer (built on first use)."""
        if self._local is None:
            self._local = TextAnalyzer(self.config)
        return self._local

    def _executor(self) -> ProcessPoolExecutor:
        if self._pool is None:
            ctx = mp.get_context("forkserver")
            # the guard first: the fork server then dies with this process even while it is still
            # importing spaCy and Presidio for the workers (seconds, more on a loaded machine)
            ctx.set_forkserver_preload(
                ["agentic_pipeline.forkserver_guard", "agentic_pipeline.masking.pool"]
            )
            self._pool = ProcessPoolExecutor(
                max_workers=self.n_workers,
                mp_context=ctx,
                initializer=_init_worker,
                initargs=(self.config, os.getpid(), process_start(os.getpid())),
            )
        return self._pool

    def start(self) -> None:
        """Start the worker processes in the background now (the fork server's imports and the
        workers' model loads then overlap with the caller's reading and collecting) rather than
        at the first batch; no-op in-process."""
        if self.n_workers > 1 and self._pool is None and self._starting is None:
            self._starting = threading.Thread(target=self._spawn, name="analysis-workers")
            self._starting.daemon = True
            self._starting.start()

    def _spawn(self) -> None:
        pool = self._executor()  # returns once the fork server has imported this module
        self._in_flight = [pool.submit(os.getpid) for _ in range(self.n_workers)]

    def _started(self) -> ProcessPoolExecutor:
        """The executor, once a background ``start`` is over."""
        if self._starting is not None:
            self._starting.join()
            self._starting = None
        return self._executor()

    def _analyze_here(self, batch: list[int], texts: list[str], out: list[list[Span]]) -> None:
        spans = self.local.analyze([texts[i] for i in batch], True)
        for i, found in zip(batch, spans, strict=True):
            out[i] = found

    def worker_pids(self) -> list[int]:
        """Process ids of the running workers (empty before the first multi-process batch)."""
        procs = getattr(self._pool, "_processes", None) or {}
        return sorted(procs)

    def analyze(self, texts: Sequence[str], use_ner: bool) -> list[list[Span]]:
        """Detections per text; NER work is split across the worker processes."""
        texts = list(texts)
        if not texts:
            return []
        if not use_ner or self.n_workers <= 1 or len(texts) < 8:
            return self.local.analyze(texts, use_ner)
        # balanced batches by characters, several per worker so that they finish together
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        n_batches = self.n_workers * 4
        batches: list[list[int]] = [[] for _ in range(n_batches)]
        loads = [0] * n_batches
        for i in reversed(order):
            b = loads.index(min(loads))
            batches[b].append(i)
            loads[b] += len(texts[i]) + 50
        todo = [b for b in batches if b]
        out: list[list[Span]] = [[] for _ in texts]
        # this process analyses batches too, from the last one: while the workers start, then
        # the ones no worker has started yet (a batch gives the same spans in any process)
        while self._starting is not None and self._starting.is_alive() and len(todo) > 1:
            self._analyze_here(todo.pop(), texts, out)
        pool = self._started()
        futures = [(b, pool.submit(_worker_analyze, [texts[i] for i in b], True)) for b in todo]
        self._in_flight = [fut for _, fut in futures]
        for b, fut in reversed(futures):
            if fut.cancel():
                self._analyze_here(b, texts, out)
        for b, fut in futures:
            if not fut.cancelled():
                for i, spans in zip(b, fut.result(), strict=True):
                    out[i] = spans
        self._in_flight = []
        return out

    def close(self) -> None:
        """Stop the worker processes; busy ones (an interrupted batch) are killed after a grace."""
        if self._starting is not None:
            self._starting.join()
            self._starting = None
        if self._pool is None:
            return
        pool, self._pool = self._pool, None
        busy = any(not f.done() for f in self._in_flight)
        self._in_flight = []
        if not busy:
            pool.shutdown(cancel_futures=True)
            return
        procs = list((getattr(pool, "_processes", None) or {}).values())
        pool.shutdown(wait=False, cancel_futures=True)
        deadline = time.monotonic() + CLOSE_GRACE_SECONDS
        for proc in procs:
            proc.join(max(0.0, deadline - time.monotonic()))
        for proc in procs:
            if proc.is_alive():
                proc.kill()
                proc.join(5)
