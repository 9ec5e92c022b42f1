"""The demo's simulated people: Faker-made customers, their requests (tasks) and their replies.

A customer is a flat record (the CRM sandbox's ``customers`` table); :func:`make_task` turns one
into a :class:`~agentic_pipeline.environments.base.Task` whose description reads like a support
chat or e-mail and carries the customer's personal data where a real user would write it.
:class:`SimulatedUser` answers the agent's replies (the user model that shadow mode takes as a
parameter).
"""

from __future__ import annotations

import random
import re
from collections.abc import Mapping
from typing import Any

from faker import Faker

from agentic_pipeline.demo.policies import P_USER_ESCALATES
from agentic_pipeline.environments.base import Task
from agentic_pipeline.environments.crm import CRMSandbox

#: Customer tiers in the simulated population.
TIER_WEIGHTS: dict[str, float] = {"gold": 0.2, "silver": 0.3, "bronze": 0.5}
CHANNEL_WEIGHTS: dict[str, float] = {"chat": 0.7, "email": 0.3}


def pick(rng: random.Random, weights: Mapping[str, float]) -> str:
    """A key drawn with probability proportional to its weight (one draw of ``rng``)."""
    u, acc = rng.random() * sum(weights.values()), 0.0
    for key, w in weights.items():
        acc += w
        if u < acc:
            return key
    return next(reversed(list(weights)))


def _slug(text: str) -> str:
    return re.sub(r"[^a-z]", "", text.lower()) or "user"


class Pools:
    """Faker values that are slow to draw, drawn once per day and then sampled per episode."""

    def __init__(self, fake: Faker, size: int) -> None:
        self.first = [fake.first_name() for _ in range(size)]
        self.last = [fake.last_name() for _ in range(size)]
        self.street = [fake.street_address() for _ in range(size)]
        self.city = [fake.city() for _ in range(size)]


def make_customer(fake: Faker, pools: Pools, rng: random.Random) -> dict[str, Any]:
    """One customer record, as the CRM sandbox stores it."""
    first, last = rng.choice(pools.first), rng.choice(pools.last)
    tier = pick(rng, TIER_WEIGHTS)
    sep = rng.choice((".", "_", ""))
    digits = str(rng.randint(1, 99)) if rng.random() < 0.4 else ""
    email = f"{_slug(first)}{sep}{_slug(last)}{digits}@{fake.free_email_domain()}"
    return {
        "customer_id": f"cus_{rng.getrandbits(32):08x}",
        "first_name": first,
        "last_name": last,
        "email": email,
        "phone": fake.phone_number(),
        "address": _address(fake, pools, rng),
        "dob": fake.date_of_birth(minimum_age=18, maximum_age=85).isoformat(),
        "card_number": fake.credit_card_number(card_type=rng.choice(("visa16", "mastercard"))),
        "tier": tier,
        "credit_limit": {"gold": 10000, "silver": 5000, "bronze": 2000}[tier],
        "balance": round(rng.uniform(0, 1500), 2),
    }


def _address(fake: Faker, pools: Pools, rng: random.Random) -> str:
    street, city = rng.choice(pools.street), rng.choice(pools.city)
    return f"{street}, {city}, {fake.state_abbr()} {fake.postcode()}"


def _greeting(channel: str, rng: random.Random) -> str:
    if channel == "email":
        return rng.choice(("Dear Acme support,\n\n", "Hello,\n\n", "To whom it may concern,\n\n"))
    return rng.choice(("Hi, ", "Hello! ", "hey, ", "Good morning, "))


def _signoff(c: Mapping[str, Any], channel: str, rng: random.Random) -> str:
    name = f"{c['first_name']} {c['last_name']}"
    if channel == "email":
        return f"\n\nBest regards,\n{name}\n{c['phone']}"
    return "" if rng.random() < 0.5 else " Thanks!"


def make_task(
    task_type: str,
    c: dict[str, Any],
    channel: str,
    fake: Faker,
    pools: Pools,
    rng: random.Random,
) -> tuple[Task, dict[str, Any], dict[str, dict[str, Any]]]:
    """The task, the new personal values it introduces, and the customer's cases."""
    name = f"{c['first_name']} {c['last_name']}"
    hi, bye = _greeting(channel, rng), _signoff(c, channel, rng)
    me = rng.choice((f"this is {name}", f"my name is {name}", f"{name} here"))
    slots: dict[str, Any] = {"email": c["email"], "first_name": c["first_name"]}
    extra: dict[str, Any] = {}
    cases: dict[str, dict[str, Any]] = {}
    if task_type == "update_contact":
        if rng.random() < 0.5:
            new = f"{_slug(c['first_name'])[0]}{_slug(c['last_name'])}{rng.randint(10, 999)}"
            new = f"{new}@{fake.free_email_domain()}"
            field_name, extra["new_email"] = "email", new
            text = (
                f"{hi}{me}. Please change the email on my account from {c['email']} to {new}. "
                f"My phone is {c['phone']} if you need to verify.{bye}"
            )
        else:
            new = fake.phone_number()
            while new == c["phone"]:
                new = fake.phone_number()
            field_name, extra["new_phone"] = "phone", new
            text = (
                f"{hi}{me} ({c['email']}). I got a new phone number, it's {new} - my old one "
                f"was {c['phone']}. Can you update it?{bye}"
            )
        goal = {"customer_id": c["customer_id"], "fields": {field_name: new}}
        slots.update(field=field_name, new_value=new)
    elif task_type == "address_change":
        new = _address(fake, pools, rng)
        while new == c["address"]:
            new = _address(fake, pools, rng)
        extra["new_address"] = new
        text = (
            f"{hi}{me}, email {c['email']}. I moved from {c['address']} to {new}, please "
            f"update my address. Date of birth {c['dob']} for verification.{bye}"
        )
        goal = {"customer_id": c["customer_id"], "fields": {"address": new}}
        slots.update(field="address", new_value=new)
    elif task_type == "refund_request":
        amount = round(rng.uniform(5, 400), 2)
        if round(amount * 100) % 100 == 0:
            amount = round(amount + 0.37, 2)
        reason = rng.choice(
            (
                "I was charged twice for the same order",
                f"order #{rng.randint(100000, 999999)} was cancelled but never refunded",
                "the item arrived damaged and I sent it back",
            )
        )
        card = (
            f"my card {c['card_number']}"
            if rng.random() < 0.3
            else f"my card ending in {c['card_number'][-4:]}"
        )
        text = (
            f"{hi}{me} ({c['email']}). {reason.capitalize()}: ${amount:.2f} was taken from "
            f"{card}. I'd like a refund please.{bye}"
        )
        extra["amount"] = amount
        goal = {"customer_id": c["customer_id"], "ticket": {"kind": "refund", "amount": amount}}
        slots.update(amount=amount, reason=reason)
    elif task_type == "close_case":
        subjects = [
            "delivery delay",
            "login problem",
            "billing question",
            "damaged parcel",
            "password reset",
            "invoice copy",
        ]
        rng.shuffle(subjects)
        ids = [f"case_{rng.getrandbits(24):06x}" for _ in range(2)]
        if ids[0] == ids[1]:
            ids[1] = ids[1][:-1] + ("0" if ids[1][-1] != "0" else "1")
        for case_id, subject in zip(ids, subjects[:2], strict=True):
            cases[case_id] = {
                "case_id": case_id,
                "customer_id": c["customer_id"],
                "subject": subject,
                "status": "open",
            }
        target = ids[0]
        text = (
            f"{hi}{me}, {c['email']}. My {subjects[0]} issue ({target}) is sorted now, you "
            f"can close the case. You can reach me at {c['phone']}.{bye}"
        )
        extra["case_id"] = target
        goal = {"customer_id": c["customer_id"], "case_id": target}
        slots.update(case_id=target)
    else:
        raise ValueError(f"unknown task type: {task_type!r}")
    task_id = f"task_{task_type}_{rng.getrandbits(32):08x}"
    return Task(task_id, task_type, text, goal, slots), extra, cases


class SimulatedUser:
    """Answers the agent's replies like a customer would."""

    def __init__(self, customer: Mapping[str, Any], channel: str, rng: random.Random) -> None:
        self.customer, self.channel, self.rng = customer, channel, rng

    def __call__(self, reply: str, env: CRMSandbox) -> str:
        rng, low = self.rng, reply.lower()
        if "double-check" in low:
            return rng.choice(
                ("Sorry, it should be {e}.", "It's {e}, I just checked.", "Hmm, my email is {e}")
            ).format(e=self.customer["email"])
        if "human colleague" in low:
            return rng.choice(
                ("Yes please, I'd like to talk to a human.", "Please transfer me to a human agent.")
            )
        if env.goal_met() or rng.random() >= P_USER_ESCALATES:
            return rng.choice(("Great, thank you!", "Perfect, thanks.", "Thanks a lot!", "ok thx"))
        return rng.choice(
            (
                "That doesn't look right, my account still shows the old details. Can I speak to "
                "a human?",
                "Hm, nothing changed on my side. I want to talk to a human please.",
            )
        )
