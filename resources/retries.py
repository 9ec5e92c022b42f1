"""Which step failures are retried, and the one-line cause the CLI prints.

Dagster's ``RetryPolicy`` retries every exception a step raises: bad data (a ``ValueError`` from
one record, a schema clash) was retried three times, minutes apart, to fail the same way, and the
error shown was ``Exceeded max_retries of 3``. So the jobs carry no retry policy; instead every
asset body is wrapped by :func:`retry_transient`, which turns only *transient* errors (timeouts,
dropped connections, a busy or stale file handle, a dead worker process) into Dagster's
``RetryRequested`` with exponential backoff. Any other exception fails the step at once, with its
own message. The IO manager's ``load_input`` and ``handle_output`` are wrapped too (reading or
writing a partition on a network file system or an object store).
"""

import errno
import functools
import inspect
from collections.abc import Callable
from concurrent.futures.process import BrokenProcessPool
from typing import Any, TypeVar

from dagster import Backoff, Failure, Jitter, RetryPolicy, RetryRequested

#: How transient errors are retried (3 more attempts, 10 s then 20 s then 40 s, +/- jitter).
TRANSIENT_RETRY = RetryPolicy(
    max_retries=3, delay=10, backoff=Backoff.EXPONENTIAL, jitter=Jitter.PLUS_MINUS
)

#: ``OSError`` numbers worth another attempt (network and shared file systems, busy resources).
TRANSIENT_ERRNOS = frozenset(
    getattr(errno, name)
    for name in (
        "EAGAIN",
        "EBUSY",
        "EINTR",
        "ETIMEDOUT",
        "ECONNRESET",
        "ECONNABORTED",
        "ECONNREFUSED",
        "EHOSTUNREACH",
        "ENETUNREACH",
        "ENETDOWN",
        "ENETRESET",
        "EPIPE",
        "ESTALE",
    )
    if hasattr(errno, name)
)

F = TypeVar("F", bound=Callable[..., Any])


def is_transient(exc: BaseException) -> bool:
    """True for errors a later attempt may not meet: ``TimeoutError``, ``ConnectionError``, a
    dead worker pool, an ``OSError`` whose errno is in :data:`TRANSIENT_ERRNOS`; also when such
    an error is the explicit cause (``raise ... from``) of ``exc``. ``Failure`` is never."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        if isinstance(current, Failure):
            return False
        if isinstance(current, (TimeoutError, ConnectionError, BrokenProcessPool)):
            return True
        if isinstance(current, OSError) and current.errno in TRANSIENT_ERRNOS:
            return True
        current = current.__cause__
    return False


def _retry_request(args: tuple, kwargs: dict) -> RetryRequested:
    """The retry of the current attempt (its number from the step context among the arguments)."""
    context = next((a for a in (*args, *kwargs.values()) if hasattr(a, "retry_number")), None)
    attempt = int(getattr(context, "retry_number", 0) or 0) + 1
    return RetryRequested(
        max_retries=TRANSIENT_RETRY.max_retries,
        seconds_to_wait=TRANSIENT_RETRY.calculate_delay(attempt),
    )


def _raise_retry_if_transient(exc: Exception, args: tuple, kwargs: dict) -> None:
    """Turn a transient error into Dagster's retry request; leave any other error alone."""
    if not isinstance(exc, RetryRequested) and is_transient(exc):
        raise _retry_request(args, kwargs) from exc


def retry_transient(fn: F) -> F:
    """Wrap an asset/op body (or a generator it hands to the IO manager): transient errors are
    retried under :data:`TRANSIENT_RETRY`, anything else propagates unchanged (no retry)."""
    if inspect.isgeneratorfunction(fn):

        @functools.wraps(fn)
        def gen_wrapper(*args: Any, **kwargs: Any) -> Any:
            try:
                return (yield from fn(*args, **kwargs))
            except Exception as exc:
                _raise_retry_if_transient(exc, args, kwargs)
                raise

        return gen_wrapper  # type: ignore[return-value]

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except Exception as exc:
            _raise_retry_if_transient(exc, args, kwargs)
            raise

    return wrapper  # type: ignore[return-value]


def failure_cause(error: Any) -> str:
    """One line for a step failure's ``SerializableErrorInfo``: the innermost user error
    (``ValueError: ...``, a ``Failure``'s description), not Dagster's wrappers such as
    ``Exceeded max_retries of 3`` or ``Error occurred while executing op``."""
    current = error
    while current is not None and current.cause is not None:
        message = (current.message or "").strip()
        wrapper = (
            message.startswith("Exceeded max_retries")
            or "Error occurred while" in message
            or current.cls_name in ("RetryRequested", "RetryRequestedFromPolicy")
        )
        if not wrapper:
            break
        current = current.cause
    if current is None:
        return ""
    lines = [line.strip() for line in (current.message or "").splitlines() if line.strip()]
    text = lines[0] if lines else (current.cls_name or "error")
    if current.cls_name == "Failure":  # a stage's own message: no class name needed
        return text.split("Failure: ", 1)[-1]
    if current.cls_name and not text.startswith(current.cls_name):
        text = f"{current.cls_name}: {text}"
    return text
