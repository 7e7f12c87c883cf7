"""Issue 25 items 8 and 13, the acceptance check over every kind of decision: the card its decider reads has a name,
a rule that `/rules` finds, its facts, the default in words and, once answered, "You answered: ..."; neither the
card, its controls nor its closing line shows an engine id or a kind's name.

The cards are those of real positions: the first decision of each kind (and each kind of BT attack plan) met in a
few seeded games of automatic players with every option on. A kind never met fails the test by name, so that a
new kind cannot go unchecked.
"""

from __future__ import annotations

import re
from functools import cache

import pytest

from bot.app.decision_cards import ATTACK_TITLES, CARD_HEADING, FACTS
from bot.app.render import closing_messages, decision_card
from bot.app.rules import cited_rule
from bot.discord.prompt_forms import form_for
from engine.checks.autoplay import play_one
from engine.data import load_game_data
from engine.flow import DEFAULTS
from engine.game import apply, new_game
from engine.ids import Faction
from engine.model import GameState, Phase, Prompt, PromptKind
from engine.names import DECISION_NAMES
from engine.options import GameOptions, GameSetup
from engine.rng import Rng

SEEDS = range(1, 31)  # the first few seeds meet every kind; the rest are room for games that change
ATTACK_PLANS = ("leader", "trap")  # a battle plan in a BT leader attack (BT-11) or against a trap (BT-32)


def sample_key(prompt: Prompt) -> str:
    attack = prompt.detail.get("attack") if prompt.kind == PromptKind.BATTLE_PLAN else None
    return f"{prompt.kind.value}:{attack}" if attack else prompt.kind.value


EXPECTED = [kind.value for kind in PromptKind] + [f"{PromptKind.BATTLE_PLAN.value}:{a}" for a in ATTACK_PLANS]


@cache
def samples() -> dict[str, tuple[GameState, Prompt]]:
    """The first decision of each kind met in seeded games of every faction and every option, with its game."""
    found: dict[str, tuple[GameState, Prompt]] = {}
    for seed in SEEDS:
        state, _ = new_game(GameSetup(factions=tuple(Faction), seed=seed, options=GameOptions.all_on()))
        rng = Rng.from_seed(seed)
        while state.phase != Phase.ENDED and state.prompts:
            for prompt in state.prompts:
                found.setdefault(sample_key(prompt), (state, prompt))
            state = play_one(state, rng)[-1][1][0]
        if set(EXPECTED) <= set(found):
            break
    return found


def test_every_kind_of_decision_is_met():
    assert [key for key in EXPECTED if key not in samples()] == []


@cache
def _ids() -> frozenset[str]:
    """Card and leader ids, which a player must never read: "caid", "crysknife", "lasgun" (a card's name starts
    with a capital, "Lasgun"; the kind of card, "a lasgun", is English and passes)."""
    data = load_game_data()
    cards = [card.id for card in data.treachery_cards if card.id not in KINDS_OF_CARD]
    return frozenset(cards + [leader.id for faction in data.factions.values() for leader in faction.leaders])


KINDS_OF_CARD = {"lasgun", "shield", "snooper"}  # "They must play a lasgun": the Voice names kinds of card


SNAKE_CASE = re.compile(r"\b[a-z]+(?:_[a-z0-9]+)+\b")  # "let_it_stand", "bene_tleilaxu", "maula_pistol"
LOCATION_ID = re.compile(r"\b[A-Z][\w' ]*#\d+")  # "Arrakeen#9"
LOWER_FACTION = re.compile(r"\b(?:atreides|harkonnen|fremen|tleilaxu|gesserit)\b")  # a faction's value, bare
# A kind's value with its underscores made spaces, where that is no English a card would use
KIND_WORDS = [kind.value.replace("_", " ") for kind in PromptKind
              if kind.value.startswith(("bt_", "bg_")) or kind in (
                  PromptKind.GUILD_TIMING, PromptKind.HAND_SWAP, PromptKind.TRAITOR_PICK, PromptKind.LEADER_CAPTURE,
                  PromptKind.WORM_PLACEMENT, PromptKind.BATTLE_CHOICE, PromptKind.PRESCIENCE_ANSWER,
                  PromptKind.STARTING_PLACEMENT)]


def engine_words(text: str) -> list[str]:
    """The ids and kind names in a text a player reads."""
    found = SNAKE_CASE.findall(text) + LOCATION_ID.findall(text) + LOWER_FACTION.findall(text)
    found += [word for word in re.findall(r"\b[a-z]+\b", text) if word in _ids()]
    return found + [kind for kind in KIND_WORDS if kind in text.lower()]


def closing_line(state: GameState, prompt: Prompt) -> str:
    """The line the card gets once its decider answers with the default (and, where an answer keeps the decision
    open until everyone asked has answered, BT-51, once the others have too)."""
    others = [p for p in state.prompts if p.kind == prompt.kind and p.id != prompt.id]
    for answered in (prompt, *others):
        action = DEFAULTS[answered.kind](state, answered)
        after, _ = apply(state, action)
        closed = [m.text for m in closing_messages(state, after, action) if m.edit_of == f"card:{prompt.id}"]
        if closed:
            return closed[0]
        state = after
    raise AssertionError(f"{prompt.kind.value}: the decision never closed")


@pytest.mark.parametrize("key", EXPECTED)
def test_every_decision_card_has_its_name_rule_facts_and_answer_words(key):
    if key not in samples():
        pytest.fail(f"no decision {key} was met in the seeded games")
    state, prompt = samples()[key]
    card = decision_card(state, prompt, deadline=None).text
    lines = card.split("\n")
    attack = prompt.detail.get("attack") if prompt.kind == PromptKind.BATTLE_PLAN else None
    name = ATTACK_TITLES[prompt.faction == Faction.BENE_TLEILAXU] if attack else DECISION_NAMES[prompt.kind]
    heading = re.fullmatch(re.escape(CARD_HEADING) + r"(.+)\*\* \(rule ([^;]+); `/rules ([^`]+)`\)", lines[0])
    assert heading is not None, lines[0]
    assert heading.group(1) == name and heading.group(2) == heading.group(3)
    assert cited_rule(heading.group(2)) is not None, f"/rules finds nothing for {heading.group(2)!r}"
    facts = [line for line in lines[1:] if line.startswith("- ") and not line.startswith("- Your spice:")]
    assert prompt.kind in FACTS and facts, card
    assert lines[-1].startswith("If nobody answers (the deadline passes, or a moderator forces it): "), card
    closing = closing_line(state, prompt)
    assert closing.startswith("**You answered: ") and closing.endswith(".**"), closing
    form = form_for(prompt)
    controls = [] if form is None else [
        *(f.name for f in form.fields), *(c.label for f in form.fields for c in f.choices),
        *(s.label for s in form.shortcuts), *([form.amount.label] if form.amount else [])]
    for text in (card, closing, *controls):
        assert engine_words(text) == [], f"{key}: {engine_words(text)} in {text!r}"
