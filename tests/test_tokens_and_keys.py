"""Tokens that cannot merge two people, and keys that cannot be guessed (issue #22, points 3, 8)."""

import secrets

import pytest

from agentic_pipeline.masking import keys as masking_keys
from agentic_pipeline.masking.pseudonyms import (
    DEV_MASKING_KEY,
    LEGACY_TOKEN_RE,
    TOKEN_HEX_CHARS,
    TOKEN_RE,
    Pseudonymizer,
    TokenCollisionError,
    pseudonym_for,
    token_entity_type,
)

KEY = "tokens-test-key-" + "9c41e07d2b6a58f3e1d0c7b4a2968f15"


def test_tokens_carry_at_least_64_bits_and_match_the_one_token_pattern():
    assert TOKEN_HEX_CHARS * 4 >= 64
    token = pseudonym_for("someone@example.org", "EMAIL_ADDRESS", KEY)
    assert TOKEN_RE.fullmatch(token) and not LEGACY_TOKEN_RE.fullmatch(token)
    assert token_entity_type(token) == "EMAIL_ADDRESS"
    assert len(token) == len("<EMAIL_ADDRESS_>") + TOKEN_HEX_CHARS


def test_a_hundred_thousand_emails_get_a_hundred_thousand_tokens():
    """The attack merged two emails after 98,292 values at 32 bits; at the new width none do,
    and the masking-time check sees every value (no collision raised)."""
    pseudonyms = Pseudonymizer(KEY, max_cache=200_000)
    tokens = {
        pseudonyms.token(f"user{i}.x{i * 7919}@mail{i % 97}.test", "EMAIL_ADDRESS")
        for i in range(100_000)
    }
    assert len(tokens) == 100_000


def test_a_collision_at_masking_time_fails_loudly_without_the_values():
    narrow = Pseudonymizer(KEY, truncate=3)  # 12 bits: a collision within a few hundred values
    with pytest.raises(TokenCollisionError) as err:
        for i in range(5_000):
            narrow.token(f"+1 415 555 {i:04d}", "PHONE_NUMBER")
    assert "PHONE_NUMBER" in str(err.value) and "415" not in str(err.value)
    # the same value again (any spelling that normalizes alike) is no collision
    same = Pseudonymizer(KEY, truncate=3)
    assert same.token("Ann@Example.org", "EMAIL_ADDRESS") == same.token(
        "ann@example.org ", "EMAIL_ADDRESS"
    )


@pytest.mark.parametrize(
    "weak", [" ", "x", "x" * 40, "ab" * 20, "0123456789abcdef" * 2, "short-but-random-7f1c"]
)
def test_short_or_low_entropy_keys_are_refused_in_one_line(weak):
    with pytest.raises(masking_keys.WeakMaskingKeyError) as err:
        masking_keys.masking_key({masking_keys.MASKING_KEY_ENV: weak})
    message = str(err.value)
    assert "\n" not in message and (weak.strip() == "" or weak not in message)
    # a refused key is a missing key to every caller (they print the message and stop)
    assert isinstance(err.value, masking_keys.MissingMaskingKeyError)


def test_random_keys_and_the_development_path_are_accepted():
    for good in (secrets.token_hex(16), secrets.token_hex(32), secrets.token_urlsafe(32), KEY):
        assert masking_keys.masking_key({masking_keys.MASKING_KEY_ENV: good}) == good
    assert masking_keys.masking_key({masking_keys.DEV_MODE_ENV: "1"}) == DEV_MASKING_KEY
