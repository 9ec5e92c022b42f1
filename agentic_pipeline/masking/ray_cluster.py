"""The Ray cluster that masks shards (``shards.RayShardMasker``): its address, token
authentication, reaching it, releasing its actors, and the documented way to start a head.

**Token authentication is required.** The shard actors hold the masking key (each resolves it from
its own environment), and without Ray's token authentication any client that reaches the head can
run code on the workers and read their environment. So a driver masks on Ray only with
``RAY_AUTH_MODE=token`` and a token (``RAY_AUTH_TOKEN``, ``RAY_AUTH_TOKEN_PATH`` or Ray's default
``~/.ray/auth_token``) in its environment (``require_token_auth``), and an actor refuses to build
its masker on a node without them (``token_auth_error``): Ray reads both settings from the
environment of every process, and the cluster then refuses any client without the token.

**A missing head fails at once.** ``ray.init`` on an address where nothing listens retries for
minutes, printing only connection warnings, while the run holds the masking pool. ``connect``
first opens a plain TCP connection to the address (``PROBE_SECONDS``) and raises
``RayUnavailableError`` with one line when nothing answers; a head that answers but refuses the
driver's token makes ``ray.init`` give up within about 20 s, reported the same way.

**A head on loopback stays on loopback.** Ray 2.60 replaces a loopback node address
(``--node-ip-address 127.0.0.1``, or a driver's ``127.0.0.1:6379``) by the machine's network
address (``ray._private.services.resolve_ip_for_localhost``), and then its GCS and raylet listen
on every interface, its client server and agents on that address. Ray's single-machine switch
``RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER=0`` keeps 127.0.0.1: the head started by ``main`` below sets it
for a loopback host (every socket of the head then listens on 127.0.0.1 only, checked by
``tests/test_ray.py``), and ``connect`` sets it in a driver whose address is loopback. For any other
address Ray 2.60 listens on all interfaces of the node: on KubeRay the pod's network is the
boundary (a NetworkPolicy that admits only the run pods), with the token on top (docs/ray.md).

Start a head (the masking key and the Ray token in its environment, as a worker pod has them from
Secrets)::

    RAY_AUTH_MODE=token RAY_AUTH_TOKEN=... AGENTIC_PIPELINE_MASKING_KEY=... \\
        python -m agentic_pipeline.masking.ray_cluster --host 127.0.0.1 --port 6379 --num-cpus 4

Ray is imported by the caller only when an address is given: the local default needs no Ray.
"""

from __future__ import annotations

import argparse
import logging
import os
import socket
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

RAY_ADDRESS_ENV = "RAY_ADDRESS"
AUTH_MODE_ENV = "RAY_AUTH_MODE"
AUTH_TOKEN_ENV = "RAY_AUTH_TOKEN"
AUTH_TOKEN_PATH_ENV = "RAY_AUTH_TOKEN_PATH"
#: Where Ray looks for its token when neither variable is set (under the home folder).
DEFAULT_TOKEN_FILE = Path(".ray") / "auth_token"
#: Ray's switch that keeps a loopback node address instead of the machine's network address.
SINGLE_MACHINE_ENV = "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"
LOOPBACK_HOSTS = frozenset({"127.0.0.1", "localhost", "::1"})
#: How long the head's address may take to accept a TCP connection.
PROBE_SECONDS = 5.0

DRIVER_NO_TOKEN_AUTH_MESSAGE = (
    f"masking on Ray needs Ray's token authentication (its workers hold the masking key): set "
    f"{AUTH_MODE_ENV}=token and the cluster's token ({AUTH_TOKEN_ENV} or {AUTH_TOKEN_PATH_ENV}) "
    "in the run's environment, as on every Ray node (docs/ray.md)"
)
WORKER_NO_TOKEN_AUTH_MESSAGE = (
    f"the Ray cluster runs without token authentication, so any client that reaches it could read "
    f"the masking key of its workers: start every node with {AUTH_MODE_ENV}=token and a token "
    "(docs/ray.md)"
)


class RayClusterError(RuntimeError):
    """The Ray deployment cannot mask (one line, no key material): retrying does not help."""


class RayAuthError(RayClusterError):
    """Token authentication is off, or no token is set, on the driver or on a Ray node."""


class RayUnavailableError(RayClusterError):
    """No Ray head answers at the address, or it refused this driver."""


def ray_address(configured: str | None = None) -> str:
    """The Ray address to use: ``configured`` if set, else ``RAY_ADDRESS``, else "" (local)."""
    return (configured or os.environ.get(RAY_ADDRESS_ENV, "")).strip()


def has_token_auth(environ: Mapping[str, str] | None = None) -> bool:
    """True when ``environ`` turns Ray's token authentication on and holds or points to a token."""
    env = os.environ if environ is None else environ
    if env.get(AUTH_MODE_ENV, "").strip().lower() != "token":
        return False
    if env.get(AUTH_TOKEN_ENV, "").strip():
        return True
    home = env.get("HOME") or str(Path.home())
    path = Path(env.get(AUTH_TOKEN_PATH_ENV) or Path(home) / DEFAULT_TOKEN_FILE)
    try:
        return bool(path.read_text().strip())
    except OSError:
        return False


def require_token_auth(environ: Mapping[str, str] | None = None) -> None:
    """Raise ``RayAuthError`` unless this process would connect with a token."""
    if not has_token_auth(environ):
        raise RayAuthError(DRIVER_NO_TOKEN_AUTH_MESSAGE)


def token_auth_error(environ: Mapping[str, str] | None = None) -> RayAuthError | None:
    """On a Ray worker: the error to report when its node runs without token authentication."""
    return None if has_token_auth(environ) else RayAuthError(WORKER_NO_TOKEN_AUTH_MESSAGE)


def host_port(address: str) -> tuple[str, int]:
    """Host and port of ``host:port``, ``[v6]:port`` or ``ray://host:port``."""
    rest = address.strip().removeprefix("ray://").rstrip("/")
    host, sep, port = rest.rpartition(":")
    if not sep or not port.isdigit() or not host:
        raise RayUnavailableError(f"not a Ray address (host:port or ray://host:port): {address!r}")
    return host.strip("[]"), int(port)


def probe(address: str, seconds: float = PROBE_SECONDS) -> None:
    """Raise ``RayUnavailableError`` (one line) unless ``address`` accepts a TCP connection."""
    host, port = host_port(address)
    try:
        with socket.create_connection((host, port), timeout=seconds):
            return
    except TimeoutError:
        reason = f"no answer within {seconds:g} s"
    except OSError as exc:
        reason = exc.strerror or type(exc).__name__
    raise RayUnavailableError(
        f"no Ray head answers at {address} ({reason}): start it or fix ray_address / "
        f"{RAY_ADDRESS_ENV} (docs/ray.md)"
    )


def keep_loopback(ray: Any, address: str) -> None:
    """For a head on this machine's loopback: stop Ray replacing 127.0.0.1 by the machine's
    network address in this process (the head listens on loopback only)."""
    if host_port(address)[0] not in LOOPBACK_HOSTS:
        return
    os.environ[SINGLE_MACHINE_ENV] = "0"  # this process's Ray processes, if it starts any
    from ray._private import ray_constants  # read when an address is resolved, not at import

    ray_constants.ENABLE_RAY_CLUSTER = False


def connect(ray: Any, address: str) -> bool:
    """Connect this process to the cluster at ``address`` unless Ray is already initialized;
    True if this call connected (so the caller disconnects when done). Raises
    ``RayUnavailableError`` at once when no head answers there, or when it refuses this driver."""
    if ray.is_initialized():
        return False
    probe(address)
    keep_loopback(ray, address)
    try:
        ray.init(
            address=address,
            logging_level=logging.WARNING,
            log_to_driver=False,  # worker output may hold library warnings, never forwarded
            configure_logging=False,
        )
    except ConnectionError:
        raise RayUnavailableError(
            f"the Ray head at {address} answers but refused this driver or did not register it: "
            f"check that {AUTH_TOKEN_ENV} is the cluster's token"
        ) from None
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


# ------------------------------------------------------------------------ the documented head


def head_command(
    host: str, port: int, client_port: int, num_cpus: int | None, temp_dir: str | None
) -> list[str]:
    """``ray start`` for a head node bound to ``host`` (this environment's ``ray``)."""
    cmd = [
        str(Path(sys.executable).parent / "ray"), "start", "--head", "--block",
        "--node-ip-address", host, "--port", str(port), "--ray-client-server-port",
        str(client_port), "--disable-usage-stats", "--include-dashboard=false",
        "--dashboard-host", host,
    ]  # fmt: skip
    if num_cpus is not None:
        cmd += ["--num-cpus", str(num_cpus)]
    if temp_dir:
        cmd += ["--temp-dir", temp_dir]
    return cmd


def head_environment(host: str, environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """The head's environment: this one (the masking key and the Ray token included), usage
    statistics off, no ``RAY_ADDRESS``, and Ray's single-machine switch for a loopback host.
    Raises ``RayAuthError`` without token authentication."""
    env = dict(os.environ if environ is None else environ)
    if not has_token_auth(env):
        raise RayAuthError(
            f"a Ray head for masking needs token authentication: set {AUTH_MODE_ENV}=token and "
            f"{AUTH_TOKEN_ENV} (or {AUTH_TOKEN_PATH_ENV}) in its environment (docs/ray.md)"
        )
    env["RAY_USAGE_STATS_ENABLED"] = "0"  # offline: no usage report
    env.pop(RAY_ADDRESS_ENV, None)
    if host in LOOPBACK_HOSTS:
        env[SINGLE_MACHINE_ENV] = "0"
    return env


def main(argv: Sequence[str] | None = None) -> int:
    """Start a Ray head for masking in this process's place (``ray start --head --block``)."""
    parser = argparse.ArgumentParser(
        prog="python -m agentic_pipeline.masking.ray_cluster",
        description="Start a Ray head for masking: token authentication required, bound to "
        "--host (127.0.0.1 keeps every socket on loopback), usage statistics off.",
    )
    parser.add_argument("--host", required=True, help="the node's address (127.0.0.1: loopback)")
    parser.add_argument("--port", type=int, default=6379, help="the GCS port (default 6379)")
    parser.add_argument("--client-port", type=int, default=10001, help="Ray client (ray://)")
    parser.add_argument("--num-cpus", type=int, default=None, help="CPUs offered to actors")
    parser.add_argument("--temp-dir", default=None, help="Ray's session folder")
    args = parser.parse_args(argv)
    try:
        env = head_environment(args.host)
    except RayAuthError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if args.host not in LOOPBACK_HOSTS:
        print(
            f"note: Ray 2.60 listens on every interface of this node for {args.host}; admit only "
            "the run's hosts to it (docs/ray.md)",
            file=sys.stderr,
        )
    cmd = head_command(args.host, args.port, args.client_port, args.num_cpus, args.temp_dir)
    os.execve(cmd[0], cmd, env)
    return 0  # not reached


if __name__ == "__main__":
    sys.exit(main())
