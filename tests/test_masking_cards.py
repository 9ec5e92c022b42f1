"""Card numbers whose check digit is wrong (issue #21: ids with bad check digits count; plain
Presidio masks such a number through spaCy's date label): masked whole when printed in card
groups or after a card word, never after a thing's label. Every number is invented here."""

import re

import pytest
from conftest import masked_cells

from agentic_pipeline.masking import Masker
from agentic_pipeline.masking.detectors.numbers import luhn_valid


@pytest.fixture(scope="module")
def masker():
    with Masker(key="cards-test-key-0123456789abcdef0123456789ab", n_workers=1) as m:
        yield m


BAD_LUHN = {
    "grouped with spaces": ("user", "Card on file: 4929 3816 2270 5514, exp 11/29"),
    "grouped with dashes": ("user", "paid with 5312-8870-4416-2093 yesterday"),
    "amex groups": ("user", "the Amex 3751 620884 31008 was declined"),
    "after a card word": ("user", "Kreditkarte 4716902284130075 bitte sperren"),
    "json": ("tool", '{"card_number": "6011 5530 9912 4478", "holder_since": 2019}'),
}


@pytest.mark.parametrize("name", sorted(BAD_LUHN))
def test_a_card_number_with_a_wrong_check_digit_is_masked_whole(masker, name):
    role, text = BAD_LUHN[name]
    number = re.search(r"\d[\d -]{11,}\d", text).group()
    assert not luhn_valid(re.sub(r"\D", "", number))  # the test's numbers fail Luhn
    (out,) = masked_cells(masker, (role, text))
    digits = [g for g in re.split(r"[ -]", number)]
    assert not any(re.search(rf"(?<!\w){g}(?!\w)", out) for g in digits), out


def test_a_grouped_number_after_a_things_label_stays(masker):
    text = "Your order 4412 9981 2231 0098 has shipped."
    assert not luhn_valid("4412998122310098")
    (out,) = masked_cells(masker, ("assistant", text))
    assert "4412 9981 2231 0098" in out
