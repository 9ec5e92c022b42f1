"""A product's name is no person's (issue #21: words masked): the ``name`` of a thing's record in
a tool result (``products``, ``price``, ``sku`` beside it) makes the same words a thing's name
wherever the episode writes them. A person's record keeps its name masked, and a person who
shares a word with a product keeps hers. Every name and product here is invented."""

import json

import pytest
from conftest import masked_cells

from agentic_pipeline.masking import Masker

PRODUCTS = ["Quinn Kettle", "Sienna Tote", "Rowan Armchair"]


@pytest.fixture(scope="module")
def masker():
    with Masker(key="things-test-key-0123456789abcdef0123456789ab", n_workers=1) as m:
        yield m


def _catalog(*names: str) -> str:
    return json.dumps(
        {
            "products": [
                {"name": n, "product_id": f"88{i}1", "price": 410.5} for i, n in enumerate(names)
            ]
        }
    )


def _said(product: str) -> str:
    return f"Good news: the {product} is in stock and ships on Monday."


@pytest.mark.parametrize("product", ["Quinn Kettle", "Sienna Tote"])
def test_without_a_catalog_the_name_model_keeps_these_products_too(masker, product):
    """The control: the same sentences alone. The model keeps two of the three by their thing
    words; the third, whose first word is a listed first name, it has taken for a person in some
    of its builds (names-f20-6ecf139108, and names-f24-dc36c60ad4 trained on nineteen corpora),
    which is why the catalog, tested below, decides."""
    (out,) = masked_cells(masker, ("assistant", _said(product)))
    assert out == _said(product), out


@pytest.mark.parametrize("product", PRODUCTS)
def test_a_product_named_in_the_catalog_stays_in_prose(masker, product):
    catalog, said = masked_cells(
        masker, ("tool", _catalog(*PRODUCTS)), ("assistant", _said(product))
    )
    assert said == _said(product)
    assert product in catalog


def test_a_person_sharing_a_word_with_a_product_is_still_masked(masker):
    customer = json.dumps({"customer": {"name": "Rowan Pike", "email": "r.pike@example.org"}})
    _, _, said = masked_cells(
        masker,
        ("tool", customer),
        ("tool", _catalog("Rowan Armchair")),
        ("assistant", "Rowan Pike ordered the Rowan Armchair; Pike asked for gift wrap."),
    )
    assert "Rowan" not in said and "Pike" not in said, said
    # the customer's first name is masked in the product's name too: known values go first
    assert "> Armchair;" in said, said


def test_a_persons_record_never_makes_a_things_name(masker):
    person = json.dumps({"name": "Ellis Daybed", "email": "ellis.d@example.org", "tier": "gold"})
    _, said = masked_cells(masker, ("tool", person), ("user", "Ellis Daybed here, any update?"))
    assert "Ellis" not in said and "Daybed" not in said, said


@pytest.mark.parametrize(
    "record",
    [
        {
            "reviews": [{"name": "Marta Vellacott", "rating": 5, "stars": 5}]
        },  # a thing's, no product
        {"name": "Marta Vellacott", "company": "Brightwater Logistics", "role": "buyer"},
        {"items": [{"name": "Marta Vellacott", "price": 12.5}]},  # a product's, but a person's name
    ],
)
def test_a_persons_name_in_a_things_record_is_no_things_name(masker, record):
    """Only a product's record names a thing, and only with a vocabulary word that no name list
    has: a reviewer, a company's contact or a person's name in an item list stays a person."""
    _, said = masked_cells(
        masker, ("tool", json.dumps(record)), ("assistant", "Marta Vellacott called about it.")
    )
    assert "Marta" not in said and "Vellacott" not in said, said


def test_a_products_options_are_no_persons_and_a_person_named_like_them_is(masker):
    """The keys and values of a product's ``options`` ("upholstery": "Hunter") name its
    attributes wherever the episode writes them; a person whose name is made of such words is
    still masked."""
    catalog = json.dumps(
        {
            "items": [
                {
                    "name": "Reading Chair",
                    "item_id": "5512093",
                    "price": 310.0,
                    "options": {"upholstery": "Hunter", "finish": "Sterling", "trim": "Ivory"},
                }
            ]
        }
    )
    said = [
        "Your chair: upholstery Hunter, finish Sterling, trim Ivory.",
        "I'd go with Hunter and Sterling; Ivory looks good too.",
    ]
    person = "Hunter Sterling called about the chair."
    alone = masked_cells(masker, *[("assistant", s) for s in said])
    assert alone != said, "control: without the catalog the model takes some options for names"
    _, *outs, called = masked_cells(
        masker, ("tool", catalog), *[("assistant", s) for s in said], ("assistant", person)
    )
    assert outs == said
    assert "Hunter" not in called and "Sterling" not in called, called


def test_a_closed_compound_names_a_product_though_no_frequency_list_has_it(masker):
    """ "Loveseat" is rarer than the frequency lists' floor, but it splits into two frequent
    English words: the catalog's record makes it a thing's name in prose as well."""
    listing = "Your order:\n- Loveseat (Oak, 2 seats)\n- Desk Lamp (Brass)"
    _, said = masked_cells(masker, ("tool", _catalog("Loveseat")), ("assistant", listing))
    assert said == listing
