"""Automatic players: each answers its open prompts with a random legal choice.

They use their own seeded generator, not the game's, so that the game's randomness (decks, storm) is the
same whoever plays it. Samples come from each prompt kind's registered sampler (engine/flow.py); a sample
the rules refuse is retried, and after a few refusals the prompt's default (always legal) is taken.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from contextlib import suppress
from typing import NamedTuple

from engine.actions import (
    Action,
    KaramaDestroyTrap,
    KaramaTaxBt,
    PlayTruthtrance,
    SetCoexistence,
    SetSpiceWinOrder,
    UseKarama,
)
from engine.coexistence import declarable_territories, may_declare
from engine.data import load_game_data
from engine.errors import RuleViolation
from engine.events import Event
from engine.factions.bt_spice import SPICE_WIN_REASON
from engine.factions.bt_traitors import sample_reveal
from engine.flow import DEFAULTS, SAMPLERS
from engine.game import Transition, apply, new_game
from engine.ids import Faction
from engine.karama import OWNER, advantage_in_play, counts_as_karama
from engine.leaks import LeakChecker
from engine.model import GameState, Phase, Prompt, PromptKind
from engine.options import GameSetup
from engine.rng import Rng
from engine.special_karama import power_available
from engine.special_karama_powers import sample_special_karama

RETRIES = 8


def choose(state: GameState, prompt: Prompt, rng: Rng) -> Action:
    return SAMPLERS[prompt.kind](state, prompt, rng)


SPONTANEOUS_CHANCE = 40  # one step in this many, a holder plays a card that needs no prompt


def spontaneous_action(state: GameState, rng: Rng) -> Action | None:
    """Now and then a faction plays a card that is played at any time: it readies a Karama against a
    random advantage (A-14) or plays it against the BT (BT-51), or asks a Truthtrance question."""
    reveal = sample_reveal(state, rng)  # BT-23: the BT reveal a marked leader now and then
    if reveal is not None:
        return reveal
    if may_declare(state) and rng.below(4) == 0:  # the Bene Gesserit co-exist, or stop
        return _sample_coexistence(state, rng)
    seeing = _atreides_see_plan(state, rng)  # their power has a narrow window, so it is tried there
    if seeing is not None:
        return seeing
    if rng.below(SPONTANEOUS_CHANCE):
        return None
    names = {card.id: card.name for card in load_game_data().treachery_cards}
    faction = rng.choice(list(state.factions))
    others = [f for f in state.factions if f != faction]
    readied = {o.card for o in state.karama_orders}
    bt_action = _against_or_by_bt(state, faction, rng, names, readied)
    if bt_action is not None:
        return bt_action
    for card in state.faction(faction).hand:
        if power_available(state, faction) and counts_as_karama(state, faction, card) and card not in readied \
                and rng.below(2):
            return sample_special_karama(state, faction, card, rng)  # once per game
        if names[card] == "Karama" and card not in readied:
            advantages = [a for a, owner in OWNER.items() if owner in others and advantage_in_play(state, a)]
            if advantages:
                advantage = rng.choice(advantages)
                return UseKarama(faction=faction, card=card, against=OWNER[advantage], advantage=advantage.value)
        if names[card] == "Truthtrance":
            return PlayTruthtrance(faction=faction, target=rng.choice(others), question="Do you hold a traitor?")
    return None


def _atreides_see_plan(state: GameState, rng: Rng) -> Action | None:
    """While the Atreides make a battle plan, their special Karama power (see the opponent's plan), one time in
    three when they may use it."""
    atreides = Faction.ATREIDES
    if not state.in_game(atreides) or not power_available(state, atreides):
        return None
    if not any(p.kind == PromptKind.BATTLE_PLAN for p in state.prompts_for(atreides)):
        return None
    cards = [c for c in state.faction(atreides).hand if counts_as_karama(state, atreides, c)
             and c not in {o.card for o in state.karama_orders}]
    if not cards or rng.below(3):
        return None
    return sample_special_karama(state, atreides, cards[0], rng)


def _sample_coexistence(state: GameState, rng: Rng) -> SetCoexistence | None:
    advisors = bool(rng.below(2))
    territories = declarable_territories(state, advisors) or declarable_territories(state, not advisors)
    if not territories:
        return None
    advisors = advisors if declarable_territories(state, advisors) else not advisors
    return SetCoexistence(faction=Faction.BENE_GESSERIT, territory=rng.choice(territories), advisors=advisors)


def _against_or_by_bt(state: GameState, faction: Faction, rng: Rng, names: dict[str, str],
                      readied: set[str]) -> Action | None:
    """Now and then a Karama holder taxes the BT or destroys an untriggered trap (BT-51), and the BT change
    their standing order to declare a spice win (BT-27: declare or not, 1 in 2)."""
    if not state.in_game(Faction.BENE_TLEILAXU) or rng.below(3):
        return None
    if faction == Faction.BENE_TLEILAXU:
        return SetSpiceWinOrder(faction=faction, declare=not rng.below(2))
    karamas = [c for c in state.faction(faction).hand if names[c] == "Karama" and c not in readied]
    if not karamas:
        return None
    untriggered = [s for s, t in state.traps.items() if t.triggered_by is None]
    if untriggered and state.setup.options.bt_traps and rng.below(2):
        return KaramaDestroyTrap(faction=faction, card=karamas[0], stronghold=rng.choice(untriggered))
    return KaramaTaxBt(faction=faction, card=karamas[0])


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


def bt_counts(events: list[Event]) -> Counter:
    """How often each Bene Tleilaxu power was used, read from the events (the `bt` object of the summary)."""
    counts: Counter = Counter({name: 0 for name in BT_COUNTS})
    for e in events:
        if e.type == "revived" and e.data.get("paid_to") == "bene_tleilaxu":
            counts["revival_spice"] += e.data.get("cost") or 0
        elif e.type == "bt_traitor_marked":
            counts["traitors_marked"] += 1
        elif e.type == "bt_traitor_revealed":
            counts["traitor_reveals"] += 1
            counts["betrayals"] += bool(e.data.get("effect"))
        elif e.type == "bt_attack":
            counts["leader_attacks"] += 1
        elif e.type == "bt_attack_resolved":
            counts["leader_kills"] += bool(e.data.get("killed"))
        elif e.type == "traps_laid" and e.public:
            counts["traps_laid"] += len(e.data.get("strongholds", []))
        elif e.type == "trap_laid":
            counts["traps_laid"] += 1
        elif e.type == "trap_triggered":
            counts["traps_triggered"] += 1
        elif e.type == "card_given":
            counts["cards_given"] += 1
        elif e.type == "spice_win_declared":
            counts["spice_win_declared"] += 1
        elif e.type == "game_over" and e.data.get("reason") == SPICE_WIN_REASON:
            counts["spice_wins"] += 1
        elif e.type == "karama_vs_bt":
            counts["karama_vs_bt"] += 1
    return counts


class GameResult(NamedTuple):
    finished: bool
    stalled: bool
    violations: list[str]
    winners: list[str]
    turns: int
    actions: int
    event_counts: Counter
    cards_played: Counter
    bt: Counter


def cards_played(events: list[Event]) -> Counter:
    """Treachery cards the table saw played, by name: battle plans, special cards, Karama."""
    names = {card.id: card.name for card in load_game_data().treachery_cards}
    played: Counter = Counter()
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
        except RuleViolation as refusal:  # a default refused: with real players the game would stop dead
            found = [f"turn {state.turn} {state.phase.value}, action {actions + 1}: a default is refused: {refusal}"]
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
    """One random move: now and then a spontaneous action, else (or when it showed nothing) an answer to a
    random open prompt; each action with the transition it made."""
    steps: list[tuple[Action, Transition]] = []
    spontaneous = spontaneous_action(state, rng)
    if spontaneous is not None:
        with suppress(RuleViolation):  # the moment did not allow it (a battle in progress, say): no harm done
            steps.append((spontaneous, apply(state, spontaneous)))
    if not steps or not steps[0][1].events:
        state = steps[0][1].state if steps else state
        steps.append(play_prompt(state, rng.choice(state.prompts), rng))
    return steps


def _answer_with_default(state: GameState, rng: Rng) -> list[tuple[Action, Transition]]:
    """A random open prompt answered with its default."""
    prompt = rng.choice(state.prompts)
    action = DEFAULTS[prompt.kind](state, prompt)
    return [(action, apply(state, action))]
