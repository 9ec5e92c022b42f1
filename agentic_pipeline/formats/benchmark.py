"""tau-bench trajectory files: a JSON array of ``{"task_id", "trial", "reward", "info", "traj"}``.

``traj`` is OpenAI chat messages (:mod:`~agentic_pipeline.formats.openai_chat`; calls without ids
are paired with results by order, Python-repr arguments parsed safely). Policy id and task type
come from the file name (``gpt-4o-airline.json`` -> ``gpt-4o`` / ``airline``) or configuration;
when the name carries no domain, the task type is the built-in tool set that lists most of the
tools the episode calls and its task's expected actions name (``retail`` for tau-bench retail),
else ``benchmark``.
"""

from dataclasses import dataclass
from typing import Any

from agentic_pipeline.catalogue import UNKNOWN, builtin_catalogue
from agentic_pipeline.formats.common import (
    ParseContext,
    RecordError,
    Row,
    episode_attributes,
    opt_int,
    opt_obj,
)
from agentic_pipeline.formats.openai_chat import chat_steps

NAME = "benchmark_json"
KNOWN_BENCHMARK_DOMAINS = ("airline", "retail")


@dataclass(frozen=True)
class BenchmarkNaming:
    """Where a benchmark file's policy id and task type come from."""

    policy_id: str
    task_type: str
    #: Whether ``policy_id`` was configured (it then wins over what the file says).
    configured: bool = False

    @classmethod
    def from_file_name(cls, stem: str, policy_id: str | None = None) -> "BenchmarkNaming":
        """``gpt-4o-airline`` -> policy ``gpt-4o``, task type ``airline`` (``policy_id`` wins)."""
        domain = next((d for d in KNOWN_BENCHMARK_DOMAINS if stem.endswith(f"-{d}")), None)
        model = stem[: -len(domain) - 1] if domain else stem
        return cls(
            policy_id=policy_id or model,
            task_type=domain or "benchmark",
            configured=policy_id is not None,
        )


def _domain(traj: Any, task: dict) -> str | None:
    """The built-in tool set the episode's tools (called and expected) belong to, if any."""
    names: list[str] = []
    for message in traj if isinstance(traj, list) else []:
        for call in (message.get("tool_calls") if isinstance(message, dict) else None) or []:
            function = call.get("function") if isinstance(call, dict) else None
            if isinstance(function, dict) and isinstance(function.get("name"), str):
                names.append(function["name"])
    for action in task.get("actions") or []:
        if isinstance(action, dict) and isinstance(action.get("name"), str):
            names.append(action["name"])
    found = builtin_catalogue().detect(None, names).tool_set
    return None if found == UNKNOWN else found


def detect(record: dict) -> bool:
    return "traj" in record


def parse_benchmark(
    record: dict, index: int, naming: BenchmarkNaming, file_stem: str
) -> tuple[str, Row, list[Row]]:
    """One element of a benchmark trajectory array (tau-bench shape)."""
    info = opt_obj(record.get("info"), "info")
    task = opt_obj(info.get("task"), "info.task")
    task_id = record.get("task_id")
    trial = record.get("trial")
    if task_id is None:
        raise RecordError("missing task_id")
    opt_int(trial, "trial")
    episode_id = f"{file_stem}-task{task_id}-trial{trial if trial is not None else index}"
    goal = {k: task[k] for k in ("actions", "outputs") if k in task} or None
    task_type = naming.task_type
    if task_type == "benchmark":
        task_type = _domain(record.get("traj"), task) or task_type
    attrs = episode_attributes(
        {
            "policy_id": naming.policy_id,
            "task_type": task_type,
            "task": {"id": str(task_id), "description": task.get("instruction"), "goal": goal},
            "context": {"trial": trial} if trial is not None else None,
            "reward": record.get("reward"),
        }
    )
    return episode_id, attrs, chat_steps(record.get("traj"), episode_id)


def parse(record: dict, ctx: ParseContext) -> tuple[str, Row, list[Row]]:
    return parse_benchmark(record, ctx.index, ctx.naming, ctx.file_stem)
