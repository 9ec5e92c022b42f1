"""Titles and forms of address (``names/data/titles.txt``): the title stays in clear before the
name's token, in English and the main European languages; a title that name lists have as a first
name ("Don") stays inside the span. Every name here is invented."""

import pytest
from conftest import masked_cells

from agentic_pipeline.masking import Masker


@pytest.fixture(scope="module")
def masker():
    with Masker(key="titles-test-key-0123456789abcdef0123456789ab", n_workers=1) as m:
        yield m


@pytest.mark.parametrize(
    ("text", "title", "name"),
    [
        ("Sehr geehrte Frau Wendtland, Ihre Bestellung ist unterwegs.", "Frau", "Wendtland"),
        ("Bonjour Mme Charbonneau, votre colis arrive demain.", "Mme", "Charbonneau"),
        ("Szanowna Pani Wierzbicka, dziękujemy za wiadomość.", "Pani", "Wierzbicka"),
        ("Please ask Mr. Tobiason to call the front desk.", "Mr.", "Tobiason"),
        # greetings of Portuguese and the Nordic languages
        ("Olá Ilídia, o seu pedido já foi enviado.", "Olá", "Ilídia"),
        ("Hejsan Eilif! Paketet kommer i morgon.", "Hejsan", "Eilif"),
        # a relative named before a name is a role: no part of the name's span
        ("Husband Dorian Quellwood asked for the discharge letter.", "Husband", "Quellwood"),
        ("Tochter Zinovia holt die Unterlagen morgen ab.", "Tochter", "Zinovia"),
        # closings and salutations before the name that signs or is greeted
        ("See you at the lake house soon.\nLove, Perpetua", "Love,", "Perpetua"),
        ("Grazzi tal-għajnuna.\nSellimli, Salvinu Xerri", "Sellimli,", "Salvinu"),
        ("שלום נויה, המסמכים נשלחו אלייך.", "שלום", "נויה"),
        # closings of cards and messages to family and friends
        ("Chegámos bem a casa!\nBeijinhos, Ferandina", "Beijinhos,", "Ferandina"),
        ("Tot snel weer.\nLiefs, Femmigje", "Liefs,", "Femmigje"),
        ("Ses dig på lördag!\nKram, Tovelise", "Kram,", "Tovelise"),
        ("Diolch am y parsel.\nCofion, Gwynfael", "Cofion,", "Gwynfael"),
    ],
)
def test_the_title_stays_and_the_name_goes(masker, text, title, name):
    (out,) = masked_cells(masker, ("user", text))
    assert name not in out, out
    assert f"{title} <PERSON_" in out, out


def test_the_titles_module_function():
    from agentic_pipeline.masking.names.lexicon import is_title

    assert is_title("Frau") and is_title("mevr.") and is_title("Dr.") and is_title("Hej")
    assert not is_title("Wendtland") and not is_title("Order")


@pytest.mark.parametrize(
    ("text", "kept", "name"),
    [
        ("Dear Professor Umbriach, I could not attend the seminar.", "Professor", "Umbriach"),
        ("Sehr geehrte Damen und Herren, anbei mein Antrag. Ilka Vossberg", "Damen", "Vossberg"),
        ("Sehr geehrte Frau Kollegin Dr. Trosselt, anbei der Befund.", "Kollegin", "Trosselt"),
        ("Mesdames, Messieurs, veuillez trouver ci-joint ma demande.", "Messieurs", None),
    ],
)
def test_forms_of_address_stay_in_clear_in_both_lines(masker, text, kept, name):
    """Neither the name model nor the second-line scan takes a form of address (a title, a plural
    salutation, a colleague addressed as such) for a name."""
    (out,) = masked_cells(masker, ("user", text))
    assert kept in out, out
    assert name is None or name not in out, out


@pytest.mark.parametrize(
    ("text", "kept", "name"),
    [
        # a job title after a signature: vocabulary before a role is no name
        ("— Oriel Quastenbrook-Pike, Claims Adjuster, Harbourline Mutual", "Claims", "Pike"),
        ("Signed: Quenby Marsh-Adair, Loss Adjuster", "Loss Adjuster", "Adair"),
        # a health worker's role before the name stays in clear
        (
            "Scaling done today. Hygienist Wilhelmina Crasto. Recall in six months.",
            "Hygienist",
            "Crasto",
        ),
    ],
)
def test_a_job_title_and_a_role_before_a_name_stay_in_clear(masker, text, kept, name):
    """A role at a span's end that leaves only vocabulary before it is a job title, no name; a
    role before a name stays out of the name's span."""
    (out,) = masked_cells(masker, ("user", text))
    assert kept in out, out
    assert name not in out, out
