"""Secret-keeping checks over a game in progress: no view and no public event shows what its reader may not
know (hands, traitors, the prediction, spice behind shields, BT marks, trap cards, unrevealed plans, dials), and
every private event goes only to the factions entitled to it (engine/secrecy/audiences.py).

These are pattern checks: they look for a secret's own words and ids where they do not belong. What they cannot
see (a secret that changes a message without naming itself) the non-interference harness finds by changing
the secret and comparing what everyone else is shown (tests/noninterference.py).

Used after every action by the leak tests and by `python -m engine autoplay --leaks`.
"""

from __future__ import annotations

import re

from engine.actions import Action
from engine.data import load_game_data
from engine.events import Event, EventType
from engine.ids import Faction
from engine.model import GameState, PromptKind, required
from engine.names import faction_name
from engine.secrecy.audiences import Step, audience_problems
from engine.secrecy.views import view


def _strings(value: object) -> set[str]:
    if isinstance(value, str):
        return {value}
    if isinstance(value, dict):
        return set().union(*(_strings(k) | _strings(v) for k, v in value.items())) if value else set()
    if isinstance(value, list | tuple):
        return set().union(*(_strings(v) for v in value)) if value else set()
    return set()


# Words that say how much spice a faction holds, before the amount ("could pay only 3", "has 12 spice left"); a
# bound ("hold at least 35", BT-27) is a rule's words, and so is a rule's number ("nobody else has won (BT-27)").
HOLDING = re.compile(r"\b(?:ha(?:ve|s)|holds?|held|only|left with|behind (?:the|their) shield)\D{0,24}?"
                     r"(?<![A-Z]-)(\d+)")


# Rule words in public messages that name a card without telling of one.
RULE_WORDS = ("cancelled by Karama", " as Karama",  # the role a card plays, not the card
              "unless a Karama cancels", "plays Karama to cancel", "No Karama:")  # the BT-51 window, asked of all


class LeakChecker:
    """Remembers what the table has rightly seen (cards revealed in battle plans) across one game."""

    def __init__(self) -> None:
        self.revealed: set[str] = set()
        data = load_game_data()
        # A card's name, as a public message would print it -> every card bearing it (four Shields, two Karamas).
        self.cards_named: dict[str, set[str]] = {}
        for card in data.treachery_cards:
            self.cards_named.setdefault(card.name, set()).add(card.id)
        self.name_patterns = {name: re.compile(rf"\b{re.escape(name)}\b") for name in self.cards_named}
        self.every_card = {c.id for c in data.treachery_cards}
        # "Gara Kulon" and "Shield Wall" are places; "cancelled by Karama" says what a Karama would do.
        self.not_cards = sorted(data.board.territories, key=len, reverse=True) + list(RULE_WORDS)

    def check(self, state: GameState, events: list[Event], views: bool = True, before: GameState | None = None,
              action: Action | None = None) -> list[str]:
        """Every leak in the state reached and the events of the action that reached it (`before` and `action`
        are the state it was applied to and the action itself; None for a new game's events)."""
        step = Step(before, action, state)
        found = [problem for e in events if not e.public for problem in audience_problems(e, step)]
        found += self._public_events(state, events, before) + self._numbers(state, events, before)
        if views:
            found += self._views(state) + self._unrevealed_plans(state)
        return found

    def _hidden_cards(self, state: GameState) -> set[str]:
        """Every Treachery card whose face the table has not seen: in a hand, a deck, a trap, the auction."""
        self.revealed -= set(state.treachery_deck)  # back in the deck: secret again once drawn
        return self.every_card - set(state.treachery_discard) - set(state.removed_cards) - self.revealed

    def _public_events(self, state: GameState, events: list[Event], before: GameState | None) -> list[str]:
        """No public event names a hidden card by its id, nor by its name while no card of that name is known to
        the table (four cards are called Shield: "Shield" names one only when none is in the open)."""
        found = self._forecast_events(state, events)
        for event in events:
            if event.public and event.type == EventType.PLANS_REVEALED:
                self.revealed |= _strings(event.data["plans"])
        hidden = self._hidden_cards(state)
        # Cards a faction keeps face down (a card named in passing may be shuffled back into the deck at once).
        in_hands = hidden & ({c for fs in state.factions.values() for c in fs.hand}
                             | {t.card for t in state.traps.values()})
        held = in_hands | (hidden & set(state.bidding.cards if state.bidding else ()))
        # A card played face up, then shuffled back with the discard pile and dealt to the auction in the same
        # action, was in the open when its event named it: the auction counts only for the events after the shuffle.
        shuffled = next((i for i, e in enumerate(events) if e.type == EventType.TREACHERY_RESHUFFLED), len(events))
        # Cards the table knows of now: named in this action's public events, revealed in a battle, discarded.
        shown = set().union(*(_strings(e.data) for e in events if e.public)) if events else set()
        shown |= self.revealed | set(state.treachery_discard) | set(before.treachery_discard if before else ())
        for index, event in enumerate(events):
            if not event.public or event.type == EventType.PLANS_REVEALED:
                continue
            data = {k: v for k, v in event.data.items() if k != "category"}  # "lasgun" is a kind and a card id
            named = _strings(data) & (held if index > shuffled else in_hands)
            if named:
                found.append(f"public event {event.type} names hidden cards {sorted(named)}")
            message = event.message
            for words in self.not_cards:
                message = message.replace(words, "")
            for name, cards in self.cards_named.items():
                if cards & hidden and not cards & shown and self.name_patterns[name].search(message):
                    found.append(f"public message names a hidden {name} while none is shown: {event.message}")
        return found

    @staticmethod
    def _forecast_events(state: GameState, events: list[Event]) -> list[str]:
        """A-15 `weather`: next turn's storm distance goes to the Fremen only; the dials to their dialers."""
        found = []
        for event in events:
            if event.type == EventType.STORM_FORECAST and event.audience != (Faction.FREMEN,):
                found.append(f"the weather forecast reached {event.audience or 'the table'}")
            if event.type == EventType.STORM_DIALED and (event.audience is None or len(event.audience) != 1):
                found.append("a storm dial reached more than its dialer")
        return found

    @staticmethod
    def _numbers(state: GameState, events: list[Event], before: GameState | None) -> list[str]:
        """No public message tells a storm dial still secret (A-1: the dials are shown together, a weather
        forecast's when the storm moves by it) or how much spice a faction holds behind its shield."""
        found = []
        secret_dials = dict(state.storm_forecast)
        if any(p.kind == PromptKind.STORM_DIAL and not p.detail.get("forecast") for p in state.prompts):
            secret_dials |= state.storm_dials
        dial_patterns = [re.compile(rf"\b{re.escape(faction_name(f))}:? {v}\b")
                         for f, v in secret_dials.items()]
        for event in (e for e in events if e.public):
            if "dial" in event.message and any(p.search(event.message) for p in dial_patterns):
                found.append(f"public message tells a storm dial before the dials are shown: {event.message}")
            faction = event.data.get("faction")
            if faction not in {f.value for f in state.factions}:
                continue
            totals = {_hidden_spice(s, Faction(faction)) for s in (state, before) if s is not None}
            if any(int(m.group(1)) in totals and "at least" not in m.group(0) for m in HOLDING.finditer(event.message)):
                found.append(f"public message tells the {faction} spice: {event.message}")
        return found

    def _views(self, state: GameState) -> list[str]:
        found = []
        hands = {f: set(fs.hand) for f, fs in state.factions.items()}
        traps = {t.card for t in state.traps.values()}
        bt = state.bt
        for viewer in [None, *state.factions]:
            seen = view(state, viewer)
            dumped = seen.model_dump(mode="json")
            own = dumped["own"]
            if viewer is None and (own is not None or dumped["own_prompts"]):
                found.append("the table's view has a faction's own part")
            if viewer is not None:
                fs = state.faction(viewer)
                if own["traitors"] != fs.traitors or own["spice"] != fs.spice:
                    found.append(f"{viewer.value}'s own part is not its own")
                if own["prediction"] and viewer != Faction.BENE_GESSERIT:
                    found.append(f"{viewer.value} sees the prediction")
                if viewer != Faction.BENE_TLEILAXU and (own["trap_cards"] or own.get("bt_marked")):
                    found.append(f"{viewer.value} sees BT trap cards or marks")
                if viewer != Faction.FREMEN and own.get("storm_forecast") is not None:
                    found.append(f"{viewer.value} sees the weather forecast meant for the Fremen")
                if any(o["faction"] != viewer.value for o in own.get("special_karama_orders", [])):
                    found.append(f"{viewer.value} sees another faction's special Karama order")
                own["traitors"] = []  # one's own traitor cards name other factions' leaders
            others = set().union(*(h for f, h in hands.items() if f != viewer))
            if viewer != Faction.BENE_TLEILAXU:
                others |= traps
            shown = _strings(dumped) & others
            if shown:
                found.append(f"{viewer} sees hidden cards {sorted(shown)}")
            if any("spice" in entry for entry in dumped["factions"]):
                found.append("the factions' public part shows spice")
            if bt is not None and viewer != Faction.BENE_TLEILAXU and dumped.get("bt_open_spice", 0) != bt.open_spice:
                found.append("the BT open pile is not shown as it is")
        return found

    def _unrevealed_plans(self, state: GameState) -> list[str]:
        """Until the reveal, a submitted plan (its leader, cards, dial) is in no other view, save what prescience
        told the Atreides."""
        battle = state.battle.current if state.battle else None
        if battle is None or battle.step != "plans":
            return []
        found = [f"{viewer or 'the table'} sees the plans before the reveal" for viewer in [None, *state.factions]
                 if required(view(state, viewer).battle, "the battle in view").revealed_plans]
        for owner, plan in battle.plans.items():
            parts = {plan.leader, plan.cheap_hero, plan.weapon, plan.defense} - {None}
            if battle.attack == "trap" and owner == Faction.BENE_TLEILAXU:
                continue  # the trap's card is checked as a hidden card
            for viewer in [None, *state.factions]:
                if viewer == owner:
                    continue
                dumped = view(state, viewer).model_dump(mode="json")
                if dumped["own"]:  # one's own traitors and BT marks name others' leaders, whatever they plan
                    dumped["own"]["traitors"] = dumped["own"]["bt_marked"] = []
                dumped["captured"] = {}  # who holds a captive is public, whatever he plans with him
                if dumped["battle"]:
                    dumped["battle"]["leaders"] = {}  # who may lead here is public, whatever he plans
                seen = _strings(dumped)
                if viewer == battle.prescience_asker and owner == battle.prescience_target:
                    seen.discard(battle.prescience_answer)
                if viewer == battle.defender and battle.attack:
                    seen.discard(battle.target_leader)  # the attacked leader is public
                if seen & parts:
                    found.append(f"{viewer} sees {sorted(seen & parts)} of {owner.value}'s unrevealed plan")
        return found


def _hidden_spice(state: GameState, faction: Faction) -> int:
    """The spice behind a faction's shield; the BT's declared spice lies in open view (BT-27)."""
    open_spice = state.bt.open_spice if faction == Faction.BENE_TLEILAXU and state.bt else 0
    return state.faction(faction).spice - open_spice
