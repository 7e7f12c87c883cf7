"""Secret-keeping checks over a game in progress: no view and no public event shows what its reader may not
know (hands, traitors, the prediction, spice behind shields, BT marks, trap cards, unrevealed plans).

Used after every action by the leak tests and by `python -m engine autoplay --leaks`.
"""

from __future__ import annotations

from engine.data import load_game_data
from engine.events import Event
from engine.ids import Faction
from engine.model import GameState
from engine.views import view


def _strings(value) -> set[str]:
    if isinstance(value, str):
        return {value}
    if isinstance(value, dict):
        return set().union(*(_strings(k) | _strings(v) for k, v in value.items())) if value else set()
    if isinstance(value, list | tuple):
        return set().union(*(_strings(v) for v in value)) if value else set()
    return set()


class LeakChecker:
    """Remembers what the table has rightly seen (cards revealed in battle plans) across one game."""

    def __init__(self) -> None:
        self.revealed: set[str] = set()
        data = load_game_data()
        # Names printed on one card only: seeing one in a public message while it is hidden is a leak.
        self.unique_names = {c.name: c.id for c in data.treachery_cards
                             if sum(d.name == c.name for d in data.treachery_cards) == 1}
        self.territories = list(data.board.territories)

    def check(self, state: GameState, events: list[Event], views: bool = True) -> list[str]:
        found = self._public_events(state, events)
        if views:
            found += self._views(state) + self._unrevealed_plans(state)
        return found

    def _hidden_cards(self, state: GameState) -> set[str]:
        self.revealed -= set(state.treachery_deck)  # back in the deck: secret again once drawn
        held = {c for fs in state.factions.values() for c in fs.hand} - self.revealed
        return held | {t.card for t in state.traps.values()}

    def _public_events(self, state: GameState, events: list[Event]) -> list[str]:
        found = self._forecast_events(state, events)
        hidden = self._hidden_cards(state)
        for event in events:
            if not event.public:
                continue
            if event.type == "plans_revealed":
                self.revealed |= _strings(event.data["plans"])
                continue
            data = {k: v for k, v in event.data.items() if k != "category"}  # "lasgun" is a kind and a card id
            named = _strings(data) & hidden
            if named:
                found.append(f"public event {event.type} names hidden cards {sorted(named)}")
            message = event.message
            for territory in self.territories:  # "Gara Kulon" is a place, not the Kulon card
                message = message.replace(territory, "")
            found += [f"public message names the hidden {name}: {event.message}"
                      for name, card in self.unique_names.items() if card in hidden and name in message]
        return found

    @staticmethod
    def _forecast_events(state: GameState, events: list[Event]) -> list[str]:
        """A-15 `weather`: next turn's storm distance goes to the Fremen only; the dials to their dialers."""
        found = []
        for event in events:
            if event.type == "storm_forecast" and event.audience != (Faction.FREMEN,):
                found.append(f"the weather forecast reached {event.audience or 'the table'}")
            if event.type == "storm_dialed" and (event.audience is None or len(event.audience) != 1):
                found.append("a storm dial reached more than its dialer")
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
        """Until the reveal, a submitted plan is in no other view, save what prescience told the Atreides."""
        battle = state.battle.current if state.battle else None
        if battle is None or battle.step != "plans":
            return []
        found = []
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
