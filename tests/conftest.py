"""Helpers shared by the engine tests."""

from __future__ import annotations

import json

import pytest

from engine.checks.autoplay import play_one, play_until_stuck
from engine.data import load_game_data
from engine.game import apply, new_game
from engine.ids import Faction
from engine.model import GameState, Phase, PromptKind
from engine.options import FixedSetup, GameOptions, GameSetup
from engine.positions.documents import begin, load, write
from engine.rng import Rng

pytest_plugins = ["tests.postgres_plugin"]  # the throwaway PostgreSQL server of the store tests

ALL_SEVEN = tuple(Faction)
A, BG, E, F, G, H, BT = (
    Faction.ATREIDES, Faction.BENE_GESSERIT, Faction.EMPEROR, Faction.FREMEN, Faction.GUILD,
    Faction.HARKONNEN, Faction.BENE_TLEILAXU,
)  # the short names the tests use


def make_setup(factions=ALL_SEVEN, seed: int = 1, fixed: FixedSetup | None = None, **options) -> GameSetup:
    return GameSetup(factions=tuple(factions), seed=seed, options=GameOptions(**options), fixed=fixed or FixedSetup())


def start(factions=ALL_SEVEN, seed: int = 1, fixed: FixedSetup | None = None, **options) -> GameState:
    return new_game(make_setup(factions, seed, fixed, **options)).state


def prompt_of(state: GameState, faction: Faction, kind: PromptKind):
    matches = [p for p in state.prompts_for(faction) if p.kind == kind]
    assert len(matches) == 1, f"expected one {kind} prompt for {faction}, found {state.prompts_for(faction)}"
    return matches[0]


def snapshot(state: GameState) -> str:
    return json.dumps(state.model_dump(mode="json"), sort_keys=True)


def finish_setup(state: GameState, seed: int = 5) -> GameState:
    """Automatic players take every setup decision; the game stops at the first decision of turn 1."""
    state, _, _ = play_until_stuck(state, Rng.from_seed(seed), while_=lambda s: s.phase == Phase.SETUP)
    return state


def tokens_back_to_reserves(state: GameState) -> None:
    """Empty the board into the reserves, so a scenario puts down exactly the tokens it needs."""
    for location, here in list(state.forces.items()):
        for faction, count in list(here.items()):
            state.add_tokens(location, faction, -count)
            state.faction(faction).reserves += count


def refused(state: GameState, action, rule: str | None = None, code=None):
    """Apply an action that must be refused: the refusal, after checking it left the state untouched (and,
    when given, that it names `rule` and carries `code`)."""
    from engine.errors import RuleViolation

    before = snapshot(state)
    with pytest.raises(RuleViolation) as refusal:
        apply(state, action)
    assert snapshot(state) == before
    if rule is not None:
        assert refusal.value.rule == rule, refusal.value
    if code is not None:
        assert refusal.value.code == code, refusal.value
    return refusal.value


def apply_all(state: GameState, *actions):
    events = []
    for action in actions:
        state, new_events = apply(state, action)
        events += new_events
    return state, events


def let_reveal_stand(state: GameState):
    """BT-51: every faction asked in the Karama window after a BT traitor reveal lets it stand; (state, events)."""
    from engine.actions import AnswerRevealKarama

    window = [p.faction for p in state.prompts if p.kind == PromptKind.BT_REVEAL_KARAMA]
    assert window, "no Karama window is open"
    return apply_all(state, *(AnswerRevealKarama(faction=f) for f in window))


@pytest.fixture
def seven() -> GameState:
    """A fresh 7-faction game with the BT and default options, waiting on its setup decisions."""
    return start()


def ready_game(factions=ALL_SEVEN, seed: int = 1, fixed: FixedSetup | None = None, **options) -> GameState:
    """A game whose setup decisions were all taken by automatic players."""
    return finish_setup(start(factions, seed, fixed, **options), seed)


def enter_phase(state: GameState, phase, **changes):
    """The same game jumped to the start of `phase` (with any fields changed), run to its first decision.

    For scenario tests of one phase: the earlier phases of the turn are skipped, not played.
    """
    from engine.events import EventLog
    from engine.flow import advance

    draft = state.model_copy(deep=True, update={"prompts": [], **changes})
    draft.phase, draft.step = phase, ""
    log = EventLog()
    advance(draft, log)
    return draft, log.items


async def store_running_game(store, state: GameState, seats: dict[Faction, int], *, channel_id: int,
                             guild_id: int = 1) -> str:
    """Put a running game at `state` (e.g. a scenario built with enter_phase) in `channel_id`, seated as given,
    so the bot's commands act on it as on a game played up to there. It has no action history, so undo and
    export, which replay the history, do not apply to it. Returns the game's id."""
    from bot.app.ports import GameRecordRow, GameStatus

    row = GameRecordRow(game_id=f"g{channel_id}", guild_id=guild_id, channel_id=channel_id,
                        status=GameStatus.RUNNING, setup_json=state.setup.model_dump_json(),
                        state_json=state.model_dump_json(), seq=0,
                        seats={faction.value: user for faction, user in seats.items()})
    await store.create_game(row, [])
    return row.game_id


def load_position(doc: dict) -> GameState:
    """The state of a hand-written position (engine/positions/documents.py), after checking the document is canonical:
    written back from its state, it comes out unchanged (docs/positions.md)."""
    state = load(doc)
    assert write(state) == doc
    return state


def begin_position(doc: dict):
    """A canonical position, run on to its first decisions: (state, events)."""
    assert write(load(doc)) == doc
    return begin(doc)


def take_card(state: GameState, card: str) -> str:
    """Take a Treachery card out of wherever it is (deck, discard, a hand, a trap), for a scenario to place it."""
    for pile in (state.treachery_deck, state.treachery_discard, *(fs.hand for fs in state.factions.values())):
        if card in pile:
            pile.remove(card)
            return card
    for stronghold, trap in list(state.traps.items()):
        if trap.card == card:
            del state.traps[stronghold]
            return card
    raise AssertionError(f"{card} is nowhere")


def random_step(state: GameState, rng: Rng) -> GameState:
    """One move of the automatic players (engine/checks/autoplay.py `play_one`): the state it reaches."""
    [(_, (state, _events))] = play_one(state, rng)
    return state


def prompts_met(kinds, per_kind: int, seeds=(0, 1, 2, 3), max_actions: int = 1500) -> list:
    """(state, prompt) of the decisions of `kinds` in random 7-faction games, every option on in the odd seeds:
    each prompt as it opens and, now and then, later while it is still open (whatever happened meanwhile); at
    most `per_kind` of a kind."""
    found, counts = [], {}
    for seed in seeds:
        options = GameOptions.all_on() if seed % 2 else GameOptions()
        state, _ = new_game(GameSetup(factions=tuple(Faction), seed=seed, options=options))
        rng, seen = Rng.from_seed(seed), set()
        for _ in range(max_actions):
            if state.phase == Phase.ENDED or not state.prompts:
                break
            for prompt in state.prompts:
                again = prompt.id in seen and rng.below(4) == 0
                if prompt.kind in kinds and (prompt.id not in seen or again) and counts.get(prompt.kind, 0) < per_kind:
                    seen.add(prompt.id)
                    counts[prompt.kind] = counts.get(prompt.kind, 0) + 1
                    found.append((state, prompt))
            state = random_step(state, rng)
    return found


def cards_hidden_from(state: GameState, reader: Faction) -> set[str]:
    """The Treachery cards `reader` may not see: the other hands, and the traps unless `reader` laid them (BT-30)."""
    hidden = {c for f, fs in state.factions.items() if f != reader for c in fs.hand}
    return hidden | ({t.card for t in state.traps.values()} if reader != Faction.BENE_TLEILAXU else set())


def card_text_without_places(text: str) -> str:
    """A text with the board's territory names taken out: "Gara Kulon" is a place, not the Kulon card."""
    for territory in load_game_data().board.territories:
        text = text.replace(territory, "")
    return text


def unique_card_names() -> dict[str, str]:
    """Card id -> name, for the cards whose name no other card bears (four are called Shield)."""
    cards = load_game_data().treachery_cards
    names = [c.name for c in cards]
    return {c.id: c.name for c in cards if names.count(c.name) == 1}
