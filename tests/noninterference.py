"""Non-interference: change one faction's secret, and nobody else may be shown anything different.

`python -m tests.noninterference --games 300` (`make noninterference`) runs the long mode and prints its
figures; tests/test_noninterference.py runs a sample of games in `make test`.

How it works. A game is played by the automatic players (engine.checks.autoplay) and every action is kept; the pattern
checks of engine/secrecy/leaks.py run over each (its events: the views are compared below). At states drawn along it,
one secret is changed in a copy of the state, consistently (the `SECRETS` below: a card of a hand swapped with
one of the deck, a kept traitor with an unused traitor card, a trap's card with a BT hand card, a BT mark moved
to another leader or added, the Bene Gesserit prediction, a storm dial awaiting its partner, next turn's weather
dial, a Weather Control distance, a submitted battle plan's dial, a readied Karama, the spice behind a shield,
two cards of a deck or of the face-down auction), or a secret decision is answered otherwise. Then:

- every other viewer (each other faction and the table) must get a byte-identical view of both states, and
  byte-identical decision cards for its open decisions (their words include the default, which the engine
  computes from the whole state);
- the actions the game went on with are applied to both states, one after another, and after each every other
  viewer must get byte-identical events (public ones and its own private ones), view, rendered messages as the
  bot would post them (bot/app/render.py: the channel post, its DM, its new decision cards, the closing lines
  of its answered cards, the end-of-game reveal) and controls of its new cards (bot/discord/components.py
  `prompt_view`: every button's and menu's JSON, custom ids, labels and option values included).

A secret is allowed to come out the way the rules let it: each kind of secret lists the events that rightly
reveal it (a storm dial when the storm moves, a plan at the reveal, a card when it is played, bought or drawn...);
a secret about cards, traitors or marks is revealed only by such an event naming one of them. When such an event
reaches a viewer in the step where that viewer first sees a difference, the viewer joins those who know, and is
no longer compared; a public one ends the pair. A difference without such an event is a violation. (The
harness trusts those events' audiences: engine/secrecy/audiences.py checks them, on every action of the
changed games too.) An action the original game took that the changed state refuses ends the pair when it is the
decision of someone who knows the secret (the owner playing the card that is no longer there), and is a
violation otherwise: the refusal would tell its author the secret.

Deck order: two cards of a deck are swapped anywhere in it; nobody knows a deck's order, so every viewer is
compared until a draw shows one of them to someone (the draw is a listed reveal: the auction's card to the
Atreides and the buyer, a spice blow to all); from then on that viewer is not compared. So a swap deep in the
deck is followed as long as the pair runs, a swap near the top until its draw.

What is not compared, and why: the console's board text, the map picture and the running game's export are
built from `engine.secrecy.views.view` alone (bot/console/text.py, bot/app/map_picture.py, GameService.export_for's
"now"), so equal views give equal texts; the export's log is built from past events and is compared by
tests/test_noninterference.py on twin games through the service.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from bot.app.ports import OutgoingMessage
from bot.app.render import action_messages, decision_card
from bot.discord.components import prompt_view
from engine.actions import Action, PlayerAction
from engine.checks.autoplay import play_one
from engine.data import load_game_data
from engine.errors import RuleViolation
from engine.events import Event, visible_events
from engine.flow import SAMPLERS
from engine.game import apply, new_game
from engine.ids import BASE_FACTIONS, Faction
from engine.model import BattlePlan, GameState, KaramaOrder, Phase, Prompt, PromptKind, StormCardPlay
from engine.options import GameOptions, GameSetup
from engine.phases.bt_attack import attack_cards
from engine.rng import Rng
from engine.rules.karama import OWNER, advantage_in_play, counts_as_karama
from engine.secrecy.audiences import Step, actor, audience_problems
from engine.secrecy.leaks import LeakChecker
from engine.secrecy.views import view

GAME_ID = "g1"
Viewer = Faction | None


# --- the game ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Played:
    """One action of the recorded game: the state it was applied to, the action, the state and events after."""

    before: GameState
    action: Action
    after: GameState
    events: list[Event]


def play(setup: GameSetup, max_actions: int = 4000) -> list[Played]:
    """A whole game by the automatic players, every action kept."""
    state, _ = new_game(setup)
    rng = Rng.from_seed(setup.seed)
    played: list[Played] = []
    while state.phase != Phase.ENDED and state.prompts and len(played) < max_actions:
        for action, (after, events) in play_one(state, rng):
            played.append(Played(state, action, after, events))
            state = after
    return played


# --- the secrets ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Change:
    """A state with one secret changed, and who knew that secret (they may see the difference). With `answer`,
    the state is the original one and the secret is the answer to a decision, given otherwise than in the game."""

    state: GameState
    knowers: frozenset[Faction]
    what: str
    answer: Action | None = None
    reveals: frozenset[str] | None = None  # instead of the kind's own
    # The ids the secret is about (two swapped cards, two traitors...): a reveal must name one of them.
    ids: frozenset[str] = frozenset()


@dataclass(frozen=True)
class Moment:
    """Where a secret is changed: the recorded game and the index of the action about to be taken."""

    played: list[Played]
    index: int

    @property
    def state(self) -> GameState:
        return self.played[self.index].before


def _copy(state: GameState) -> GameState:
    return GameState.model_validate(state.model_dump())


def _swap_ids(state: GameState, first: str, second: str) -> GameState:
    """The state with two card ids exchanged wherever they occur: one card takes the other's place in a hand, a
    deck, a trap, a readied order or the owner's own open decisions, so the state stays consistent."""
    text = state.model_dump_json()
    marker = "\x00"
    text = text.replace(f'"{first}"', marker).replace(f'"{second}"', f'"{first}"').replace(marker, f'"{second}"')
    return GameState.model_validate_json(text)


CARD_NAMES = {c.id: c.name for c in load_game_data().treachery_cards}


def _public_cards(state: GameState) -> set[str]:
    """Card ids any view shows (the discard, the revealed plans): never swapped."""
    shown = set(state.treachery_discard) | set(state.removed_cards)
    battle = state.battle.current if state.battle else None
    if battle is not None and battle.step == "traitors":
        shown |= {c for p in battle.plans.values() for c in (p.weapon, p.defense, p.cheap_hero) if c}
    return shown


def _other_card(state: GameState, rng: Rng, card: str, pool: list[str]) -> str | None:
    """A card of `pool` bearing another name than `card`, if any."""
    others = [c for c in pool if CARD_NAMES[c] != CARD_NAMES[card] and c not in _public_cards(state)]
    return rng.choice(others) if others else None


def change_hand(moment: Moment, rng: Rng) -> Change | None:
    """A card of a hand swapped with a card of the Treachery deck."""
    state = moment.state
    holders = [f for f, fs in state.factions.items() if set(fs.hand) - _public_cards(state)]
    if not holders or not state.treachery_deck:
        return None
    owner = rng.choice(holders)
    card = rng.choice([c for c in state.faction(owner).hand if c not in _public_cards(state)])
    other = _other_card(state, rng, card, state.treachery_deck)
    if other is None:
        return None
    changed = _swap_ids(state, card, other)
    if _disarms_a_bt_attack(state, changed):
        return None
    return Change(changed, frozenset({owner}), f"{owner.value}'s {card} is {other}", ids=frozenset({card, other}))


def change_traitor(moment: Moment, rng: Rng) -> Change | None:
    """A kept traitor swapped with a card of the unused traitor deck (where the candidates not kept went)."""
    state = moment.state
    holders = [f for f, fs in state.factions.items() if fs.traitors]
    if not holders or not state.traitor_deck_unused:
        return None
    owner = rng.choice(holders)
    changed = _copy(state)
    traitors, unused = changed.faction(owner).traitors, changed.traitor_deck_unused
    i, j = rng.below(len(traitors)), rng.below(len(unused))
    traitors[i], unused[j] = unused[j], traitors[i]
    return Change(changed, frozenset({owner}), f"{owner.value}'s traitor {unused[j]} is {traitors[i]}",
                  ids=frozenset({unused[j], traitors[i]}))


def change_trap(moment: Moment, rng: Rng) -> Change | None:
    """BT-30: a trap's card swapped with a card of the BT hand."""
    state = moment.state
    bt = Faction.BENE_TLEILAXU
    if not state.traps or not state.in_game(bt) or not state.faction(bt).hand:
        return None
    stronghold = rng.choice(sorted(state.traps))
    card = state.traps[stronghold].card
    other = _other_card(state, rng, card, state.faction(bt).hand)
    if other is None:
        return None
    changed = _swap_ids(state, card, other)
    if _disarms_a_bt_attack(state, changed):
        return None
    return Change(changed, frozenset({bt}), f"the trap on {stronghold} is {other}, not {card}",
                  ids=frozenset({card, other}))


def _disarms_a_bt_attack(state: GameState, changed: GameState) -> bool:
    """While a BT leader attack is on, the table knows the BT hold a card for its weapon slot (the attack was
    accepted only so, BT-12): a change that takes their last one away is a game that cannot be."""
    battle = state.battle.current if state.battle is not None else None
    return (battle is not None and battle.attack == "leader" and bool(attack_cards(state))
            and not attack_cards(changed))


def change_mark(moment: Moment, rng: Rng) -> Change | None:
    """BT-20: a leader the BT marked replaced by another living leader of another faction, or, when the BT marked
    nobody, such a leader marked. (The rules let the BT mark revived leaders only; a mark the table could rule
    out changes nothing but what the BT are shown, and the BT know their marks.)"""
    state = moment.state
    if state.bt is None:
        return None
    dead = {leader for fs in state.factions.values() for leader in fs.leaders_in_tanks}
    leaders = {leader.id for f in state.factions if f != Faction.BENE_TLEILAXU
               for leader in load_game_data().factions[f].leaders}
    candidates = sorted(leaders - dead - set(state.bt.marked) - set(state.captured))
    if not candidates:
        return None
    changed = _copy(state)
    marked = changed.bt.marked
    new = rng.choice(candidates)
    if marked:
        index = rng.below(len(marked))
        old, marked[index] = marked[index], new
        what = f"the BT mark {old} is {new}"
    else:
        old = None
        marked.append(new)
        what = f"the BT marked {new}"
    return Change(changed, frozenset({Faction.BENE_TLEILAXU}), what, ids=frozenset({new, old} - {None}))


def change_prediction(moment: Moment, rng: Rng) -> Change | None:
    """A-25: another faction, another turn."""
    state = moment.state
    if state.bg_prediction is None:
        return None
    changed = _copy(state)
    prediction = changed.bg_prediction
    prediction.faction = rng.choice([f for f in state.factions if f != prediction.faction])
    prediction.turn = 1 + rng.below(state.setup.options.turns)
    return Change(changed, frozenset({Faction.BENE_GESSERIT}), f"the prediction is {prediction.faction.value} on "
                  f"turn {prediction.turn}")


def _dial_prompt_open(state: GameState, forecast: bool) -> bool:
    return any(p.kind == PromptKind.STORM_DIAL and bool(p.detail.get("forecast")) == forecast for p in state.prompts)


def change_storm_dial(moment: Moment, rng: Rng) -> Change | None:
    """A-1: a storm dial made while the other dialer is still to dial (1 to 3; 0 to 20 on turn 1)."""
    state = moment.state
    if not state.storm_dials or not _dial_prompt_open(state, forecast=False):
        return None
    owner = rng.choice(sorted(state.storm_dials))
    high = 20 if state.turn == 1 else 3
    low = 0 if state.turn == 1 else 1
    changed = _copy(state)
    old = changed.storm_dials[owner]
    changed.storm_dials[owner] = rng.choice([v for v in range(low, high + 1) if v != old])
    return Change(changed, frozenset({owner}), f"{owner.value} dialed {changed.storm_dials[owner]}, not {old}")


def change_forecast(moment: Moment, rng: Rng) -> Change | None:
    """A-15 `weather`: one of next turn's dials (1 to 3); the Fremen know the sum, so they know of the change."""
    state = moment.state
    if not state.storm_forecast:
        return None
    owner = rng.choice(sorted(state.storm_forecast))
    changed = _copy(state)
    old = changed.storm_forecast[owner]
    changed.storm_forecast[owner] = rng.choice([v for v in (1, 2, 3) if v != old])
    return Change(changed, frozenset({owner, Faction.FREMEN}), f"{owner.value} forecast {old} is "
                  f"{changed.storm_forecast[owner]}")


def change_weather_control(moment: Moment, rng: Rng) -> Change | None:
    """A Weather Control distance chosen in the storm-card window, while others are still to answer."""
    state = moment.state
    plays = {f: p for f, p in state.storm_card_plays.items() if p.weather_control is not None}
    if not plays or not any(p.kind == PromptKind.STORM_CARDS for p in state.prompts):
        return None
    owner = rng.choice(sorted(plays))
    changed = _copy(state)
    old = plays[owner].weather_control
    distance = rng.choice([v for v in range(0, 11) if v != old])
    changed.storm_card_plays[owner] = StormCardPlay(weather_control=distance,
                                                    family_atomics=plays[owner].family_atomics)
    return Change(changed, frozenset({owner}), f"{owner.value}'s Weather Control moves {distance}, not {old}")


def change_plan_dial(moment: Moment, rng: Rng) -> Change | None:
    """A-13: a submitted battle plan's dial lowered (any lower dial is legal; spice backing it, A-15, no more than
    the dial). Not a plan bound by a prescience answer, which its asker knows."""
    state = moment.state
    battle = state.battle.current if state.battle else None
    if battle is None or battle.step != "plans" or battle.attack == "trap":
        return None
    owners = [f for f, p in battle.plans.items() if p.dial > 0 and f != battle.prescience_target]
    if not owners:
        return None
    owner = rng.choice(owners)
    changed = _copy(state)
    plan: BattlePlan = changed.battle.current.plans[owner]
    old = plan.dial
    plan.dial = rng.below(old)
    plan.spice = min(plan.spice, plan.dial)
    return Change(changed, frozenset({owner}), f"{owner.value}'s plan dials {plan.dial}, not {old}")


def change_karama_order(moment: Moment, rng: Rng) -> Change | None:
    """A-14: a Karama card held and not readied, readied against another faction's advantage (a secret standing
    order until it fires); or a readied one withdrawn."""
    state = moment.state
    if state.karama_orders and rng.below(2):
        changed = _copy(state)
        order = changed.karama_orders.pop(rng.below(len(changed.karama_orders)))
        return Change(changed, frozenset({order.faction}), f"{order.faction.value} readied no Karama against "
                      f"{order.advantage}", ids=frozenset({order.card}))
    readied = {o.card for o in state.karama_orders}
    held = [(f, c) for f, fs in state.factions.items() for c in fs.hand
            if counts_as_karama(state, f, c) and c not in readied]
    if not held:
        return None
    owner, card = rng.choice(held)
    advantages = [a for a, f in OWNER.items() if f != owner and state.in_game(f) and advantage_in_play(state, a)]
    if not advantages:
        return None
    changed = _copy(state)
    advantage = rng.choice(advantages)
    changed.karama_orders.append(KaramaOrder(faction=owner, card=card, advantage=advantage))
    return Change(changed, frozenset({owner}), f"{owner.value} readied {card} against {advantage}",
                  ids=frozenset({card}))


def _committed_spice(state: GameState, faction: Faction) -> int:
    """Spice the table knows a faction holds: its standing high bid (A-6), the BT's open spice (BT-27), and what
    its submitted plan backs its dial with (A-15, its own secret, but a plan it may not lose)."""
    committed = 0
    bidding = state.bidding
    if bidding is not None and bidding.high_bidder == faction:
        committed += bidding.high_bid - bidding.high_ally_pays
    if bidding is not None and bidding.high_ally == faction:
        committed += bidding.high_ally_pays
    if faction == Faction.BENE_TLEILAXU and state.bt is not None:
        committed += state.bt.open_spice
    battle = state.battle.current if state.battle else None
    if battle is not None and faction in battle.plans:
        committed += battle.plans[faction].spice
    return committed


def change_spice(moment: Moment, rng: Rng) -> Change | None:
    """Spice behind a shield: up to 5 more (from the bank), or less, down to what the table knows is there."""
    state = moment.state
    owner = rng.choice(list(state.factions))
    fs = state.faction(owner)
    spare = max(fs.spice - _committed_spice(state, owner), 0)
    amounts = [k for k in range(-spare, 6) if k]
    delta = rng.choice(amounts)
    changed = _copy(state)
    changed.faction(owner).spice += delta
    changed.spice_outside_bank += delta
    return Change(changed, frozenset({owner}), f"{owner.value} holds {fs.spice + delta} spice, not {fs.spice}")


def _swap_positions(cards: list[str], rng: Rng, first: int) -> tuple[int, int] | None:
    """Two positions at or below `first` holding different cards, or None."""
    if len(cards) - first < 2:
        return None
    i = first + rng.below(len(cards) - first)
    j = first + rng.below(len(cards) - first - 1)
    j += j >= i
    return (i, j) if cards[i] != cards[j] else None


def change_treachery_deck(moment: Moment, rng: Rng) -> Change | None:
    """Two cards of the Treachery deck exchange places (nobody knows the deck's order)."""
    state = moment.state
    where = _swap_positions(state.treachery_deck, rng, 0)
    if where is None:
        return None
    i, j = where
    changed = _copy(state)
    deck = changed.treachery_deck
    deck[i], deck[j] = deck[j], deck[i]
    return Change(changed, frozenset(), f"treachery deck positions {i} and {j} swapped",
                  ids=frozenset({deck[i], deck[j]}))


def change_spice_deck(moment: Moment, rng: Rng) -> Change | None:
    """Two cards of the spice deck exchange places; not its top card, which the Atreides may have seen (A-26)."""
    state = moment.state
    where = _swap_positions(state.spice_deck, rng, 1 if state.in_game(Faction.ATREIDES) else 0)
    if where is None:
        return None
    i, j = where
    changed = _copy(state)
    deck = changed.spice_deck
    deck[i], deck[j] = deck[j], deck[i]
    return Change(changed, frozenset(), f"spice deck positions {i} and {j} swapped", ids=frozenset({deck[i], deck[j]}))


def change_auction(moment: Moment, rng: Rng) -> Change | None:
    """Two face-down cards of the auction exchange places, after the one up (which the Atreides saw)."""
    state = moment.state
    if state.bidding is None:
        return None
    start = 1 if state.bidding.card_open or state.bidding.card_number else 0
    where = _swap_positions(state.bidding.cards, rng, start)
    if where is None:
        return None
    i, j = where
    changed = _copy(state)
    cards = changed.bidding.cards
    cards[i], cards[j] = cards[j], cards[i]
    return Change(changed, frozenset(), f"auction cards {i} and {j} swapped", ids=frozenset({cards[i], cards[j]}))


def _answered(played: Played) -> Prompt | None:
    """The secret decision the recorded action answered, if it is one."""
    if not isinstance(played.action, PlayerAction):
        return None
    return next((p for p in played.before.prompts if p.secret and p.faction == played.action.faction
                 and played.after.prompt(p.id) is None and p.kind in ANSWER_REVEALS), None)


def change_answer(moment: Moment, rng: Rng) -> Change | None:
    """A secret decision answered otherwise (another legal answer drawn by the automatic players)."""
    played = moment.played[moment.index]
    prompt = _answered(played)
    if prompt is None:
        return None
    for _ in range(8):
        other = SAMPLERS[prompt.kind](played.before, prompt, rng)
        if other == played.action:
            continue
        try:
            apply(played.before, other)
        except RuleViolation:
            continue
        knowers = {prompt.faction}
        if prompt.kind == PromptKind.PRESCIENCE_ANSWER:
            knowers.add(Faction.ATREIDES)  # the answer goes to the asker
        if prompt.kind == PromptKind.STORM_DIAL and prompt.detail.get("forecast"):
            knowers.add(Faction.FREMEN)  # A-15 `weather`: the Fremen learn the sum
        return Change(played.before, frozenset(knowers), f"{prompt.kind.value} answered {other.model_dump_json()}",
                      answer=other, reveals=ANSWER_REVEALS[prompt.kind] | ENDS)
    return None


# Events through which each kind of secret rightly comes out, to their audience (public: to everyone).
DRAWS = frozenset({"cards_dealt", "card_bought", "auction_card_seen", "extra_card_drawn", "card_given_card",
                   "hand_taken", "cards_given_back"})
ENDS = frozenset({"game_over"})  # item 13 of the bot issue: at the end every secret is shown
CARD_PLAYS = frozenset({"plans_revealed", "card_played", "karama_played", "karama_vs_bt", "special_karama",
                        "plan_seen", "prescience_answered", "bt_trap_resolved", "trap_seen", "trap_discarded"})


STORM = frozenset({"storm_moved", "storm_cards_window"})
# The secret decisions answered otherwise, and the events through which each answer rightly comes out. Not here:
# the BT's traps and gifts (where they go is public: the "trap" and "hand" secrets change their cards), the
# Harkonnen's hand swap (its count is public).
ANSWER_REVEALS: dict[PromptKind, frozenset[str]] = {
    PromptKind.TRAITOR_PICK: frozenset({"traitor_called", "double_traitor"}),
    PromptKind.BG_PREDICTION: frozenset(),
    PromptKind.STORM_DIAL: STORM,
    PromptKind.STORM_CARDS: STORM | {"card_played"},
    PromptKind.BATTLE_PLAN: frozenset({"plans_revealed", "plan_seen"}),
    PromptKind.PRESCIENCE_ANSWER: frozenset({"plans_revealed"}),
    PromptKind.TRAITOR_CALL: frozenset({"traitor_called", "double_traitor"}),
    PromptKind.BT_MARK: frozenset({"bt_traitor_revealed"}),
    PromptKind.BT_ATTACK: frozenset({"bt_attack", "bt_attack_declined"}),
    PromptKind.BT_REVEAL_WINDOW: frozenset({"bt_traitor_revealed"}),
}


# The rules show something of a faction's spice: CHOAM charity goes to those with 0 or 1; the BT declare
# with 35 (BT-27) and the declaration ends below 35 (BT-28); a Karama tax takes 10 or all the BT have (BT-51); a
# Guild made to pay full price by a Karama may not have it, and the shipment is not made.
# A bid or a pass tells what the bidder may pay: its owner's own act, by a click or by its standing order.
SPICE_SHOWN = frozenset({"choam_charity", "spice_win_declared", "spice_declaration_ended", "karama_vs_bt",
                         "action_cancelled", "bid_made", "bid_passed"})


@dataclass(frozen=True)
class SecretKind:
    name: str
    change: Callable[..., Change | None]
    reveals: frozenset[str]


SECRETS = [
    SecretKind("hand", change_hand, CARD_PLAYS | DRAWS | ENDS),
    SecretKind("traitor", change_traitor, frozenset({"traitor_called", "double_traitor"}) | ENDS),
    SecretKind("trap", change_trap, CARD_PLAYS | DRAWS | ENDS),
    SecretKind("mark", change_mark, frozenset({"bt_traitor_revealed"}) | ENDS),
    SecretKind("prediction", change_prediction, ENDS),
    SecretKind("storm_dial", change_storm_dial, STORM | ENDS),
    SecretKind("forecast", change_forecast, STORM | ENDS),
    SecretKind("weather_control", change_weather_control, STORM | {"card_played"} | ENDS),
    SecretKind("plan_dial", change_plan_dial, frozenset({"plans_revealed", "plan_seen"}) | ENDS),
    SecretKind("karama_order", change_karama_order, frozenset({"karama_played"}) | ENDS),
    SecretKind("spice", change_spice, SPICE_SHOWN | ENDS),
    SecretKind("treachery_deck", change_treachery_deck, DRAWS | CARD_PLAYS | ENDS),
    SecretKind("spice_deck", change_spice_deck, frozenset({"spice_blow", "spice_blow_in_storm", "worm",
                                                           "worm_again", "worm_nothing", "worm_set_aside",
                                                           "worm_placement_offered", "spice_deck_seen"}) | ENDS),
    SecretKind("auction", change_auction, DRAWS | ENDS),
    SecretKind("answer", change_answer, ENDS),  # each answer brings the reveals of its decision
]


# --- what each viewer is shown ---------------------------------------------------------------------


def _standing(state: GameState, viewer: Viewer) -> dict[str, str]:
    """What a viewer is shown of a state: its view, and the cards of its open decisions."""
    shown = {"view": view(state, viewer).model_dump_json()}
    if viewer is not None:
        cards = [decision_card(state, p, None).text for p in state.prompts_for(viewer)]
        shown["open cards"] = json.dumps(cards)
    return shown


def _outbox(before: GameState, action: Action, after: GameState, events: list[Event]) -> list[OutgoingMessage]:
    """Every message the bot would queue for one action (GameService.submit)."""
    return action_messages(events, before, action, after)


def _controls(state: GameState, message: OutgoingMessage, viewer: Viewer) -> list[dict]:
    prompt = state.prompt(message.prompt_id) if message.prompt_id else None
    controls = prompt_view(GAME_ID, prompt, viewer.value if viewer else None) if prompt else None
    return [item.to_component_dict() for item in controls.children] if controls is not None else []


def _after_action(after: GameState, events: list[Event], outbox: list[OutgoingMessage],
                  viewer: Viewer) -> dict[str, str]:
    """What a viewer is shown after an action: its events, messages and their controls, view and open cards."""
    mine = [m for m in outbox if m.recipient.channel or (viewer is not None and m.recipient.faction == viewer.value)]
    return {
        "events": json.dumps([e.model_dump(mode="json") for e in visible_events(events, viewer)]),
        "messages": json.dumps([m.model_dump(mode="json") for m in mine]),
        "controls": json.dumps([_controls(after, m, viewer) for m in mine]),
        **_standing(after, viewer),
    }


# --- comparing ---------------------------------------------------------------------------------


@dataclass
class Figures:
    """What a run did: games played and their actions, the states changed (by kind of secret), the actions
    followed from them, the comparisons made (one per viewer and part shown: view, events, messages, controls,
    open cards), why each pair ended, and every violation found."""

    games: int = 0
    actions: int = 0
    states: int = 0
    perturbations: Counter = field(default_factory=Counter)
    steps: int = 0
    comparisons: int = 0
    ends: Counter = field(default_factory=Counter)
    violations: list[str] = field(default_factory=list)
    seconds: float = 0.0

    def summary(self) -> dict:
        return {"games": self.games, "actions": self.actions, "states_checked": self.states,
                "perturbations": sum(self.perturbations.values()),
                "by_secret": dict(sorted(self.perturbations.items())),
                "steps_followed": self.steps, "comparisons": self.comparisons, "pairs_ended": dict(self.ends),
                "violations": len(self.violations), "seconds": round(self.seconds, 1)}


def _first_difference(a: str, b: str) -> str:
    at = next((i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), min(len(a), len(b)))
    return f"…{a[max(at - 80, 0):at + 80]}… / …{b[max(at - 80, 0):at + 80]}…"


class Game:
    """One recorded game, with what each viewer was shown, computed once and kept for every pair."""

    def __init__(self, setup: GameSetup, played: list[Played]):
        self.setup = setup
        self.played = played
        self.viewers: list[Viewer] = [None, *setup.factions]
        self._standing: dict[tuple[int, Viewer], dict[str, str]] = {}
        self._after: dict[tuple[int, Viewer], dict[str, str]] = {}
        self._outboxes: dict[int, list[OutgoingMessage]] = {}

    def standing(self, index: int, viewer: Viewer) -> dict[str, str]:
        key = (index, viewer)
        if key not in self._standing:
            self._standing[key] = _standing(self.played[index].before, viewer)
        return self._standing[key]

    def after(self, index: int, viewer: Viewer) -> dict[str, str]:
        key = (index, viewer)
        if key not in self._after:
            step = self.played[index]
            if index not in self._outboxes:
                self._outboxes[index] = _outbox(step.before, step.action, step.after, step.events)
            self._after[key] = _after_action(step.after, step.events, self._outboxes[index], viewer)
        return self._after[key]


def _strings(value) -> set[str]:
    if isinstance(value, str):
        return {value}
    if isinstance(value, dict):
        return set().union(*map(_strings, value.values()), *map(_strings, value)) if value else set()
    if isinstance(value, list | tuple):
        return set().union(*map(_strings, value)) if value else set()
    return set()


def _revealed_to(events: list[Event], change: Change, reveals: frozenset[str], viewer: Viewer) -> bool:
    """An event of a revealing kind reached `viewer`, about the secret (naming one of its ids, when it has some)."""
    return any(e.type in reveals and e.visible_to(viewer) and (not change.ids or change.ids & _strings(e.data)
                                                               or e.type in ENDS) for e in events)


def _learn(knowers: set[Viewer], viewer: Viewer, everyone: list[Viewer]) -> None:
    """`viewer` now knows the secret; what the table knows, everyone knows."""
    knowers.update(everyone if viewer is None else [viewer])


def compare_pair(game: Game, index: int, kind: SecretKind, change: Change, figures: Figures,
                 max_steps: int) -> None:
    """Follow one changed state along the game from action `index`; record every violation in `figures` and
    why the pair ended in `figures.ends`."""
    where = game.played[index].before
    label = (f"seed {game.setup.seed}, action {index} (turn {where.turn} {where.phase.value}), {kind.name}: "
             f"{change.what}")
    reveals = change.reveals if change.reveals is not None else kind.reveals
    knowers: set[Viewer] = set(change.knowers)
    for viewer in game.viewers if change.answer is None else []:
        if viewer in knowers:
            continue
        original, changed = game.standing(index, viewer), _standing(change.state, viewer)
        figures.comparisons += len(original)
        differing = next((part for part, text in original.items() if changed[part] != text), None)
        if differing is not None:
            figures.violations.append(f"{label}: before any action, {viewer or 'the table'} is shown another "
                                      f"{differing}: {_first_difference(original[differing], changed[differing])}")
            _learn(knowers, viewer, game.viewers)
    state = change.state
    for offset in range(max_steps):
        if index + offset >= len(game.played):
            figures.ends["the recorded game ended"] += 1
            return
        if set(game.viewers) <= knowers:
            figures.ends["everyone knows"] += 1
            return
        step = game.played[index + offset]
        action = change.answer if offset == 0 and change.answer is not None else step.action
        figures.steps += 1
        try:
            after, events = apply(state, action)
        except RuleViolation as refusal:
            who = actor(Step(state, action, state))
            if who not in knowers:
                figures.violations.append(f"{label}: action {index + offset} ({action.type} by {who}) is refused "
                                          f"only in the changed game, which tells its author: {refusal}")
            figures.ends["refused to one who knows" if who in knowers else "refused"] += 1
            return
        step_of = Step(state, action, after)
        figures.violations += [f"{label}: {problem}" for e in events if not e.public
                               for problem in audience_problems(e, step_of)]
        outbox = _outbox(state, action, after, events)
        for viewer in game.viewers:
            if viewer in knowers:
                continue
            original, changed = game.after(index + offset, viewer), _after_action(after, events, outbox, viewer)
            figures.comparisons += len(original)
            differing = next((part for part, text in original.items() if changed[part] != text), None)
            if differing is None:
                continue
            if not any(_revealed_to(told, change, reveals, viewer) for told in (step.events, events)):
                figures.violations.append(
                    f"{label}: after action {index + offset} ({action.type}), {viewer or 'the table'} is shown "
                    f"other {differing}: {_first_difference(original[differing], changed[differing])}")
            _learn(knowers, viewer, game.viewers)  # a public difference is reported once
        state = after
    figures.ends["steps followed"] += 1


# --- the games -----------------------------------------------------------------------------------


def setups(games: int, first_seed: int = 1) -> Iterator[GameSetup]:
    """Seven factions with the BT and every option, seven with none, the six base factions with every option,
    and smaller tables (three or four factions, with and without the BT), in turn."""
    base = tuple(BASE_FACTIONS)
    tables = [
        (tuple(Faction), GameOptions.all_on()),
        (tuple(Faction), GameOptions()),
        (base, GameOptions.all_on()),
        ((Faction.ATREIDES, Faction.HARKONNEN, Faction.FREMEN, Faction.BENE_TLEILAXU), GameOptions.all_on()),
        ((Faction.BENE_GESSERIT, Faction.EMPEROR, Faction.GUILD), GameOptions(advanced_combat=True, weather=True)),
    ]
    for seed in range(first_seed, first_seed + games):  # a game's table follows from its seed: `--seed N --games 1`
        factions, options = tables[(seed - 1) % len(tables)]  # plays game N again
        yield GameSetup(factions=factions, options=options, seed=seed)


def check_game(setup: GameSetup, figures: Figures, states_per_secret: int, max_steps: int) -> None:
    """Record a game, then follow `states_per_secret` changed states of each kind of secret from states drawn
    along it (fewer when the secret exists in fewer states)."""
    game = Game(setup, play(setup))
    figures.games += 1
    figures.actions += len(game.played)
    patterns = LeakChecker()  # the pattern checks over every action of the game itself (views: compared below)
    for number, p in enumerate(game.played):
        figures.violations += [f"seed {setup.seed}, action {number}: {problem}"
                               for problem in patterns.check(p.after, p.events, views=False, before=p.before,
                                                             action=p.action)]
    rng = Rng.from_seed(setup.seed * 7919 + 1)
    checked: set[int] = set()
    for kind in SECRETS:
        indices = list(range(len(game.played)))
        rng.shuffle(indices)
        found = 0
        for index in indices:  # in the order drawn until enough are found: a rare secret is sought all along
            change = kind.change(Moment(game.played, index), rng)
            if change is None:
                continue
            figures.perturbations[kind.name] += 1
            checked.add(index)
            compare_pair(game, index, kind, change, figures, max_steps)
            found += 1
            if found == states_per_secret:
                break
    figures.states += len(checked)


def run(games: int, states_per_secret: int, max_steps: int, first_seed: int = 1, progress: bool = False) -> Figures:
    figures = Figures()
    started = time.perf_counter()
    for setup in setups(games, first_seed):
        known = len(figures.violations)
        check_game(setup, figures, states_per_secret, max_steps)
        figures.seconds = time.perf_counter() - started
        if progress:
            for violation in figures.violations[known:]:
                print(violation, file=sys.stderr, flush=True)
            if figures.games % 25 == 0:
                print(json.dumps(figures.summary()), file=sys.stderr, flush=True)
    return figures


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.noninterference", description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=300)
    parser.add_argument("--seed", type=int, default=1, help="the first game's seed")
    parser.add_argument("--states", type=int, default=4, help="changed states per kind of secret and game")
    parser.add_argument("--steps", type=int, default=40, help="actions followed from each changed state")
    args = parser.parse_args(argv)
    figures = run(args.games, args.states, args.steps, args.seed, progress=True)
    print(json.dumps(figures.summary()))
    return 1 if figures.violations else 0


if __name__ == "__main__":
    sys.exit(main())
