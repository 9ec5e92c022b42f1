"""The one OpenAI chat-message builder: its shapes pass the training conversation check, and the
training export, shadow mode and the OpenAI adapter build their messages through it."""

import ast
from pathlib import Path

from agentic_pipeline.chat import text_message, tool_call, tool_calls_message, tool_exchange
from agentic_pipeline.training import validate_messages

ROOT = Path(__file__).resolve().parents[1] / "agentic_pipeline"


def test_builders_make_a_valid_openai_conversation():
    messages = [
        text_message("system", "be brief"),
        text_message("user", "change my email"),
        *tool_exchange("call_1", "lookup", '{"id": 7}', '{"found": true}', name_on_result=True),
        tool_calls_message(tool_call("call_2", "update", "{}"), tool_call("call_3", "log", "{}")),
        *tool_exchange("call_2", "update", "{}", "ok")[1:],
        *tool_exchange("call_3", "log", "{}", "ok")[1:],
        text_message("assistant", "done"),
    ]
    validate_messages(messages)
    assert messages[2] == {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {
                "id": "call_1",
                "type": "function",
                "function": {"name": "lookup", "arguments": '{"id": 7}'},
            }
        ],
    }
    assert messages[3] == {
        "role": "tool",
        "tool_call_id": "call_1",
        "name": "lookup",
        "content": '{"found": true}',
    }
    assert "name" not in messages[5]


def test_no_other_module_spells_out_a_tool_call():
    """The ``"type": "function"`` call shape appears only in the builder (tool *definitions* use
    it too: ``ToolSpec.to_openai`` and the inferred tool schemas, which are not messages)."""
    spelled = set()
    for path in [
        *ROOT.glob("training/*.py"),
        *ROOT.glob("shadow/*.py"),
        ROOT / "environments/openai_policy.py",
        *ROOT.glob("demo/*.py"),
    ]:
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Dict):
                keys = {k.value for k in node.keys if isinstance(k, ast.Constant)}
                if {"id", "type", "function"} <= keys or {"tool_call_id", "role"} <= keys:
                    spelled.add(path.name)
    assert not spelled
