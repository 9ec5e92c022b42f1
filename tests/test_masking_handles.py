"""Login names and social handles (issue #21: usernames at least as plain Presidio finds them):
after a platform's name or a dash, with dots inside, Reddit's ``u/`` form, and a CSV login
column. Every value here is invented for this test."""

import pytest
from conftest import masked_cells

from agentic_pipeline.masking import Masker


@pytest.fixture(scope="module")
def masker():
    with Masker(key="handles-test-key-0123456789abcdef0123456789", n_workers=1) as m:
        yield m


def test_handles_after_platforms_dashes_and_in_reddit_form(masker):
    cells = [
        ("user", "Add me on Skype: tovan.relk"),
        ("user", "user name - pell.arcot.31"),
        ("user", "the thread by u/quill_marrow was useful"),
        ("user", "tag me @senna.vorhees please"),
    ]
    outs = masked_cells(masker, *cells)
    for out in outs:
        assert "<USER_ID_" in out, out
    assert "tovan" not in outs[0] and "pell" not in outs[1]
    assert "quill" not in outs[2] and "vorhees" not in outs[3]


def test_platform_words_and_dashes_without_a_login_stay(masker):
    texts = ["I use Skype for calls.", "The login - screen is broken.", "Instagram and twitter."]
    assert masked_cells(masker, *[("user", t) for t in texts]) == texts


def test_a_csv_login_column_is_masked_row_by_row(masker):
    csv = "team,login,last_seen\nblue,marrowfen,2026-01-02\nred,t.okwu7,2026-01-03\n"
    (out,) = masked_cells(masker, ("tool", csv))
    assert "marrowfen" not in out and "t.okwu7" not in out
    assert out.startswith("team,login,last_seen\nblue,<USER_ID_") and "2026-01-03" in out
