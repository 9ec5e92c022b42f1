"""Connecting to a Ray cluster for masking (``shards.RayShardMasker``): the address (the
resource's ``ray_address``, else ``RAY_ADDRESS``), the connection, and the release of actors.

Ray is imported by the caller only when an address is given: the local default (the demo, tests)
needs no Ray.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Sequence
from typing import Any

RAY_ADDRESS_ENV = "RAY_ADDRESS"


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
