"""The game state: everything that changes during a game, and nothing that does not (that is the setup)."""

from __future__ import annotations

from enum import StrEnum
from typing import Any, Literal, TypeVar

from pydantic import BaseModel, Field

from engine.ids import Faction
from engine.options import GameSetup
from engine.rng import Rng


class MissingPart(RuntimeError):
    """A part of the state the rules guarantee at this point (the auction in bidding, the battle being fought) is
    absent: a bug in the engine, never a player's mistake (those are RuleViolations, engine/errors.py)."""


class Phase(StrEnum):
    SETUP = "setup"
    STORM = "storm"
    SPICE_BLOW = "spice_blow"
    BIDDING = "bidding"
    MOVEMENT = "movement"
    BATTLE = "battle"
    COLLECTION = "collection"
    ENDED = "ended"


class PromptKind(StrEnum):
    TRAITOR_PICK = "traitor_pick"
    BG_PREDICTION = "bg_prediction"
    BT_TRAPS = "bt_traps"
    STARTING_PLACEMENT = "starting_placement"
    STORM_DIAL = "storm_dial"
    NEXUS = "nexus"
    WORM_RIDE = "worm_ride"
    BID = "bid"
    REVIVAL = "revival"
    SHIPMENT = "shipment"
    MOVEMENT = "movement"
    SPIRITUAL_ADVISOR = "spiritual_advisor"
    BATTLE_CHOICE = "battle_choice"
    PRESCIENCE = "prescience"
    PRESCIENCE_ANSWER = "prescience_answer"
    VOICE = "voice"
    BATTLE_PLAN = "battle_plan"
    TRAITOR_CALL = "traitor_call"
    STORM_CARDS = "storm_cards"  # engine/rules/cards.py: Weather Control / Family Atomics window (secret, everyone)
    TRUTHTRANCE = "truthtrance"  # engine/rules/cards.py: the public yes/no answer owed to a Truthtrance
    BT_ATTACK = "bt_attack"
    BT_MARK = "bt_mark"  # engine/factions/bt_traitors.py: mark a revived leader (BT-20), secret, non-blocking
    BT_TRAPS_AND_GIFTS = "bt_traps_and_gifts"  # engine/factions/bt_bidding.py: R-11 traps, BT-40 gifts (secret)
    BT_REVEAL_WINDOW = "bt_reveal_window"  # after an open-field battle, before the next one starts
    BT_REVEAL_KARAMA = "bt_reveal_karama"  # BT-51: cancel a BT traitor reveal with Karama (secret, everyone)
    WORM_PLACEMENT = "worm_placement"  # the Fremen place a further Shai-Hulud (public)
    GUILD_TIMING = "guild_timing"  # the Guild ship and move now or later in the round (public)
    HAND_SWAP = "hand_swap"  # A-14 special Karama: the Harkonnen give back as many cards as they took (secret)
    # engine/factions/captives.py: the Harkonnen keep or kill a captured leader (public)
    LEADER_CAPTURE = "leader_capture"
    BT_IMPAIRMENT = "bt_impairment"  # engine/phases/bt_attack.py: a worthless trap's impairment (BT-16, public)
    BT_ALLY_REVIVAL = "bt_ally_revival"  # engine/phases/revival.py: the BT grant an ally free revival (BT-60, secret)


class Prompt(BaseModel):
    """An open decision: who decides, whether it is secret, and the legal choices."""

    id: str
    kind: PromptKind
    faction: Faction
    secret: bool
    # The choices a menu can offer; the kind's handler checks the full rule on submission.
    options: list[str] = Field(default_factory=list)
    # Kind-specific limits (e.g. how many tokens to place), shown to the decider only; typed by the kind's model
    # (engine/flow.py `details_of`), stored as the plain dict its handler wrote.
    detail: dict[str, Any] = Field(default_factory=dict)
    opened_at: int  # the state's seq when the prompt opened
    # False: the game goes on while it is open (engine/flow.py advance); e.g. the BT's mark window (BT-21).
    blocking: bool = True


class Prediction(BaseModel):
    """The Bene Gesserit prediction: a faction and the turn it wins on (secret)."""

    faction: Faction
    turn: int


class Trap(BaseModel):
    """BT-30: a Treachery card laid face down on a stronghold."""

    card: str
    triggered_by: Faction | None = None
    triggered_turn: int | None = None  # the turn its triggering tokens are frozen: turn 1 if placed at setup
    frozen: int = 0  # BT-31: how many of the triggering faction's tokens there are frozen in that turn


BidOrderSpan = Literal["until_changed", "this_card", "this_turn"]
# The Bene Gesserit's standing order for the spiritual advisor: every one to the Polar Sink, none, or be asked.
AdvisorOrder = Literal["polar_sink", "never", "ask"]
# The Bene Tleilaxu's standing order for their allies' free revival (BT-60): always grant it, never, or be asked.
AllyRevivalOrder = Literal["grant", "refuse", "ask"]


class BidOrder(BaseModel):
    """A standing order for play by post (A-6): pass every card, or bid up to a limit; until changed, or only
    for the card up now or this turn's auction (an order given from the bid's own card)."""

    auto_pass: bool = False
    max_bid: int | None = None
    lasts: BidOrderSpan = "until_changed"


class BiddingState(BaseModel):
    """The auction of the bidding round (A-5, A-6); owned by engine/phases/bidding.py.

    Secret: `cards` (face down; only the buyer and, per card, the Atreides learn them).
    """

    cards: list[str] = Field(default_factory=list)  # unsold auction cards; cards[0] is up (or next up)
    dealt: int = 0  # how many cards were dealt into the auction
    order: list[Faction] = Field(default_factory=list)  # storm order at the start of bidding
    card_number: int = 0  # 1-based number of the card up now (0 before the first)
    card_open: bool = False  # the card cards[0] is being bid on
    opener: Faction | None = None  # who opened the bidding on the current (or last) card
    bidders: list[Faction] = Field(default_factory=list)  # eligible on the current card (hand not full)
    # Passed on this card (A-6 `pass_is_final`); without that option, passed since the last bid.
    passed: list[Faction] = Field(default_factory=list)
    high_bid: int = 0
    high_bidder: Faction | None = None
    high_ally: Faction | None = None  # the ally paying part of the high bid
    high_ally_pays: int = 0
    to_bid: Faction | None = None  # whose turn it is to bid or pass


class MovementState(BaseModel):
    """The shipment and movement round (A-7); owned by engine/phases/movement.py."""

    order: list[Faction] = Field(default_factory=list)  # storm order of the factions with tokens
    index: int = 0  # whose turn it is in `order`
    stage: str = ""  # "" (turn not begun), "ship" (shipment asked), "move" (movement asked)
    cancelled: list[str] = Field(default_factory=list)  # advantages Karama cancelled in this turn
    extra_moves: int = 0  # Hajr (engine/rules/cards.py): more moves owed to the faction whose turn it is
    # A-15 `character_advantages`: the Guild take their turn whenever they like; True once they have had it.
    guild_done: bool = False
    guild_turn: bool = False  # the turn in progress is the Guild's, taken out of storm order
    guild_in_order: bool = False  # a Karama cancelled it this round: the Guild keep their storm-order place
    no_move: bool = False  # the faction whose turn it is shipped nothing "and no move this turn" (one click)
    turns_taken: list[Faction] = Field(default_factory=list)  # whose turns have begun this round, in order


class SpiceBlowState(BaseModel):
    """The spice blow in progress (engine/phases/spice_blow.py): which discard pile is blowing (A-15
    `double_spice_blow`: pile 0 = A, 1 = B), whether a worm appeared in this blow and in the phase."""

    pile: int = 0
    worm_in_blow: bool = False
    worm_in_phase: bool = False
    set_aside: list[str] = Field(default_factory=list)  # turn-1 worms, shuffled back after the phase


class SpecialKaramaOrder(BaseModel):
    """A-14 `special_karama_powers`: a once-per-game power readied as a secret standing order (engine/
    special_karama.py): the Fremen worm at the next spice blow, the Guild stopping a faction's next shipment."""

    faction: Faction
    card: str
    power: str
    territory: str | None = None
    target: Faction | None = None


class NexusState(BaseModel):
    """Alliance talks during a Nexus (A-8); owned by engine/phases/spice_blow.py."""

    proposals: dict[Faction, Faction] = Field(default_factory=dict)


class BattlePlan(BaseModel):
    """A secret battle plan (1979 rules: Battles): a leader or a cheap hero, a dial, a weapon, a defense."""

    leader: str | None = None
    cheap_hero: str | None = None
    dial: int = 0
    weapon: str | None = None
    defense: str | None = None
    kwisatz_haderach: bool = False  # A-13, A-15: the Atreides' Kwisatz Haderach accompanies the leader (+2)
    spice: int = 0  # A-15 `advanced_combat`: spice backing the dial, paid to the bank after the battle


class Battle(BaseModel):
    """The battle being fought: its place, its sides and the steps done so far."""

    territory: str
    locations: list[str]
    aggressor: Faction
    defender: Faction
    step: str = ""
    prescience_asker: Faction | None = None  # the Atreides, for themselves or an ally
    prescience_target: Faction | None = None
    prescience_element: str | None = None
    prescience_answer: str | None = None  # binding on the target's plan; secret to asker and target
    voice_by: Faction | None = None
    voice_target: Faction | None = None
    voice: str | None = None  # "play:<category>" or "not:<category>"
    plans: dict[Faction, BattlePlan] = Field(default_factory=dict)
    traitor_calls: dict[Faction, bool] = Field(default_factory=dict)
    attack: str | None = None  # a BT "leader" attack (BT-11) or a "trap" attack (BT-32), not a battle
    target_leader: str | None = None  # the leader a BT attack strikes
    trap_card: str | None = None  # the trap's card, secret until the attack resolves (BT-30)
    impair: str | None = None  # BT-16: "no_shipping" or "no_moving", chosen with a worthless attack card
    sardaukar_cancelled: bool = False  # a Karama made the Sardaukar count single in this battle


class BattleState(BaseModel):
    """The battle round: the battle in progress and where each leader fought (one territory a turn)."""

    current: Battle | None = None
    # leader -> the territory where he led tokens in a battle this turn; a BT attack or trap is no battle (BT-11)
    leader_territory: dict[str, str] = Field(default_factory=dict)
    traps_to_spring: list[str] = Field(default_factory=list)  # BT-32: triggered traps that attack first
    kwisatz_haderach_territory: str | None = None  # the one territory the Kwisatz Haderach fought in this turn


class KaramaOrder(BaseModel):
    """A-14: a Karama card held ready to cancel the next use of an advantage (secret until it fires)."""

    faction: Faction
    card: str
    advantage: str


class StormCardPlay(BaseModel):
    """A faction's answer in the storm-card window (engine/rules/cards.py), secret until every faction answered:
    Weather Control with its distance, Family Atomics, or both."""

    weather_control: int | None = None
    family_atomics: bool = False


class FactionState(BaseModel):
    faction: Faction
    dot: int | None  # the sector of the faction's player dot; the BT have none (BT-1)
    spice: int
    reserves: int
    tanks: int = 0
    hand: list[str] = Field(default_factory=list)
    traitors: list[str] = Field(default_factory=list)
    leaders_in_tanks: list[str] = Field(default_factory=list)
    bribes: int = 0  # spice received as a bribe, usable from the end of the turn
    bid_order: BidOrder = Field(default_factory=BidOrder)
    auto_traitor: bool = False  # a standing order: call a traitor whenever one of ours leads against us
    # a standing order: answer every storm-card window "no card" (engine/rules/cards.py)
    never_storm_cards: bool = False
    # Standing orders for busywork decisions, each answered at once where it opens:
    pass_when_outbid: bool = False  # a bid whose high bid is beyond the faction's own spice is passed
    revive_free_tokens: bool = False  # a revival offering no leader is answered "the free tokens"
    guild_timing_in_storm_order: bool = False  # A-15, the Guild only: "now or later" answered by storm order
    advisor_order: AdvisorOrder = "ask"  # the Bene Gesserit only: the spiritual advisor's answer, or be asked
    nexus_done_at_once: bool = False  # end one's part in each Nexus as it opens (no offer, none accepted)
    elite_tanks: int = 0  # Sardaukar or Fedaykin among the tokens in the tanks (engine/factions/elites.py)
    elite_revived_turn: int | None = None  # the turn an elite token was last revived (one a turn)
    revived_turn: int | None = None  # the turn of the faction's last revival decision (one a turn)


class BattleVictory(BaseModel):
    """BT-23, BT-25, R-6, R-7: the last battle won in a territory, while a BT reveal of its leader can still
    betray the winning tokens. Closed (deleted) when the waiting ends."""

    territory: str
    faction: Faction
    leader: str
    stronghold: bool
    with_kwisatz_haderach: bool = False  # the Kwisatz Haderach fought beside him: no BT betrayal here


class Impairment(BaseModel):
    """BT-16, R-17: a faction may not ship, or may not move, during one turn."""

    faction: Faction
    kind: str  # "no_shipping" or "no_moving"
    turn: int


class RevealKaramaWindow(BaseModel):
    """BT-51: a BT traitor reveal that betrays tokens waits while every faction but the BT is asked in secret
    whether it cancels it with Karama (engine/factions/bt_reveal_karama.py). Secret: `answers`."""

    leader: str
    faction: Faction  # whose tokens are betrayed (a captive leader's captors, A-15)
    betrayals: list[BattleVictory]
    answers: dict[Faction, bool] = Field(default_factory=dict)  # True: cancel with Karama
    set_aside: list[Prompt] = Field(default_factory=list)  # the decisions open at the reveal, back at the close


class BtState(BaseModel):
    """The Bene Tleilaxu's powers in play (bene-tleilaxu.md); present only when the BT are in the game."""

    marked: list[str] = Field(default_factory=list)  # BT-20: leaders marked as BT traitors (secret)
    last_mark_turn: int | None = None  # BT-20: one mark per turn
    controlled: list[str] = Field(default_factory=list)  # BT-24: territories the BT control without tokens
    open_spice: int = 0  # BT-27: spice set in open view by a declaration
    declared_turn: int | None = None  # BT-27: the collection round of the declaration
    declare_order: bool = True  # BT-27: secret standing order: declare whenever holding 35 at a turn's end
    ally_revival_order: AllyRevivalOrder = "ask"  # BT-60: secret standing order for the allies' free revival
    # BT-60: this turn's answers, ally -> granted (secret until the ally revives); reset as each revival begins
    revival_grants: dict[Faction, bool] = Field(default_factory=dict)
    impairments: list[Impairment] = Field(default_factory=list)  # BT-16
    attack_done: bool = False  # BT-11: one leader attack per battle round
    karama_window: RevealKaramaWindow | None = None  # BT-51: a reveal waiting on the Karama window


class KwisatzHaderach(BaseModel):
    """A-15 `character_advantages`: the Atreides' Kwisatz Haderach (public: battle losses are seen by all)."""

    battle_losses: int = 0  # Atreides tokens lost in battles so far
    active: bool = False  # from the battle in which those losses reach 7
    dead: bool = False  # killed in a lasgun-shield explosion, until revived


class GameState(BaseModel):
    setup: GameSetup
    seq: int = 0  # actions applied so far; also the version a stale click is checked against
    turn: int = 0
    phase: Phase = Phase.SETUP
    step: str = ""
    storm_sector: int
    # location key -> faction -> tokens there; a location is "Territory#sector" or "Polar Sink".
    forces: dict[str, dict[Faction, int]] = Field(default_factory=dict)
    spice_on_board: dict[str, int] = Field(default_factory=dict)
    factions: dict[Faction, FactionState]
    treachery_deck: list[str]
    treachery_discard: list[str] = Field(default_factory=list)
    removed_cards: list[str] = Field(default_factory=list)  # out of the game for good (Family Atomics)
    spice_deck: list[str]
    spice_discard: list[str] = Field(default_factory=list)
    traitor_deck_unused: list[str] = Field(default_factory=list)
    bg_prediction: Prediction | None = None
    traps: dict[str, Trap] = Field(default_factory=dict)
    alliances: list[list[Faction]] = Field(default_factory=list)
    karama_orders: list[KaramaOrder] = Field(default_factory=list)
    shield_wall_destroyed: bool = False
    storm_dials: dict[Faction, int] = Field(default_factory=dict)  # secret until both are in
    storm_card_plays: dict[Faction, StormCardPlay] = Field(default_factory=dict)  # secret until the window closes
    spice_outside_bank: int = 0  # see engine/rules/economy.py
    bidding: BiddingState | None = None
    movement: MovementState | None = None
    nexus: NexusState | None = None
    battle: BattleState | None = None
    victories: list[BattleVictory] = Field(default_factory=list)  # see BattleVictory
    bt: BtState | None = None
    # A-15 `character_advantages` (engine/factions/elites.py, engine/factions/captives.py): elite tokens among the
    # tokens at each
    # location (location -> faction -> count), the Kwisatz Haderach, and captured leader -> captor.
    elites: dict[str, dict[Faction, int]] = Field(default_factory=dict)
    kwisatz_haderach: KwisatzHaderach = Field(default_factory=KwisatzHaderach)
    captured: dict[str, Faction] = Field(default_factory=dict)
    # A-15 `character_advantages` (engine/factions/coexistence.py): Bene Gesserit advisors, co-existing and so "not on
    # the board" (no battle, control, collection): location -> count. Public.
    bg_advisors: dict[str, int] = Field(default_factory=dict)
    spice_discard_b: list[str] = Field(default_factory=list)  # A-15 `double_spice_blow`: discard pile B
    spice_blow: SpiceBlowState | None = None
    # A-15 `weather`: the dials for the next turn's storm, made a turn early (secret; the Fremen know the sum).
    storm_forecast: dict[Faction, int] = Field(default_factory=dict)
    special_karama_used: list[Faction] = Field(default_factory=list)  # once per game each (public)
    special_karama_orders: list[SpecialKaramaOrder] = Field(default_factory=list)  # secret until they fire
    prompts: list[Prompt] = Field(default_factory=list)
    next_prompt_number: int = 1
    winners: list[Faction] = Field(default_factory=list)
    rng: Rng

    # --- queries used everywhere -------------------------------------------------------------

    def faction(self, faction: Faction) -> FactionState:
        return self.factions[faction]

    # The optional parts, where the rules guarantee them: each raises MissingPart rather than let a None through.

    def current_bidding(self) -> BiddingState:
        """The auction of the bidding round in progress."""
        return required(self.bidding, "the bidding round")

    def current_movement(self) -> MovementState:
        """The shipment and movement round in progress."""
        return required(self.movement, "the movement round")

    def battle_round(self) -> BattleState:
        """The battle round in progress."""
        return required(self.battle, "the battle round")

    def current_battle(self) -> Battle:
        """The battle (or BT attack) being fought."""
        return required(self.battle_round().current, "a battle being fought")

    def bt_state(self) -> BtState:
        """The BT's powers in play (the BT are in the game)."""
        return required(self.bt, "the Bene Tleilaxu's state")

    def current_spice_blow(self) -> SpiceBlowState:
        """The spice blow in progress."""
        return required(self.spice_blow, "a spice blow")

    def in_game(self, faction: Faction) -> bool:
        return faction in self.factions

    def ally_of(self, faction: Faction) -> list[Faction]:
        """The faction's allies (A-8)."""
        for alliance in self.alliances:
            if faction in alliance:
                return [f for f in alliance if f != faction]
        return []

    def prompts_for(self, faction: Faction) -> list[Prompt]:
        return [p for p in self.prompts if p.faction == faction]

    def prompt(self, prompt_id: str) -> Prompt | None:
        return next((p for p in self.prompts if p.id == prompt_id), None)

    def prompt_of(self, faction: Faction, kind: PromptKind) -> Prompt | None:
        """The faction's open decision of this kind (the first, were there several), or None."""
        return next((p for p in self.prompts if p.faction == faction and p.kind == kind), None)

    def tokens_at(self, location: str, faction: Faction) -> int:
        return self.forces.get(location, {}).get(faction, 0)

    def add_tokens(self, location: str, faction: Faction, count: int) -> None:
        here = self.forces.setdefault(location, {})
        total = here.get(faction, 0) + count
        if total < 0:
            raise ValueError(f"{faction.value} would have {total} tokens in {location}")
        if total:
            here[faction] = total
        else:
            here.pop(faction, None)
            if not here:
                del self.forces[location]


_Part = TypeVar("_Part")


def required(part: _Part | None, what: str) -> _Part:
    """The part, which the rules guarantee here (a sold card's buyer, the battle's prescience target), else
    MissingPart: the typed and never-stripped form of `assert part is not None`."""
    if part is None:
        raise MissingPart(f"{what}: absent where the rules guarantee it (an engine bug)")
    return part
