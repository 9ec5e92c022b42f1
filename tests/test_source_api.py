"""The one-record API of source masking: same tokens as the pipeline, an audit of types and
offsets without values, the pipeline's fail-safe, a cheap import, and the LiteLLM callback."""

import json
import subprocess
import sys

import pytest
from conftest import REPO, masked_user_texts

from agentic_pipeline.masking import DEV_MASKING_KEY, Masker
from agentic_pipeline.masking.pseudonyms import TOKEN_RE, pseudonym_for
from agentic_pipeline.source import SourceMasker
from agentic_pipeline.source.litellm import MaskingLiteLLMCallback

NAME = "Linnea Farrowby"
EMAIL = "linnea.farrowby@brackenmail.example"
PHONE = "+44 7700 900582"
CARD = "4929 5310 2284 1237"
STREET = "9 Osier Walk, Norwich NR3 1AB"


@pytest.fixture(scope="module")
def masker():
    m = SourceMasker(DEV_MASKING_KEY)
    yield m
    m.close()


def _messages():
    return [
        {"role": "system", "content": "You answer for a garden centre."},
        {"role": "user", "content": f"I'm {NAME}, mail me at {EMAIL} or ring {PHONE}."},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "call_x1",
                    "type": "function",
                    "function": {
                        "name": "find_customer",
                        "arguments": json.dumps({"email": EMAIL}),
                    },
                }
            ],
        },
        {
            "role": "tool",
            "tool_call_id": "call_x1",
            "name": "find_customer",
            "content": json.dumps({"name": NAME, "address": STREET, "tier": "gold"}),
        },
        {"role": "assistant", "content": [{"type": "text", "text": "Found you, Linnea."}]},
    ]


def test_messages_get_the_pipelines_tokens_and_keep_their_shape(masker):
    messages = _messages()
    out = masker.mask_messages(messages)
    assert messages == _messages()  # the input is not changed
    text = json.dumps(out.value)
    for value in (NAME, "Farrowby", "Linnea", EMAIL, PHONE, STREET):
        assert value not in text, value
    for value, kind in ((EMAIL, "EMAIL_ADDRESS"), (PHONE, "PHONE_NUMBER"), (NAME, "PERSON")):
        assert pseudonym_for(value, kind, DEV_MASKING_KEY) in text, kind
    # ids, roles, tool names and the tool message's name are kept; the structure too
    assert [m["role"] for m in out.value] == [m["role"] for m in messages]
    assert out.value[2]["tool_calls"][0]["id"] == "call_x1"
    assert out.value[3]["name"] == "find_customer"
    assert json.loads(out.value[3]["content"])["tier"] == "gold"
    assert out.withheld is None
    # the user message is masked exactly as the pipeline masks it in the same episode
    with Masker(DEV_MASKING_KEY) as pipeline:
        expected = masked_user_texts(pipeline, messages[1]["content"], messages[3]["content"])
    assert out.value[1]["content"] == expected[0]


def test_the_audit_has_types_and_offsets_never_values(masker):
    out = masker.mask_messages(_messages())
    assert out.findings
    audit = json.dumps([f.as_dict() for f in out.findings])
    for value in (NAME, "Farrowby", EMAIL, PHONE, STREET):
        assert value not in audit, value
    user = [f for f in out.findings if f.path == "$[1].content"]
    assert {f.entity_type for f in user} >= {"PERSON", "EMAIL_ADDRESS", "PHONE_NUMBER"}
    content = out.value[1]["content"]
    for f in user:  # each offset points at the finding's token in the returned string
        assert content[f.start : f.end] == f.pseudonym and TOKEN_RE.fullmatch(f.pseudonym)
    leaf = [f for f in out.findings if f.path == "$[2].tool_calls[0].function.arguments.email"]
    assert leaf and leaf[0].entity_type == "EMAIL_ADDRESS" and leaf[0].detector == "key_rule"


def test_tool_arguments_and_results_keep_their_type(masker):
    args = masker.mask_tool_arguments({"card_number": CARD, "amount": 12.5})
    assert args.value == {
        "card_number": pseudonym_for(CARD, "CREDIT_CARD", DEV_MASKING_KEY),
        "amount": 12.5,
    }
    text_args = masker.mask_tool_arguments(json.dumps({"email": EMAIL}))
    assert json.loads(text_args.value) == {
        "email": pseudonym_for(EMAIL, "EMAIL_ADDRESS", DEV_MASKING_KEY)
    }
    result = masker.mask_tool_result(f"Customer {NAME} lives at {STREET}.")
    assert isinstance(result.value, str) and NAME not in result.value
    assert masker.mask_tool_result(42).value == 42


def test_a_personal_json_key_is_masked_like_a_value(masker):
    # as in the pipeline (issues #21/#22): a personal value used as a key is masked, not withheld
    out = masker.mask_tool_result({EMAIL: {"orders": 3}, "note": "thanks"})
    assert not out.withheld
    key = pseudonym_for(EMAIL, "EMAIL_ADDRESS", DEV_MASKING_KEY)
    assert out.value == {key: {"orders": 3}, "note": "thanks"}


def test_a_token_stays_a_token(masker):
    once = masker.mask_text(f"Write to {EMAIL} for {NAME}.").value
    assert masker.mask_text(once).value == once


def test_import_is_cheap_and_needs_no_dagster():
    code = (
        "import sys, agentic_pipeline.source, agentic_pipeline.source.langfuse, "
        "agentic_pipeline.source.litellm\n"
        "heavy = [m for m in ('dagster', 'spacy', 'presidio_analyzer') if m in sys.modules]\n"
        "print('HEAVY', heavy)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, timeout=120
    )
    assert out.returncode == 0, out.stderr[-2000:]
    assert "HEAVY []" in out.stdout


def test_litellm_callback_masks_what_is_logged(masker):
    callback = MaskingLiteLLMCallback(masker)
    kwargs = {"model": "gpt-4.1", "messages": _messages()[:2]}
    result = {
        "choices": [
            {
                "message": {
                    "role": "assistant",
                    "content": f"Noted, {NAME}.",
                    "tool_calls": [
                        {
                            "id": "c9",
                            "type": "function",
                            "function": {"name": "note", "arguments": json.dumps({"phone": PHONE})},
                        }
                    ],
                }
            }
        ]
    }
    new_kwargs, new_result = callback.logging_hook(kwargs, result, "completion")
    logged = json.dumps([new_kwargs, new_result])
    for value in (NAME, EMAIL, PHONE):
        assert value not in logged, value
    assert kwargs["messages"] == _messages()[:2]  # the request itself is unchanged
    assert new_kwargs["model"] == "gpt-4.1"
    assert pseudonym_for(PHONE, "PHONE_NUMBER", DEV_MASKING_KEY) in logged
