"""What a faction may do now outside its open decisions (issue 13): play a card whose time is its own, give spice,
reveal a BT traitor, co-exist, or change a standing order. One list, read by the automatic players
(engine/checks/autoplay.py) and by every front (the Discord panel, the slash commands' autocomplete), so that a menu
offers
only what the rules accept now.

`anytime_choices(state, faction)` lists one `AnytimeChoice` per kind of action the faction may take now, each with
its parts: a `Pick` among legal values, an `Amount` in a legal range, or a free `Text` (the Truthtrance question).
Every combination of legal parts is accepted by `engine.game.apply` (tests/test_anytime.py checks this over random
games, and that nothing accepted is missing). `anytime_action` turns a kind and the values chosen into the action.

It reads the state as the faction may know it: its own hand, spice, marks and orders, and public facts (hand sizes,
traps, who fights, which decisions are open). Another faction's secrets never change the list (tested too).

Parts whose values depend on each other travel as one Pick of compound values ("leader:<id>" or "tokens:<n>" for
the Tleilaxu Ghola; "advisors:<territory>" or "fighters:<territory>" for co-existence), so that every Pick is
independent of the others.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated, Literal

from pydantic import BaseModel, Field

from engine.actions import (
    Action,
    GiveAllySpice,
    GiveBribe,
    KaramaDestroyTrap,
    KaramaTaxBt,
    PlayGhola,
    PlayHajr,
    PlayTruthtrance,
    RevealBtTraitor,
    SetAdvisorOrder,
    SetAllyRevivalOrder,
    SetBidOrder,
    SetCoexistence,
    SetGuildTimingOrder,
    SetNexusOrder,
    SetOutbidOrder,
    SetRevivalOrder,
    SetSpiceWinOrder,
    SetStormCardOrder,
    SetTraitorOrder,
    UseKarama,
    UseSpecialKarama,
)
from engine.data import load_game_data
from engine.factions.bt_impairments import NO_MOVING
from engine.factions.bt_reveal_karama import karama_window
from engine.factions.bt_traitors import open_betrayals, revealable
from engine.factions.coexistence import declarable_territories, may_declare
from engine.factions.elites import revivable_tokens
from engine.factions.special_karama import power_available
from engine.factions.special_karama_powers import EMPEROR_TOKENS
from engine.ids import Faction
from engine.model import GameState, Phase, PromptKind
from engine.phases.movement import guild_timing_asked, turn_faction
from engine.phases.revival import GRANT, REFUSE, revives_anything  # the BT's ally revival order (BT-60)
from engine.phases.shipment import RULE_ADVISOR
from engine.phases.spice_blow import sand_territories
from engine.rules.cards import GHOLA, GHOLA_TOKENS, HAJR, QUESTION_LIMIT
from engine.rules.economy import spare_spice
from engine.rules.karama import OWNER, Advantage, advantage_in_play, karama_cards

A, BG, E, F, G, H, BT = (Faction.ATREIDES, Faction.BENE_GESSERIT, Faction.EMPEROR, Faction.FREMEN, Faction.GUILD,
                         Faction.HARKONNEN, Faction.BENE_TLEILAXU)
BID_LIMIT_OFFERED = 200  # the highest limit a standing bid order is offered with (the rules set none, A-6)
YES, NO = "yes", "no"
AUTO_PASS, ASK = "auto_pass", "ask"  # the bid order's settings besides a limit
NEVER = "never"  # the storm-card order's and the advisor order's setting besides ASK
FREE_TOKENS = "free_tokens"  # the revival order's setting besides ASK
STORM_ORDER = "storm_order"  # the Guild timing order's setting besides ASK
TO_POLAR_SINK = "polar_sink"  # the advisor order's setting besides NEVER and ASK
DONE_AT_ONCE = "done_at_once"  # the Nexus order's setting besides ASK
PASS_WHEN_OUTBID = "pass"  # the outbid order's setting besides ASK
LEADER, TOKENS = "leader", "tokens"  # the two halves of a revival's compound value
ADVISORS, FIGHTERS = "advisors", "fighters"  # the two ways of co-existence


class AnytimeKind(StrEnum):
    KARAMA = "karama"  # ready a Karama against the next use of another faction's advantage
    SPECIAL_KARAMA = "special_karama"  # A-14 `special_karama_powers`: the faction's once-per-game power
    KARAMA_TAX_BT = "karama_tax_bt"  # BT-51: tax the BT 10 spice
    KARAMA_DESTROY_TRAP = "karama_destroy_trap"  # BT-51 with `bt_traps`: destroy an untriggered trap
    HAJR = "hajr"  # 1979 rules: one more move, in the faction's own movement turn
    GHOLA = "ghola"  # 1979 rules: a leader or up to 5 tokens from the tanks, free
    TRUTHTRANCE = "truthtrance"  # 1979 rules: another faction answers a yes/no question
    BT_REVEAL = "bt_reveal"  # BT-23: the BT name a marked leader as their traitor
    COEXISTENCE = "coexistence"  # A-15 `character_advantages`: Bene Gesserit fighters become advisors, or back
    BRIBE = "bribe"
    ALLY_SPICE = "ally_spice"  # the Emperor's spice for an ally
    BID_ORDER = "bid_order"  # a standing order: pass on every card, or be asked for each bid
    BID_LIMIT = "bid_limit"  # a standing order: outbid by 1 up to a limit
    OUTBID_ORDER = "outbid_order"  # pass at once on a bid beyond the faction's own spice, or be asked
    TRAITOR_ORDER = "traitor_order"  # call a traitor automatically whenever one of ours leads against us
    STORM_CARD_ORDER = "storm_card_order"  # answer every storm-card window "no card" at once, or be asked
    REVIVAL_ORDER = "revival_order"  # revive the free tokens at once when no leader is offered, or be asked
    ALLY_REVIVAL_ORDER = "ally_revival_order"  # BT-60: the BT grant their allies free revival, never, or are asked
    GUILD_TIMING_ORDER = "guild_timing_order"  # the Guild go in their storm-order place, or are asked
    ADVISOR_ORDER = "advisor_order"  # the BG: every spiritual advisor to the Polar Sink, none, or be asked
    NEXUS_ORDER = "nexus_order"  # end one's part in each Nexus as it opens, or be asked
    SPICE_WIN_ORDER = "spice_win_order"  # BT-27: declare a spice win whenever allowed, or never


# In the order of the turn's rounds: storm, the Nexus after the spice blow, bidding, revival, shipment and
# movement, battle, collection.
STANDING_ORDERS = (AnytimeKind.STORM_CARD_ORDER, AnytimeKind.NEXUS_ORDER, AnytimeKind.BID_ORDER,
                   AnytimeKind.BID_LIMIT, AnytimeKind.OUTBID_ORDER, AnytimeKind.REVIVAL_ORDER,
                   AnytimeKind.ALLY_REVIVAL_ORDER, AnytimeKind.GUILD_TIMING_ORDER, AnytimeKind.ADVISOR_ORDER,
                   AnytimeKind.TRAITOR_ORDER, AnytimeKind.SPICE_WIN_ORDER)

RULES: dict[AnytimeKind, str] = {
    AnytimeKind.KARAMA: "A-14",
    AnytimeKind.SPECIAL_KARAMA: "A-14",
    AnytimeKind.KARAMA_TAX_BT: "BT-51",
    AnytimeKind.KARAMA_DESTROY_TRAP: "BT-51",
    AnytimeKind.HAJR: "Treachery: Hajr",
    AnytimeKind.GHOLA: "Treachery: Tleilaxu Ghola",
    AnytimeKind.TRUTHTRANCE: "Treachery: Truthtrance",
    AnytimeKind.BT_REVEAL: "BT-23",
    AnytimeKind.COEXISTENCE: "A-15",
    AnytimeKind.BRIBE: "A-16",
    AnytimeKind.ALLY_SPICE: "A-26",
    AnytimeKind.BID_ORDER: "A-6",
    AnytimeKind.BID_LIMIT: "A-6",
    AnytimeKind.OUTBID_ORDER: "A-6",
    AnytimeKind.TRAITOR_ORDER: "A-13",
    AnytimeKind.STORM_CARD_ORDER: "Treachery: Weather Control",
    AnytimeKind.REVIVAL_ORDER: "A-7",
    AnytimeKind.ALLY_REVIVAL_ORDER: "BT-60",
    AnytimeKind.GUILD_TIMING_ORDER: "A-15",
    AnytimeKind.ADVISOR_ORDER: RULE_ADVISOR,
    AnytimeKind.NEXUS_ORDER: "A-8",
    AnytimeKind.SPICE_WIN_ORDER: "BT-27",
}


class Pick(BaseModel):
    """Choose one of `options` (ids: cards, factions, leaders, territories, or the kind's own words)."""

    type: Literal["pick"] = "pick"
    name: str
    options: list[str]


class Amount(BaseModel):
    """A whole number from `low` to `high`."""

    type: Literal["amount"] = "amount"
    name: str
    low: int
    high: int


class Text(BaseModel):
    """Free text of 1 to `max_length` characters."""

    type: Literal["text"] = "text"
    name: str
    max_length: int


Part = Annotated[Pick | Amount | Text, Field(discriminator="type")]
Value = str | int


class AnytimeChoice(BaseModel):
    kind: AnytimeKind
    rule: str
    parts: list[Part] = Field(default_factory=list)

    def part(self, name: str) -> Part | None:
        return next((p for p in self.parts if p.name == name), None)


def anytime_choices(state: GameState, faction: Faction) -> list[AnytimeChoice]:
    """What `faction` may do now besides answering its open decisions, in the order a menu shows them."""
    if state.phase == Phase.ENDED or not state.in_game(faction) or karama_window(state) is not None:
        return []  # BT-51: while the Karama window after a reveal is open, the game waits on its answers alone
    found = [
        _karama(state, faction), _special_karama(state, faction), _karama_tax(state, faction),
        _destroy_trap(state, faction), _hajr(state, faction), _ghola(state, faction), _truthtrance(state, faction),
        _bt_reveal(state, faction), _coexistence(state, faction), _bribe(state, faction), _ally_spice(state, faction),
        *_standing_orders(state, faction),
    ]
    return [choice for choice in found if choice is not None]


def anytime_choice(state: GameState, faction: Faction, kind: AnytimeKind) -> AnytimeChoice | None:
    return next((c for c in anytime_choices(state, faction) if c.kind == kind), None)


def _choice(kind: AnytimeKind, *parts: Part) -> AnytimeChoice:
    return AnytimeChoice(kind=kind, rule=RULES[kind], parts=list(parts))


def _unreadied_karamas(state: GameState, faction: Faction) -> list[str]:
    """The faction's Karama cards not yet held ready for a standing order (A-14)."""
    readied = {o.card for o in state.karama_orders} | {o.card for o in state.special_karama_orders}
    return [c for c in karama_cards(state, faction) if c not in readied]


def _in_battle(state: GameState) -> bool:
    return state.battle is not None and state.battle.current is not None


def _others(state: GameState, faction: Faction) -> list[Faction]:
    return [f for f in state.factions if f != faction]


# --- Karama ----------------------------------------------------------------------------------------


def _karama(state: GameState, faction: Faction) -> AnytimeChoice | None:
    """A-14: any advantage in play of another faction in the game, with a card not readied already."""
    cards = _unreadied_karamas(state, faction)
    advantages = [a.value for a, owner in OWNER.items()
                  if owner != faction and state.in_game(owner) and advantage_in_play(state, a)]
    if not cards or not advantages:
        return None
    return _choice(AnytimeKind.KARAMA, Pick(name="card", options=cards), Pick(name="advantage", options=advantages))


def _karama_tax(state: GameState, faction: Faction) -> AnytimeChoice | None:
    """BT-51: any faction but the BT, with the BT in the game (a readied card may be spent: its order lapses)."""
    cards = karama_cards(state, faction)
    if faction == BT or not state.in_game(BT) or not cards:
        return None
    return _choice(AnytimeKind.KARAMA_TAX_BT, Pick(name="card", options=cards))


def _destroy_trap(state: GameState, faction: Faction) -> AnytimeChoice | None:
    """BT-51 with traps: an untriggered trap (where the traps lie is public)."""
    cards = karama_cards(state, faction)
    untriggered = [s for s, t in state.traps.items() if t.triggered_by is None]
    if faction == BT or not state.in_game(BT) or not state.setup.options.bt_traps or not cards or not untriggered:
        return None
    return _choice(AnytimeKind.KARAMA_DESTROY_TRAP, Pick(name="card", options=cards),
                   Pick(name="stronghold", options=untriggered))


def _special_karama(state: GameState, faction: Faction) -> AnytimeChoice | None:
    """A-14 `special_karama_powers` (engine/factions/special_karama_powers.py): each power's own moment and targets."""
    cards = _unreadied_karamas(state, faction)
    if not cards or not power_available(state, faction):
        return None
    card = Pick(name="card", options=cards)
    if faction == A:
        return _choice(AnytimeKind.SPECIAL_KARAMA, card) if _atreides_may_see_plan(state) else None
    if faction == E:
        revivals = _revivals(state, E, EMPEROR_TOKENS)
        if _in_battle(state) or not revivals:
            return None
        return _choice(AnytimeKind.SPECIAL_KARAMA, card, Pick(name="revive", options=revivals))
    if faction == F:
        return _choice(AnytimeKind.SPECIAL_KARAMA, card, Pick(name="territory", options=sand_territories()))
    targets = [f for f in _others(state, faction) if f != BT]
    if faction == G:
        targets = [f for f in targets if f != F]  # the Fremen never ship from off-planet
    if faction == H:
        if _in_battle(state):
            return None
        targets = [f for f in targets if state.faction(f).hand]  # hand sizes are public
    if not targets:
        return None
    return _choice(AnytimeKind.SPECIAL_KARAMA, card, Pick(name="target", options=[f.value for f in targets]))


def _atreides_may_see_plan(state: GameState) -> bool:
    """In a battle of their own (not a BT attack), once the opponent's plan is in and before theirs (A-14)."""
    battle = state.current_battle() if _in_battle(state) else None
    if battle is None or battle.attack or A not in (battle.aggressor, battle.defender):
        return False
    opponent = battle.defender if battle.aggressor == A else battle.aggressor
    return battle.step == "plans" and A not in battle.plans and opponent in battle.plans


def _revivals(state: GameState, faction: Faction, most_tokens: int) -> list[str]:
    """A free revival from the tanks: one leader, or 1 to `most_tokens` tokens (one elite a turn, A-15)."""
    leaders = [f"{LEADER}:{leader}" for leader in state.faction(faction).leaders_in_tanks]
    tokens = min(most_tokens, revivable_tokens(state, faction))
    return leaders + [f"{TOKENS}:{n}" for n in range(1, tokens + 1)]


# --- the other Treachery cards played at any time --------------------------------------------------------


def _hajr(state: GameState, faction: Faction) -> AnytimeChoice | None:
    """While the faction's own movement decision is open, unless a BT impairment bars it from moving (R-17)."""
    deciding = state.prompt_of(faction, PromptKind.MOVEMENT) is not None
    impaired = state.bt is not None and any(i.faction == faction and i.kind == NO_MOVING and i.turn == state.turn
                                            for i in state.bt.impairments)
    if (HAJR not in state.faction(faction).hand or not deciding or impaired or state.phase != Phase.MOVEMENT
            or turn_faction(state) != faction):
        return None
    return _choice(AnytimeKind.HAJR)


def _ghola(state: GameState, faction: Faction) -> AnytimeChoice | None:
    """At any time outside a battle being fought, while something of the faction's is in the tanks."""
    revivals = _revivals(state, faction, GHOLA_TOKENS)
    if GHOLA not in state.faction(faction).hand or _in_battle(state) or not revivals:
        return None
    return _choice(AnytimeKind.GHOLA, Pick(name="revive", options=revivals))


def _truthtrance(state: GameState, faction: Faction) -> AnytimeChoice | None:
    """Another faction, unless it still owes the answer to an earlier question (an open, public decision)."""
    data = load_game_data()
    if not any(data.card(c).name == "Truthtrance" for c in state.faction(faction).hand):
        return None
    targets = [f.value for f in _others(state, faction)
               if state.prompt_of(f, PromptKind.TRUTHTRANCE) is None]
    if not targets:
        return None
    return _choice(AnytimeKind.TRUTHTRANCE, Pick(name="target", options=targets),
                   Text(name="question", max_length=QUESTION_LIMIT))


# --- the Bene Tleilaxu and the Bene Gesserit ---------------------------------------------------------------


def _bt_reveal(state: GameState, faction: Faction) -> AnytimeChoice | None:
    """BT-23: a mark the BT may reveal now whose reveal takes effect: he won a territory still open to betrayal
    (issue 25 item 10). A reveal to no effect is legal (R-8) but spends the secret for nothing: it is not offered."""
    if faction != BT:
        return None
    leaders = [leader for leader in revealable(state) if open_betrayals(state, leader)]
    return _choice(AnytimeKind.BT_REVEAL, Pick(name="leader", options=leaders)) if leaders else None


def _coexistence(state: GameState, faction: Faction) -> AnytimeChoice | None:
    """A-15: in the Bene Gesserit's own turn of the movement round."""
    if faction != BG or not may_declare(state):
        return None
    changes = [f"{ADVISORS}:{t}" for t in declarable_territories(state, True)]
    changes += [f"{FIGHTERS}:{t}" for t in declarable_territories(state, False)]
    return _choice(AnytimeKind.COEXISTENCE, Pick(name="change", options=changes)) if changes else None


# --- spice -----------------------------------------------------------------------------------------------


def _bribe(state: GameState, faction: Faction) -> AnytimeChoice | None:
    spice = spare_spice(state, faction)
    others = [f.value for f in _others(state, faction)]
    if spice <= 0 or not others:
        return None
    return _choice(AnytimeKind.BRIBE, Pick(name="to", options=others), Amount(name="amount", low=1, high=spice))


def _ally_spice(state: GameState, faction: Faction) -> AnytimeChoice | None:
    spice = spare_spice(state, faction)
    allies = [f.value for f in state.ally_of(faction)]
    if faction != E or spice <= 0 or not allies:
        return None
    return _choice(AnytimeKind.ALLY_SPICE, Pick(name="to", options=allies), Amount(name="amount", low=1, high=spice))


# --- standing orders ---------------------------------------------------------------------------------------


def _standing_orders(state: GameState, faction: Faction) -> list[AnytimeChoice]:
    """Each may be set again at any time, to any setting; an order is offered only to the factions whose decisions
    it can answer in this game (in the order of STANDING_ORDERS)."""
    orders = [_choice(AnytimeKind.STORM_CARD_ORDER, Pick(name="storm", options=[NEVER, ASK])),
              _choice(AnytimeKind.NEXUS_ORDER, Pick(name="nexus", options=[DONE_AT_ONCE, ASK])),
              _choice(AnytimeKind.BID_ORDER, Pick(name="order", options=[AUTO_PASS, ASK])),
              _choice(AnytimeKind.BID_LIMIT, Amount(name="max_bid", low=1, high=BID_LIMIT_OFFERED)),
              _choice(AnytimeKind.OUTBID_ORDER, Pick(name="outbid", options=[PASS_WHEN_OUTBID, ASK]))]
    if revives_anything(faction):  # BT-1: not the BT
        orders.append(_choice(AnytimeKind.REVIVAL_ORDER, Pick(name="revival", options=[FREE_TOKENS, ASK])))
    if faction == BT and state.bt is not None:  # BT-60
        orders.append(_choice(AnytimeKind.ALLY_REVIVAL_ORDER, Pick(name="ally_revival", options=[GRANT, REFUSE, ASK])))
    if faction == G and guild_timing_asked(state):
        orders.append(_choice(AnytimeKind.GUILD_TIMING_ORDER, Pick(name="timing", options=[STORM_ORDER, ASK])))
    if faction == BG:
        orders.append(_choice(AnytimeKind.ADVISOR_ORDER, Pick(name="advisor", options=[TO_POLAR_SINK, NEVER, ASK])))
    if faction != BT:  # BT-1: no traitor cards
        orders.append(_choice(AnytimeKind.TRAITOR_ORDER, Pick(name="auto", options=[YES, NO])))
    if faction == BT and state.bt is not None:
        orders.append(_choice(AnytimeKind.SPICE_WIN_ORDER, Pick(name="declare", options=[YES, NO])))
    return orders


# --- the action a choice makes -------------------------------------------------------------------------------


def _revival(value: str) -> dict[str, str | int | None]:
    what, _, detail = value.partition(":")
    return {"leader": detail, "tokens": 0} if what == LEADER else {"leader": None, "tokens": int(detail)}


def anytime_action(faction: Faction, kind: AnytimeKind, values: dict[str, Value]) -> Action:
    """The action of `kind` with the parts' values (by part name). The rules check it again when it is applied."""
    v = values
    match kind:
        case AnytimeKind.KARAMA:
            advantage = Advantage(str(v["advantage"]))
            return UseKarama(faction=faction, card=v["card"], against=OWNER[advantage], advantage=advantage.value)
        case AnytimeKind.SPECIAL_KARAMA:
            revival = _revival(str(v["revive"])) if "revive" in v else {}
            return UseSpecialKarama(faction=faction, card=v["card"], territory=v.get("territory"),
                                    target=Faction(str(v["target"])) if "target" in v else None, **revival)
        case AnytimeKind.KARAMA_TAX_BT:
            return KaramaTaxBt(faction=faction, card=v["card"])
        case AnytimeKind.KARAMA_DESTROY_TRAP:
            return KaramaDestroyTrap(faction=faction, card=v["card"], stronghold=v["stronghold"])
        case AnytimeKind.HAJR:
            return PlayHajr(faction=faction)
        case AnytimeKind.GHOLA:
            return PlayGhola(faction=faction, **_revival(str(v["revive"])))
        case AnytimeKind.TRUTHTRANCE:
            return PlayTruthtrance(faction=faction, target=Faction(str(v["target"])), question=str(v["question"]))
        case AnytimeKind.BT_REVEAL:
            return RevealBtTraitor(faction=faction, leader=v["leader"])
        case AnytimeKind.COEXISTENCE:
            way, _, territory = str(v["change"]).partition(":")
            return SetCoexistence(faction=faction, territory=territory, advisors=way == ADVISORS)
        case AnytimeKind.BRIBE:
            return GiveBribe(faction=faction, to=Faction(str(v["to"])), amount=v["amount"])
        case AnytimeKind.ALLY_SPICE:
            return GiveAllySpice(faction=faction, to=Faction(str(v["to"])), amount=v["amount"])
        case AnytimeKind.BID_ORDER:
            return SetBidOrder(faction=faction, auto_pass=v["order"] == AUTO_PASS)
        case AnytimeKind.BID_LIMIT:
            return SetBidOrder(faction=faction, max_bid=v["max_bid"])
        case AnytimeKind.TRAITOR_ORDER:
            return SetTraitorOrder(faction=faction, auto=v["auto"] == YES)
        case AnytimeKind.STORM_CARD_ORDER:
            return SetStormCardOrder(faction=faction, never=v["storm"] == NEVER)
        case AnytimeKind.OUTBID_ORDER:
            return SetOutbidOrder(faction=faction, pass_when_outbid=v["outbid"] == PASS_WHEN_OUTBID)
        case AnytimeKind.REVIVAL_ORDER:
            return SetRevivalOrder(faction=faction, free_tokens=v["revival"] == FREE_TOKENS)
        case AnytimeKind.ALLY_REVIVAL_ORDER:
            return SetAllyRevivalOrder(faction=faction, order=v["ally_revival"])
        case AnytimeKind.GUILD_TIMING_ORDER:
            return SetGuildTimingOrder(faction=faction, storm_order=v["timing"] == STORM_ORDER)
        case AnytimeKind.NEXUS_ORDER:
            return SetNexusOrder(faction=faction, done_at_once=v["nexus"] == DONE_AT_ONCE)
        case AnytimeKind.ADVISOR_ORDER:
            return SetAdvisorOrder(faction=faction, order=v["advisor"])
        case AnytimeKind.SPICE_WIN_ORDER:
            return SetSpiceWinOrder(faction=faction, declare=v["declare"] == YES)
    raise ValueError(f"no any-time action of kind {kind!r}")
