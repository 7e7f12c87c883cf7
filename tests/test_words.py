"""The bot's words and their parsers (bot/app/words.py): each parser reads back what its description writes."""

import pytest

from bot.app.words import NotUnderstood, faction_words, parse_faction
from engine.ids import Faction


@pytest.mark.parametrize("faction", list(Faction))
def test_a_faction_reads_back_from_its_name_and_its_id(faction):
    assert parse_faction(faction_words(faction)) == faction
    assert parse_faction(faction.value) == faction
    assert parse_faction(f"  {faction_words(faction).upper()} ") == faction


@pytest.mark.parametrize("text, faction", [("bg", Faction.BENE_GESSERIT), ("BT", Faction.BENE_TLEILAXU),
                                           ("tleilaxu", Faction.BENE_TLEILAXU), ("sg", Faction.GUILD),
                                           ("spacing-guild", Faction.GUILD), ("atr", Faction.ATREIDES),
                                           ("bene g", Faction.BENE_GESSERIT)])
def test_a_faction_reads_from_an_alias_or_a_start_that_fits_one_faction(text, faction):
    assert parse_faction(text) == faction


@pytest.mark.parametrize("text", ["bene", "", "sardaukar", "Atreidez"])
def test_words_naming_no_faction_or_several_are_refused_with_the_choices(text):
    with pytest.raises(NotUnderstood, match="Unknown faction .*; choose from atreides"):
        parse_faction(text)
