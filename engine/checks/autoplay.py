"""Automatic players: each answers its open prompts with a random legal choice.

They use their own seeded generator, not the game's, so that the game's randomness (decks, storm) is the
same whoever plays it. Samples come from each prompt kind's registered sampler (engine/flow.py); a sample
the rules refuse is retried, and after a few refusals the prompt's default (always legal) is taken. Now and then
a player does instead something it may do at any time, drawn from engine/rules/anytime.py's list of what is legal now
(the list the players' panels show), so a refusal there is a fault that play_game reports.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from typing import NamedTuple

from engine.actions import Action, RevealBtTraitor
from engine.data import load_game_data
from engine.errors import RuleViolation
from engine.events import Event, EventType
from engine.factions.bt_spice import SPICE_WIN_REASON
from engine.factions.bt_traitors import open_betrayals, revealable
from engine.flow import DEFAULTS, SAMPLERS
from engine.game import Transition, apply, new_game
from engine.ids import Faction
from engine.model import GameState, Phase, Prompt, PromptKind
from engine.options import GameSetup
from engine.rng import Rng
from engine.rules.anytime import (
    Amount,
    AnytimeChoice,
    AnytimeKind,
    Pick,
    anytime_action,
    anytime_choice,
    anytime_choices,
)
from engine.secrecy.leaks import LeakChecker

RETRIES = 8


def choose(state: GameState, prompt: Prompt, rng: Rng) -> Action:
    return SAMPLERS[prompt.kind](state, prompt, rng)


SPONTANEOUS_CHANCE = 40  # one step in this many, a faction does something it may do at any time
QUESTION = "Do you hold a traitor?"  # what an automatic player asks with Truthtrance
SMALL_AMOUNTS = 10  # automatic players give, and set bid limits of, at most this much above the least
# How often, relative to one another, an automatic player picks each kind of action it may take at any time
# (engine/rules/anytime.py). The BT reveal and co-existence have moments of their own (below); Hajr and the Ghola are
# also played when their decision asks (engine/rules/cards.py samplers).
WEIGHTS: dict[AnytimeKind, int] = {
    AnytimeKind.KARAMA: 4, AnytimeKind.SPECIAL_KARAMA: 8, AnytimeKind.KARAMA_TAX_BT: 2,
    AnytimeKind.KARAMA_DESTROY_TRAP: 2, AnytimeKind.TRUTHTRANCE: 3, AnytimeKind.GHOLA: 1, AnytimeKind.HAJR: 1,
    AnytimeKind.BRIBE: 1, AnytimeKind.ALLY_SPICE: 1, AnytimeKind.SPICE_WIN_ORDER: 2, AnytimeKind.TRAITOR_ORDER: 1,
    AnytimeKind.BID_ORDER: 1, AnytimeKind.BID_LIMIT: 1, AnytimeKind.OUTBID_ORDER: 1, AnytimeKind.STORM_CARD_ORDER: 1,
    AnytimeKind.REVIVAL_ORDER: 1, AnytimeKind.ALLY_REVIVAL_ORDER: 1, AnytimeKind.GUILD_TIMING_ORDER: 1,
    AnytimeKind.ADVISOR_ORDER: 1, AnytimeKind.NEXUS_ORDER: 1,
}


def spontaneous_action(state: GameState, rng: Rng) -> Action | None:
    """Now and then a faction does what the rules let it do at any time, chosen among its legal any-time actions
    (engine/rules/anytime.py, the list the players' panels show): the BT reveal a traitor (BT-23), the Bene Gesserit
    co-exist (A-15), the Atreides see a plan (A-14); rarely, a random faction plays a card, gives spice or changes
    a standing order."""
    reveal = _sample_reveal(state, rng)
    if reveal is not None:
        return reveal
    coexistence = _sample_kind(state, Faction.BENE_GESSERIT, AnytimeKind.COEXISTENCE, rng)
    if coexistence is not None and rng.below(4) == 0:  # the Bene Gesserit co-exist, or stop
        return coexistence
    seeing = _atreides_see_plan(state, rng)  # their power has a narrow window, so it is tried there
    if seeing is not None:
        return seeing
    if rng.below(SPONTANEOUS_CHANCE):
        return None
    faction = rng.choice(list(state.factions))
    choices = [c for c in anytime_choices(state, faction) if c.kind in WEIGHTS]
    if not choices:
        return None
    weighted = [c for c in choices for _ in range(WEIGHTS[c.kind])]
    return sample_anytime(faction, rng.choice(weighted), rng)


def sample_anytime(faction: Faction, choice: AnytimeChoice, rng: Rng) -> Action:
    """A random legal action of the choice: a random value of each part, small amounts."""
    values: dict[str, str | int] = {}
    for part in choice.parts:
        if isinstance(part, Pick):
            values[part.name] = rng.choice(part.options)
        elif isinstance(part, Amount):
            values[part.name] = part.low + rng.below(min(part.high - part.low + 1, SMALL_AMOUNTS))
        else:
            values[part.name] = QUESTION
    return anytime_action(faction, choice.kind, values)


def _sample_kind(state: GameState, faction: Faction, kind: AnytimeKind, rng: Rng) -> Action | None:
    choice = anytime_choice(state, faction, kind) if state.in_game(faction) else None
    return sample_anytime(faction, choice, rng) if choice is not None else None


def _sample_reveal(state: GameState, rng: Rng) -> RevealBtTraitor | None:
    """BT-23: the BT often reveal a marked leader who can betray tokens now (the reveals engine/rules/anytime.py
    offers),
    and rarely one who cannot (to no effect, R-8: legal, though not offered). Draws nothing from `rng` while the
    BT may reveal nobody."""
    bt = Faction.BENE_TLEILAXU
    marks = revealable(state) if state.in_game(bt) else []
    if not marks:
        return None
    effective = [leader for leader in marks if open_betrayals(state, leader)]  # those engine/rules/anytime.py offers
    if effective and rng.below(4) == 0:
        return RevealBtTraitor(faction=bt, leader=rng.choice(effective))
    if rng.below(3000) == 0:
        return RevealBtTraitor(faction=bt, leader=rng.choice(marks))
    return None


def _atreides_see_plan(state: GameState, rng: Rng) -> Action | None:
    """While the Atreides make a battle plan, their special Karama power (see the opponent's plan), one time in
    three when they may use it."""
    atreides = Faction.ATREIDES
    if not state.in_game(atreides) or state.prompt_of(atreides, PromptKind.BATTLE_PLAN) is None:
        return None
    choice = anytime_choice(state, atreides, AnytimeKind.SPECIAL_KARAMA)
    if choice is None or rng.below(3):
        return None
    return sample_anytime(atreides, choice, rng)


def play_prompt(state: GameState, prompt: Prompt, rng: Rng) -> tuple[Action, Transition]:
    """Answer one prompt: random samples first, the default if the rules keep refusing them."""
    for _ in range(RETRIES):
        action = choose(state, prompt, rng)
        try:
            return action, apply(state, action)
        except RuleViolation:
            continue
    action = DEFAULTS[prompt.kind](state, prompt)
    return action, apply(state, action)


def play_until_stuck(
    state: GameState, rng: Rng, max_actions: int = 100_000, while_: Callable[[GameState], bool] | None = None
) -> tuple[GameState, list[Action], list[Event]]:
    """Answer open prompts (a random one each time) until none is open, or `while_` turns false;
    returns the state, the actions and the events."""
    actions: list[Action] = []
    events: list[Event] = []
    while state.prompts and len(actions) < max_actions and (while_ is None or while_(state)):
        prompt = rng.choice(state.prompts)
        action, (state, new_events) = play_prompt(state, prompt, rng)
        actions.append(action)
        events += new_events
    return state, actions, events


BT_COUNTS = ("revival_spice", "traitors_marked", "traitor_reveals", "betrayals", "leader_attacks", "leader_kills",
             "traps_laid", "traps_triggered", "cards_given", "spice_win_declared", "spice_wins", "karama_vs_bt")


def bt_counts(events: list[Event]) -> Counter[str]:
    """How often each Bene Tleilaxu power was used, read from the events (the `bt` object of the summary)."""
    counts: Counter[str] = Counter({name: 0 for name in BT_COUNTS})
    for e in events:
        if e.type == EventType.REVIVED and e.data.get("paid_to") == "bene_tleilaxu":
            counts["revival_spice"] += e.data.get("cost") or 0
        elif e.type == EventType.BT_TRAITOR_MARKED:
            counts["traitors_marked"] += 1
        elif e.type == EventType.BT_TRAITOR_REVEALED:
            counts["traitor_reveals"] += 1
        elif e.type == EventType.BT_BETRAYAL:  # BT-23: a reveal no Karama cancelled (BT-51)
            counts["betrayals"] += 1
        elif e.type == EventType.KARAMA_PLAYED and e.data.get("advantage") == "bt_traitor_reveal":
            counts["karama_vs_bt"] += 1
        elif e.type == EventType.BT_ATTACK:
            counts["leader_attacks"] += 1
        elif e.type == EventType.BT_ATTACK_RESOLVED:
            counts["leader_kills"] += bool(e.data.get("killed"))
        elif e.type == EventType.TRAPS_LAID and e.public:
            counts["traps_laid"] += len(e.data.get("strongholds", []))
        elif e.type == EventType.TRAP_LAID:
            counts["traps_laid"] += 1
        elif e.type == EventType.TRAP_TRIGGERED:
            counts["traps_triggered"] += 1
        elif e.type == EventType.CARD_GIVEN:
            counts["cards_given"] += 1
        elif e.type == EventType.SPICE_WIN_DECLARED:
            counts["spice_win_declared"] += 1
        elif e.type == EventType.GAME_OVER and e.data.get("reason") == SPICE_WIN_REASON:
            counts["spice_wins"] += 1
        elif e.type == EventType.KARAMA_VS_BT:
            counts["karama_vs_bt"] += 1
    return counts


class GameResult(NamedTuple):
    finished: bool
    stalled: bool
    violations: list[str]
    winners: list[str]
    turns: int
    actions: int
    event_counts: Counter[EventType]
    cards_played: Counter[str]
    bt: Counter[str]


def cards_played(events: list[Event]) -> Counter[str]:
    """Treachery cards the table saw played, by name: battle plans, special cards, Karama."""
    names = {card.id: card.name for card in load_game_data().treachery_cards}
    played: Counter[str] = Counter()
    for event in events:
        if not event.public:
            continue
        cards = [event.data["card"]] if isinstance(event.data.get("card"), str) else []
        for plan in event.data.get("plans", {}).values():
            cards += [c for c in (plan["cheap_hero"], plan["weapon"], plan["defense"]) if c]
        played.update(names[c] for c in cards if c in names)  # spice cards have ids too
    return played


def play_game(setup: GameSetup, player_seed: int, max_actions: int = 20_000,
              check: Callable[[GameState], list[str]] | None = None, leaks: bool = False,
              defaults_only: bool = False) -> GameResult:
    """Play one whole game with automatic players, checking `check` after every action. With `defaults_only`
    the players answer every prompt with its default and do nothing else (issue 12: such games must end).

    A game stalls when no prompt is open and nobody has won, when it runs past its last turn, or when it
    needs more than `max_actions` decisions.
    """
    rng = Rng.from_seed(player_seed)
    state, events = new_game(setup)
    counts = Counter(e.type for e in events)
    played = cards_played(events)
    bt = bt_counts(events)
    checker = LeakChecker() if leaks else None
    found = list(check(state)) if check else []
    if checker:
        found += checker.check(state, events)
    actions = 0
    while state.phase != Phase.ENDED and state.prompts and actions < max_actions and not found:
        try:
            steps = _answer_with_default(state, rng) if defaults_only else play_one(state, rng)
        except RuleViolation as refusal:  # a default or an any-time choice refused: the lists lie to players
            found = [f"turn {state.turn} {state.phase.value}, action {actions + 1}: refused: {refusal}"]
            break
        actions += 1
        problems = []
        for action, (after, events) in steps:
            counts.update(e.type for e in events)
            played.update(cards_played(events))
            bt.update(bt_counts(events))
            if checker:
                problems += checker.check(after, events, before=state, action=action)
            state = after
        problems = (list(check(state)) if check else []) + problems
        found = [f"turn {state.turn} {state.phase.value}, action {actions}: {v}" for v in problems]
        if state.turn > setup.options.turns:
            break
    finished = state.phase == Phase.ENDED
    return GameResult(finished, not finished and not found, found, [f.value for f in state.winners],
                      state.turn, actions, counts, played, bt)


def play_one(state: GameState, rng: Rng) -> list[tuple[Action, Transition]]:
    """One random move: now and then a spontaneous action (legal: engine/rules/anytime.py lists only what the rules
    accept), else an answer to a random open prompt; each action with the transition it made."""
    spontaneous = spontaneous_action(state, rng)
    if spontaneous is not None:
        return [(spontaneous, apply(state, spontaneous))]
    return [play_prompt(state, rng.choice(state.prompts), rng)]


def _answer_with_default(state: GameState, rng: Rng) -> list[tuple[Action, Transition]]:
    """A random open prompt answered with its default."""
    prompt = rng.choice(state.prompts)
    action = DEFAULTS[prompt.kind](state, prompt)
    return [(action, apply(state, action))]
