"""Issue 25 item 14: one reader for every number a player types or a control sends. `str.isdigit()` accepts "²",
"①" and "1²", which `int()` then refuses with an exception the player never saw an answer to."""

from __future__ import annotations

import pytest

from bot.app.words import number_in_range, whole_number
from bot.discord.form_core import Choice, Draft, Field, Form, after_menu_choice


@pytest.mark.parametrize("typed, read", [("7", 7), (" 12 ", 12), ("0", 0), ("007", 7), ("123456789", 123456789)])
def test_digits_0_to_9_read_as_their_number(typed, read):
    assert whole_number(typed) == read


@pytest.mark.parametrize("typed", ["", " ", "²", "①", "1²", "٣", "-1", "+1", "1.0", "1 000", "1e3", "1234567890",
                                   "x", "0x1"])
def test_anything_else_reads_as_no_number(typed):
    assert whole_number(typed) is None


def test_a_number_out_of_range_or_unreadable_is_refused_in_words():
    assert number_in_range("5", 1, 10, "Your bid") == 5
    for typed in ("11", "①", "0"):
        with pytest.raises(ValueError, match=r"^Your bid: a whole number from 1 to 10, written with the digits 0-9, "
                                             rf"not '{typed}'\.$"):
            number_in_range(typed, 1, 10, "Your bid")


def _form(choices: int) -> Form:
    field = Field("Leader", tuple(Choice(f"Leader {n}", n) for n in range(choices)))
    return Form(prompt=None, fields=(field,), build=lambda faction, chosen: None)  # type: ignore[arg-type]


@pytest.mark.parametrize("value", ["¹", "3", "99", "-1", "later:²", "later:9", "earlier:-1", "sideways:1", "1:2"])
def test_a_menu_value_the_menu_did_not_offer_is_none(value):
    form = _form(3) if value != "later:9" else _form(60)
    assert after_menu_choice(form, Draft((None,), (0,)), 0, value) is None


def test_a_menu_value_it_offered_chooses_or_turns_the_page():
    assert after_menu_choice(_form(3), Draft((None,), (0,)), 0, "2").chosen == (2,)
    assert after_menu_choice(_form(60), Draft((None,), (0,)), 0, "later:1").pages == (1,)
