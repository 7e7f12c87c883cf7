"""Why an action finds no open decision to answer: the rule that forbids it now, rather than "no open decision"
under the rule of whichever decision happens to be closed (engine/flow.py `take_prompt` asks these reasons, in
the order registered here, before it falls back to that).

First the decisions a faction never takes: the Bene Tleilaxu have no tokens, no leaders on the board and no
traitor cards (BT-1), never dial (BT-3) and are not asked about a Karama against their reveal (BT-51); an
advantage's decision belongs to its faction. Then why not now: the
phase or step, whose turn it is, one revival a turn (A-7), a final pass (A-6), one shipment and one move a turn,
who dials (A-1), whether a battle or a Nexus is on. Where no reason applies (a decision answered already, a double
click), the generic refusal stands.
"""

from __future__ import annotations

from engine.errors import RuleViolation, ViolationCode
from engine.factions.bt_reveal_karama import karama_window
from engine.flow import explains_refusal
from engine.ids import Faction
from engine.model import GameState, Phase, PromptKind
from engine.names import faction_does, faction_name
from engine.phases.battle_plans import RULE as RULE_BATTLE
from engine.phases.bidding import RULE as RULE_BIDDING
from engine.phases.movement import GUILD, MOVE, REVIVAL_STEP, RULE_MOVE, SHIP, TURNS_STEP, turn_faction
from engine.phases.shipment import RULE_ADVISOR, RULE_SHIP
from engine.phases.storm import storm_dialers
from engine.rules.alliances import not_talking
from engine.rules.cards import RULE_STORM_CARDS, STORM_CARDS_STEP
from engine.rules.hands import hand_full, hand_limit

BT = Faction.BENE_TLEILAXU
NOT_ALLOWED, WRONG_PHASE = ViolationCode.NOT_ALLOWED, ViolationCode.WRONG_PHASE

# BT-1: no tokens, no leaders on the board, no traitor cards; BT-3: no storm dial.
BT_NEVER: dict[PromptKind, tuple[str, str]] = {
    PromptKind.SHIPMENT: ("BT-1", "The Bene Tleilaxu have no tokens: they ship nothing."),
    PromptKind.MOVEMENT: ("BT-1", "The Bene Tleilaxu have no tokens: they move nothing."),
    PromptKind.REVIVAL: ("BT-1", "The Bene Tleilaxu have no tokens and no leaders: they revive nothing."),
    PromptKind.BATTLE_CHOICE: ("BT-1", "The Bene Tleilaxu have no tokens: they fight no battles (their leader "
                                       "attack comes after the battles, BT-11)."),
    PromptKind.TRAITOR_CALL: ("BT-1", "The Bene Tleilaxu have no tokens and no traitor cards: they fight no "
                                      "battles and call no traitor."),
    PromptKind.TRAITOR_PICK: ("BT-1", "The Bene Tleilaxu get no traitor cards at setup (their traitors are "
                                      "revived leaders they mark, BT-20)."),
    PromptKind.STARTING_PLACEMENT: ("BT-1", "The Bene Tleilaxu have no tokens to place."),
    PromptKind.WORM_RIDE: ("BT-1", "The Bene Tleilaxu have no tokens to ride Shai-Hulud."),
    PromptKind.STORM_DIAL: ("BT-3", "The Bene Tleilaxu take no part in the storm: they never dial it."),
    PromptKind.BT_REVEAL_KARAMA: ("BT-51", "Karama cancels a Bene Tleilaxu reveal: they are not asked."),
}

# The decisions of one faction's advantage: (the faction, the rule, what only it does).
DECIDERS: dict[PromptKind, tuple[Faction, str, str]] = {
    PromptKind.SPIRITUAL_ADVISOR: (Faction.BENE_GESSERIT, RULE_ADVISOR,
                                   "send a free spiritual advisor after another faction's shipment"),
    PromptKind.BG_PREDICTION: (Faction.BENE_GESSERIT, "Setup: Bene Gesserit prediction", "predict a winner"),
    PromptKind.VOICE: (Faction.BENE_GESSERIT, RULE_BATTLE, "use the Voice"),
    PromptKind.PRESCIENCE: (Faction.ATREIDES, RULE_BATTLE, "ask the prescience question"),
    PromptKind.WORM_PLACEMENT: (Faction.FREMEN, "A-21", "place a further Shai-Hulud"),
    PromptKind.WORM_RIDE: (Faction.FREMEN, "A-28", "ride Shai-Hulud"),
    PromptKind.GUILD_TIMING: (GUILD, "A-15", "choose when to take its shipment-and-movement turn"),
    PromptKind.LEADER_CAPTURE: (Faction.HARKONNEN, "A-15", "capture leaders"),
    PromptKind.HAND_SWAP: (Faction.HARKONNEN, "A-14", "give back cards after taking a hand"),
    PromptKind.BT_TRAPS: (BT, "BT-30", "lay traps"),
    PromptKind.BT_TRAPS_AND_GIFTS: (BT, "BT-30", "lay traps and give cards"),
    PromptKind.BT_MARK: (BT, "BT-20", "mark revived leaders as traitors"),
    PromptKind.BT_REVEAL_WINDOW: (BT, "BT-23", "reveal BT traitors"),
    PromptKind.BT_ATTACK: (BT, "BT-11", "attack a leader after the battles"),
    PromptKind.BT_ALLY_REVIVAL: (BT, "BT-60", "grant their allies free revival"),
}

SETUP_RULES: dict[PromptKind, str] = {
    PromptKind.TRAITOR_PICK: "Setup: traitors",
    PromptKind.BG_PREDICTION: "Setup: Bene Gesserit prediction",
    PromptKind.BT_TRAPS: "BT-5",
    PromptKind.STARTING_PLACEMENT: "Setup: starting tokens",
}


# --- who never decides ------------------------------------------------------------------------------------------


@explains_refusal(*BT_NEVER)
def _the_bt_never(state: GameState, faction: Faction, kind: PromptKind) -> RuleViolation | None:
    if faction != BT:
        return None
    rule, message = BT_NEVER[kind]
    return RuleViolation(NOT_ALLOWED, rule, message)


@explains_refusal(*DECIDERS)
def _another_factions_decision(state: GameState, faction: Faction, kind: PromptKind) -> RuleViolation | None:
    owner, rule, what = DECIDERS[kind]
    if faction == owner:
        return None
    verb, rest = what.split(" ", 1)
    return RuleViolation(NOT_ALLOWED, rule, f"Only {faction_does(owner, verb)} {rest}.")


@explains_refusal(PromptKind.TRAITOR_PICK)
def _the_harkonnen_keep_their_traitors(state: GameState, faction: Faction, kind: PromptKind) -> RuleViolation | None:
    if faction != Faction.HARKONNEN:
        return None
    return RuleViolation(NOT_ALLOWED, SETUP_RULES[kind], "The Harkonnen keep all four traitor cards dealt at setup; "
                         "they choose none.")


# --- when ---------------------------------------------------------------------------------------------------------


@explains_refusal(*SETUP_RULES)
def _after_setup(state: GameState, faction: Faction, kind: PromptKind) -> RuleViolation | None:
    if state.phase == Phase.SETUP:
        return None
    return RuleViolation(WRONG_PHASE, SETUP_RULES[kind], "That decision is made at setup, which is over.")


@explains_refusal(PromptKind.STORM_DIAL)
def _not_dialing(state: GameState, faction: Faction, kind: PromptKind) -> RuleViolation | None:
    """A-1: two dialers, the first and the last faction with a dot in storm order."""
    if not any(p.kind == PromptKind.STORM_DIAL for p in state.prompts):
        return RuleViolation(WRONG_PHASE, "A-1", "Nobody dials now: the storm is dialed in the storm round.")
    dialers = storm_dialers(state)
    if faction in dialers:
        return RuleViolation(NOT_ALLOWED, "A-1", "You have already dialed the storm.")
    return RuleViolation(NOT_ALLOWED, "A-1", f"The {' and '.join(faction_name(f) for f in dialers)} dial the storm: "
                         "the first and the last faction with a dot in storm order.")


@explains_refusal(PromptKind.STORM_CARDS)
def _no_storm_window(state: GameState, faction: Faction, kind: PromptKind) -> RuleViolation | None:
    if state.phase == Phase.STORM and state.step == STORM_CARDS_STEP:
        return None
    return RuleViolation(WRONG_PHASE, RULE_STORM_CARDS, "Weather Control and Family Atomics are played in the storm "
                         "round, once the dials are in and every faction is asked.")


@explains_refusal(PromptKind.BT_REVEAL_KARAMA)
def _no_reveal_waiting(state: GameState, faction: Faction, kind: PromptKind) -> RuleViolation | None:
    if karama_window(state) is not None:
        return None
    return RuleViolation(WRONG_PHASE, "BT-51", "No Bene Tleilaxu traitor reveal is waiting on a Karama now.")


@explains_refusal(PromptKind.NEXUS)
def _no_nexus(state: GameState, faction: Faction, kind: PromptKind) -> RuleViolation | None:
    return not_talking(state, faction)


@explains_refusal(PromptKind.BID)
def _not_bidding(state: GameState, faction: Faction, kind: PromptKind) -> RuleViolation | None:
    b = state.bidding
    if state.phase != Phase.BIDDING or b is None or not b.card_open:
        return RuleViolation(WRONG_PHASE, RULE_BIDDING, "No card is up for auction: bids are made in the bidding "
                             "round, on the card up.")
    if faction not in b.bidders and hand_full(state, faction):
        return RuleViolation(NOT_ALLOWED, RULE_BIDDING, f"Your hand is full ({hand_limit(faction)} cards); you "
                             "cannot bid.")
    if faction in b.passed and state.setup.options.pass_is_final:
        return RuleViolation(NOT_ALLOWED, "A-6", "You passed on this card, and a pass is final: you may not bid on "
                             "this card again.")
    if b.to_bid is not None and b.to_bid != faction:
        return RuleViolation(WRONG_PHASE, RULE_BIDDING, f"It is the turn of the {faction_name(b.to_bid)} to bid: "
                             "bids go round in storm order.")
    return None


@explains_refusal(PromptKind.REVIVAL)
def _not_reviving(state: GameState, faction: Faction, kind: PromptKind) -> RuleViolation | None:
    """A-7: one revival a turn, at the start of the movement round, before anyone ships."""
    if state.faction(faction).revived_turn == state.turn:
        return RuleViolation(NOT_ALLOWED, "A-7", "You have already revived this turn: one revival a turn.")
    if state.phase != Phase.MOVEMENT or state.step != REVIVAL_STEP:
        return RuleViolation(WRONG_PHASE, "A-7", "Revival comes at the start of the movement round, before anyone "
                             "ships.")
    deciding = state.prompt_of(BT, PromptKind.BT_ALLY_REVIVAL)
    if deciding is not None and deciding.detail["ally"] == faction.value:  # the decision's existence is public
        return RuleViolation(WRONG_PHASE, "BT-60", "The Bene Tleilaxu are deciding whether to grant you free revival "
                             "this turn; your revival decision opens once they have.")
    return RuleViolation(NOT_ALLOWED, "A-7", "You have nothing in the tanks that you may revive.")


@explains_refusal(PromptKind.SHIPMENT, PromptKind.MOVEMENT)
def _not_your_turn_to_ship_or_move(state: GameState, faction: Faction, kind: PromptKind) -> RuleViolation | None:
    """1979 rules: in storm order, each faction ships once and then moves once (A-4; A-15: the Guild whenever
    they like)."""
    rule, verb = (RULE_SHIP, "ship") if kind == PromptKind.SHIPMENT else (RULE_MOVE, "move")
    m = state.movement
    if state.phase != Phase.MOVEMENT or m is None or state.step != TURNS_STEP:
        return RuleViolation(WRONG_PHASE, rule, f"Factions {verb} in the movement round, in storm order, once every "
                             "faction has revived.")
    current = turn_faction(state)
    if current == faction:
        if kind == PromptKind.MOVEMENT and m.stage in ("", SHIP):
            return RuleViolation(WRONG_PHASE, rule, "Ship (or skip your shipment) first; then you move.")
        if kind == PromptKind.SHIPMENT and m.stage == MOVE:
            return RuleViolation(NOT_ALLOWED, rule, "One shipment a turn: you have had yours; now you move.")
        return None
    if state.prompt_of(faction, PromptKind.GUILD_TIMING) is not None:
        return RuleViolation(WRONG_PHASE, "A-15", "Say first whether you take your turn now (your guild timing "
                             "decision); then you ship and move.")
    if _turn_over(state, faction):
        return RuleViolation(NOT_ALLOWED, rule, "Your turn of the movement round is over: one shipment and one move "
                             "a turn.")
    whose = f"It is the turn of the {faction_name(current)}" if current else "It is nobody's turn"
    return RuleViolation(WRONG_PHASE, rule, f"{whose}; you {verb} in your own turn, in storm order.")


def _turn_over(state: GameState, faction: Faction) -> bool:
    m = state.current_movement()
    if faction not in m.order:
        return False
    if faction == GUILD and state.setup.options.character_advantages and not m.guild_in_order:
        return m.guild_done  # their turn is not tied to their place in storm order
    return m.order.index(faction) < m.index


@explains_refusal(PromptKind.BATTLE_CHOICE, PromptKind.BATTLE_PLAN, PromptKind.TRAITOR_CALL)
def _no_battle(state: GameState, faction: Faction, kind: PromptKind) -> RuleViolation | None:
    if state.phase != Phase.BATTLE:
        return RuleViolation(WRONG_PHASE, RULE_BATTLE, "Battles are fought in the battle round.")
    battle = state.battle.current if state.battle is not None else None
    if kind == PromptKind.BATTLE_CHOICE:
        return None
    if battle is None:
        return RuleViolation(WRONG_PHASE, RULE_BATTLE, "No battle is being fought now.")
    if kind == PromptKind.BATTLE_PLAN and faction not in (battle.aggressor, battle.defender):
        return RuleViolation(NOT_ALLOWED, RULE_BATTLE, f"The battle in {battle.territory} is between the "
                             f"{faction_name(battle.aggressor)} and the {faction_name(battle.defender)}; you are not "
                             "fighting it.")
    return None
