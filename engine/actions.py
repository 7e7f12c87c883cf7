"""Every player decision and every admin correction, as typed actions (a union on `type`)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

from engine.ids import Faction
from engine.model import AdvisorOrder, AllyRevivalOrder, BidOrderSpan

_FROZEN = ConfigDict(frozen=True, extra="forbid")


class PlayerAction(BaseModel):
    """An action a seated faction takes."""

    model_config = _FROZEN
    faction: Faction


class AdminAction(BaseModel):
    """A correction by a moderator: logged, attributed and shown to the table with its reason."""

    model_config = _FROZEN
    admin: str = Field(min_length=1)
    reason: str = Field(min_length=1)


# --- setup -----------------------------------------------------------------------------------


class ChooseTraitor(PlayerAction):
    type: Literal["choose_traitor"] = "choose_traitor"
    leader: str


class PredictWinner(PlayerAction):
    type: Literal["predict_winner"] = "predict_winner"
    predicted: Faction
    turn: int


class LayTraps(PlayerAction):
    """BT-30: stronghold -> card id from the BT hand. Empty means no trap."""

    type: Literal["lay_traps"] = "lay_traps"
    traps: dict[str, str] = Field(default_factory=dict)


class PlaceStartingTokens(PlayerAction):
    """The Fremen split of their starting tokens, or (with character advantages) the BG token."""

    type: Literal["place_starting_tokens"] = "place_starting_tokens"
    placement: dict[str, int]


# --- storm, spice blow and Nexus --------------------------------------------------------------


class DialStorm(PlayerAction):
    """A-1: a secret storm dial, 0-20 on turn 1 and 1-3 after."""

    type: Literal["dial_storm"] = "dial_storm"
    value: int


class ProposeAlliance(PlayerAction):
    """A-8: during a Nexus, offer an alliance; it forms when the other side accepts."""

    type: Literal["propose_alliance"] = "propose_alliance"
    partner: Faction


class AcceptAlliance(PlayerAction):
    type: Literal["accept_alliance"] = "accept_alliance"
    partner: Faction


class BreakAlliance(PlayerAction):
    type: Literal["break_alliance"] = "break_alliance"


class EndNexus(PlayerAction):
    """Done talking in this Nexus; the Nexus ends when every faction is done."""

    type: Literal["end_nexus"] = "end_nexus"


class RideWorm(PlayerAction):
    """The Fremen ride Shai-Hulud from the devoured territory to another, or stay (to_location None)."""

    type: Literal["ride_worm"] = "ride_worm"
    to_location: str | None = None


class PlaceWorm(PlayerAction):
    """A-21, A-28 (`character_advantages`): the Fremen place a further Shai-Hulud of the blow in a sand territory,
    or in none (territory None: it devours nothing)."""

    type: Literal["place_worm"] = "place_worm"
    territory: str | None = None


# --- bidding ---------------------------------------------------------------------------------


class Bid(PlayerAction):
    """1979 rules: Bidding. A bid of `amount` for the card up; A-8: an ally may pay `ally_pays` of it
    (`ally` names which ally when the faction has several)."""

    type: Literal["bid"] = "bid"
    amount: int = Field(ge=1)
    ally_pays: int = Field(default=0, ge=0)
    ally: Faction | None = None


class PassBid(PlayerAction):
    type: Literal["pass_bid"] = "pass_bid"


class SetBidOrder(PlayerAction):
    """A-6: a secret standing order, applied whenever the faction is asked to bid: pass every time
    (`auto_pass`) or outbid the high bid by 1 up to `max_bid`. Neither set clears the order. `lasts`: until
    changed, or only for the card up now or this turn's auction (the orders offered on the bid's card)."""

    type: Literal["set_bid_order"] = "set_bid_order"
    auto_pass: bool = False
    max_bid: int | None = Field(default=None, ge=1)
    lasts: BidOrderSpan = "until_changed"


# --- revival, shipment and movement ----------------------------------------------------------


class Revive(PlayerAction):
    """A-7: tokens from the tanks (free ones first) and, when allowed, one leader."""

    type: Literal["revive"] = "revive"
    tokens: int = Field(default=0, ge=0)
    leader: str | None = None
    kwisatz_haderach: bool = False  # the Atreides revive their Kwisatz Haderach (as their one leader)


class Ship(PlayerAction):
    """From reserves (or, for the Guild, from another territory: `from_location`) to a location.
    A-8: an ally may pay `ally_pays` of the cost (`ally` names which ally when the faction has several)."""

    type: Literal["ship"] = "ship"
    to_location: str
    tokens: int = Field(ge=1)
    from_location: str | None = None
    ally_pays: int = Field(default=0, ge=0)
    ally: Faction | None = None


class ShipToReserves(PlayerAction):
    """The Guild ships tokens from the board back to its reserves (A-23)."""

    type: Literal["ship_to_reserves"] = "ship_to_reserves"
    from_location: str
    tokens: int = Field(ge=1)


class SkipShipment(PlayerAction):
    """Ship nothing; with `no_move`, the faction's move in this turn is "move nothing" too, answered when it
    is asked (one click for both decisions)."""

    type: Literal["skip_shipment"] = "skip_shipment"
    no_move: bool = False


class Move(PlayerAction):
    type: Literal["move"] = "move"
    from_location: str
    to_location: str
    tokens: int = Field(ge=1)


class SkipMove(PlayerAction):
    type: Literal["skip_move"] = "skip_move"


class SendAdvisor(PlayerAction):
    """The Bene Gesserit spiritual advisor: one free token to the Polar Sink after another's shipment; with
    `character_advantages` (A-15) the Bene Gesserit may instead send it with the shipment (`with_shipment`)."""

    type: Literal["send_advisor"] = "send_advisor"
    accept: bool
    with_shipment: bool = False


class GuildTiming(PlayerAction):
    """A-15 (`character_advantages`): the Guild take their shipment-and-movement turn now, before the faction
    named in the decision, or later."""

    type: Literal["guild_timing"] = "guild_timing"
    now: bool


class SetCoexistence(PlayerAction):
    """A-15 (`character_advantages`): in their own turn of the movement round the Bene Gesserit turn every token
    of theirs in a territory into co-existing advisors (`advisors` True) or back into fighters."""

    type: Literal["set_coexistence"] = "set_coexistence"
    territory: str
    advisors: bool


# --- battles ---------------------------------------------------------------------------------


class ChooseBattle(PlayerAction):
    """The aggressor picks where to fight next, and whom when three or more factions are there."""

    type: Literal["choose_battle"] = "choose_battle"
    territory: str
    opponent: Faction


class AskPrescience(PlayerAction):
    """The Atreides ask for one element of the opponent's plan, or nothing (element None)."""

    type: Literal["ask_prescience"] = "ask_prescience"
    element: Literal["leader", "weapon", "defense", "dial"] | None = None


class AnswerPrescience(PlayerAction):
    """The answer binds the plan: a leader id or cheap hero card, a card id, a number, or "none"."""

    type: Literal["answer_prescience"] = "answer_prescience"
    answer: str


class UseVoice(PlayerAction):
    """The Bene Gesserit command the opponent to play, or not to play, a kind of card (or say nothing)."""

    type: Literal["use_voice"] = "use_voice"
    command: Literal["play", "not"] | None = None
    category: str | None = None


class SubmitBattlePlan(PlayerAction):
    """A battle plan; also a BT attack plan (weapon slot, a worthless card, and with a worthless card and no
    weapon the impairment it imposes, BT-16) and an attacked leader's defense (BT-12)."""

    type: Literal["submit_battle_plan"] = "submit_battle_plan"
    leader: str | None = None
    cheap_hero: str | None = None
    dial: int = Field(default=0, ge=0)
    weapon: str | None = None
    defense: str | None = None
    impair: Literal["no_shipping", "no_moving"] | None = None
    kwisatz_haderach: bool = False  # A-15: the Atreides' Kwisatz Haderach accompanies the leader
    spice: int = Field(default=0, ge=0)  # A-15 `advanced_combat`: spice backing the dial


class CaptureLeader(PlayerAction):
    """A-15 `character_advantages`: the Harkonnen keep the leader they captured, kill him for 2 spice, or let
    him go."""

    type: Literal["capture_leader"] = "capture_leader"
    choice: Literal["keep", "kill", "release"]


class ChooseBtAttack(PlayerAction):
    """BT-11: after all battles the BT attack one leader who fought and survived, or none (leader None)."""

    type: Literal["choose_bt_attack"] = "choose_bt_attack"
    leader: str | None = None


class ChooseBtImpairment(PlayerAction):
    """BT-16, BT-33: a worthless trap card revealed, the BT choose what it bars the trapped faction next turn."""

    type: Literal["choose_bt_impairment"] = "choose_bt_impairment"
    impair: Literal["no_shipping", "no_moving"]


class CallTraitor(PlayerAction):
    """Asked of both sides after every reveal, so the asking leaks nothing (A-13)."""

    type: Literal["call_traitor"] = "call_traitor"
    call: bool


class SetTraitorOrder(PlayerAction):
    """A standing order: answer every traitor question automatically (call when one of ours leads)."""

    type: Literal["set_traitor_order"] = "set_traitor_order"
    auto: bool


class SetStormCardOrder(PlayerAction):
    """A standing order: answer every storm-card window "no card" at once (`never`), or be asked
    (engine/rules/cards.py)."""

    type: Literal["set_storm_card_order"] = "set_storm_card_order"
    never: bool


class SetOutbidOrder(PlayerAction):
    """A-6, a standing order: pass at once on every bid whose high bid the faction cannot outbid with its own spice
    (`pass_when_outbid`; an ally's share, A-8, is not counted), or be asked (engine/phases/bidding.py)."""

    type: Literal["set_outbid_order"] = "set_outbid_order"
    pass_when_outbid: bool


class SetRevivalOrder(PlayerAction):
    """A-7, a standing order: answer every revival decision that offers no leader with the free tokens at once
    (`free_tokens`), or be asked (engine/phases/revival.py)."""

    type: Literal["set_revival_order"] = "set_revival_order"
    free_tokens: bool


class SetGuildTimingOrder(PlayerAction):
    """A-15 (`character_advantages`), the Guild only, a standing order: answer every "now or later" decision by
    storm order at once (`storm_order`), or be asked (engine/phases/movement.py)."""

    type: Literal["set_guild_timing_order"] = "set_guild_timing_order"
    storm_order: bool


class SetNexusOrder(PlayerAction):
    """A-8, a standing order: end your part in every Nexus as it opens, making no offer and accepting none
    (`done_at_once`), or be asked (engine/rules/alliances.py)."""

    type: Literal["set_nexus_order"] = "set_nexus_order"
    done_at_once: bool


class SetAdvisorOrder(PlayerAction):
    """The Bene Gesserit only, a standing order: every spiritual advisor to the Polar Sink, none, or be asked
    (engine/phases/shipment.py)."""

    type: Literal["set_advisor_order"] = "set_advisor_order"
    order: AdvisorOrder


# --- any time --------------------------------------------------------------------------------


class GiveBribe(PlayerAction):
    """A-16: spice set before the receiver's shield, usable from the end of the turn."""

    type: Literal["give_bribe"] = "give_bribe"
    to: Faction
    amount: int = Field(ge=1)


class GiveAllySpice(PlayerAction):
    """A-26: the Emperor may give spice to an ally at any time, usable at once."""

    type: Literal["give_ally_spice"] = "give_ally_spice"
    to: Faction
    amount: int = Field(ge=1)


class UseKarama(PlayerAction):
    """A-14: a Karama card cancels the next use of one faction's advantage."""

    type: Literal["use_karama"] = "use_karama"
    card: str
    against: Faction
    advantage: str


class UseSpecialKarama(PlayerAction):
    """A-14 `special_karama_powers`: the faction's once-per-game power, spending a Karama card
    (engine/factions/special_karama.py). Atreides: see the opponent's whole plan in their battle. Emperor: revive
    `tokens` (up to 3) or `leader`, free. Fremen: a worm in `territory` at the next spice blow. Guild: stop
    `target`'s next shipment from off-planet. Harkonnen: take `target`'s hand and give back as many cards.
    Bene Gesserit: use a worthless card as a Karama card whenever the game lasts."""

    type: Literal["use_special_karama"] = "use_special_karama"
    card: str
    target: Faction | None = None
    territory: str | None = None
    tokens: int = Field(default=0, ge=0)
    leader: str | None = None


class ReturnCards(PlayerAction):
    """A-14 special Karama (Harkonnen): the cards given back for the hand taken."""

    type: Literal["return_cards"] = "return_cards"
    cards: list[str]


# --- Treachery cards (engine/rules/cards.py) -----------------------------------------------------------


class PlayStormCards(PlayerAction):
    """The answer to the storm-card window (every faction is asked): Weather Control with the distance the
    storm moves instead of the dials (0-10), Family Atomics, both, or neither (a pass)."""

    type: Literal["play_storm_cards"] = "play_storm_cards"
    weather_control: int | None = None
    family_atomics: bool = False


class PlayHajr(PlayerAction):
    """Hajr, played while the faction's own movement decision is open: one more move after this one."""

    type: Literal["play_hajr"] = "play_hajr"


class PlayGhola(PlayerAction):
    """Tleilaxu Ghola, at any time outside a battle: one leader, or 1 to 5 tokens, from the tanks, free."""

    type: Literal["play_ghola"] = "play_ghola"
    leader: str | None = None
    tokens: int = Field(default=0, ge=0)


class PlayTruthtrance(PlayerAction):
    """Truthtrance, at any time: `target` must answer a yes/no question (at most 300 characters) in public."""

    type: Literal["play_truthtrance"] = "play_truthtrance"
    target: Faction
    question: str


class AnswerTruthtrance(PlayerAction):
    type: Literal["answer_truthtrance"] = "answer_truthtrance"
    answer: Literal["yes", "no"]


# --- Bene Tleilaxu traitors (engine/factions/bt_traitors.py) ----------------------------------


class AnswerRevealWindow(PlayerAction):
    """R-7: after an open-field battle the BT may reveal the winning leader (if he is theirs) or let it pass."""

    type: Literal["answer_reveal_window"] = "answer_reveal_window"
    leader: str | None = None


class AnswerRevealKarama(PlayerAction):
    """BT-51: after a BT traitor reveal, play Karama to cancel it (`cancel`) or let it stand. Until every faction
    but the BT has answered, an answer may be changed."""

    type: Literal["answer_reveal_karama"] = "answer_reveal_karama"
    cancel: bool = False


class MarkBtTraitor(PlayerAction):
    """BT-20, BT-21: the BT's secret answer to a mark window: one of the leaders just revived, or no (None)."""

    type: Literal["mark_bt_traitor"] = "mark_bt_traitor"
    leader: str | None = None


class RevealBtTraitor(PlayerAction):
    """BT-23, R-8, R-25: at any time, the BT name a leader they marked as their traitor."""

    type: Literal["reveal_bt_traitor"] = "reveal_bt_traitor"
    leader: str


class BtAllyRevive(PlayerAction):
    """BT-60, R-14: an ally of the BT revives, free, up to 6 tokens and up to 2 leaders (whatever the
    all-five-dead rule of A-7 says), answering its REVIVAL decision. `Revive` works too, for one leader."""

    type: Literal["bt_ally_revive"] = "bt_ally_revive"
    tokens: int = Field(default=0, ge=0)
    leaders: list[str] = Field(default_factory=list, max_length=2)


class GrantAllyRevival(PlayerAction):
    """BT-60: the BT grant the ally named by their open decision free revival this turn (up to 6 tokens and 2
    leaders, R-14), or not (the ally then revives as usual, A-7, and pays the BT for it, BT-10). Secret until the
    ally revives."""

    type: Literal["grant_ally_revival"] = "grant_ally_revival"
    grant: bool


class SetAllyRevivalOrder(PlayerAction):
    """The BT only, a secret standing order: always grant their allies free revival, never, or be asked each turn
    (engine/phases/revival.py)."""

    type: Literal["set_ally_revival_order"] = "set_ally_revival_order"
    order: AllyRevivalOrder


# --- Bene Tleilaxu bidding and spice -----------------------------------------------------------


class TrapsAndGifts(PlayerAction):
    """R-11, BT-40: the BT's window before bidding begins: traps to lay (stronghold -> card id) and cards to
    give (card id -> receiver), all from the BT hand. Both empty: nothing this time."""

    type: Literal["traps_and_gifts"] = "traps_and_gifts"
    traps: dict[str, str] = Field(default_factory=dict)
    gifts: dict[str, Faction] = Field(default_factory=dict)


class KaramaTaxBt(PlayerAction):
    """BT-51, R-20: a Karama card taxes the BT 10 spice (all they have if less), paid at once to the bank."""

    type: Literal["karama_tax_bt"] = "karama_tax_bt"
    card: str


class KaramaDestroyTrap(PlayerAction):
    """BT-51 (with traps): a Karama card destroys one untriggered trap; its card is shown and discarded."""

    type: Literal["karama_destroy_trap"] = "karama_destroy_trap"
    card: str
    stronghold: str


class SetSpiceWinOrder(PlayerAction):
    """BT-27: the BT's secret standing order: declare a spice win at the end of every collection round in which
    they hold at least 35 spice (declare True, the default), or never (False) until changed."""

    type: Literal["set_spice_win_order"] = "set_spice_win_order"
    declare: bool


# --- admin -----------------------------------------------------------------------------------


class ForceDefault(AdminAction):
    """Apply an open prompt's declared default on behalf of the faction that owes it."""

    type: Literal["force_default"] = "force_default"
    prompt_id: str


class SetSpice(AdminAction):
    type: Literal["set_spice"] = "set_spice"
    faction: Faction
    amount: int = Field(ge=0)


class PlaceTokens(AdminAction):
    """Move tokens between the board, the reserves and the tanks (`source` and `destination` are each a
    location key, "reserves" or "tanks")."""

    type: Literal["place_tokens"] = "place_tokens"
    faction: Faction
    tokens: int = Field(ge=1)
    source: str
    destination: str


class MoveCard(AdminAction):
    """Give a Treachery card to a faction, or take one away (to the discard), wherever it is."""

    type: Literal["move_card"] = "move_card"
    card: str
    to: Faction | None = None  # None: to the discard pile


class SetLeader(AdminAction):
    """Kill a leader (to the tanks) or revive him."""

    type: Literal["set_leader"] = "set_leader"
    leader: str
    alive: bool


class SetStorm(AdminAction):
    type: Literal["set_storm"] = "set_storm"
    sector: int = Field(ge=1, le=18)


Action = Annotated[
    ChooseTraitor
    | PredictWinner
    | LayTraps
    | PlaceStartingTokens
    | DialStorm
    | ProposeAlliance
    | AcceptAlliance
    | BreakAlliance
    | EndNexus
    | RideWorm
    | PlaceWorm
    | Bid
    | PassBid
    | SetBidOrder
    | Revive
    | Ship
    | ShipToReserves
    | SkipShipment
    | Move
    | SkipMove
    | SendAdvisor
    | GuildTiming
    | SetCoexistence
    | ChooseBattle
    | AskPrescience
    | AnswerPrescience
    | UseVoice
    | SubmitBattlePlan
    | ChooseBtAttack
    | ChooseBtImpairment
    | CaptureLeader
    | CallTraitor
    | SetTraitorOrder
    | GiveBribe
    | GiveAllySpice
    | UseKarama
    | UseSpecialKarama
    | ReturnCards
    | PlayStormCards
    | SetStormCardOrder
    | SetOutbidOrder
    | SetRevivalOrder
    | SetGuildTimingOrder
    | SetAdvisorOrder
    | SetNexusOrder
    | PlayHajr
    | PlayGhola
    | PlayTruthtrance
    | AnswerTruthtrance
    | MarkBtTraitor
    | RevealBtTraitor
    | AnswerRevealWindow
    | AnswerRevealKarama
    | BtAllyRevive
    | GrantAllyRevival
    | SetAllyRevivalOrder
    | TrapsAndGifts
    | KaramaTaxBt
    | KaramaDestroyTrap
    | SetSpiceWinOrder
    | ForceDefault
    | SetSpice
    | PlaceTokens
    | MoveCard
    | SetLeader
    | SetStorm,
    Field(discriminator="type"),
]

ACTION_ADAPTER: TypeAdapter[Action] = TypeAdapter(Action)


def parse_action(raw: dict[str, Any] | str) -> Action:
    """Validate a JSON object (or text) as one action."""
    if isinstance(raw, str):
        return ACTION_ADAPTER.validate_json(raw)
    return ACTION_ADAPTER.validate_python(raw)
