"""The Bene Tleilaxu's attacks in the battle round: traps strike first (BT-32..BT-34, R-13, R-22, BT-50) and,
after every battle, the BT may attack one leader who fought and survived (BT-11..BT-17, R-4, R-5, R-15..R-18,
R-28, R-29, R-34). Both run through the battle machinery of engine/phases/battle.py (prescience, Voice,
secret plans, reveal) between the BT and the attacked leader's faction, with no dial, no traitors and no
winner: only the leader's life is at stake.

A worthless card impairs when the optional impairers are on (BT-16, R-17): in the leader attack the BT name the
impairment with their secret plan; a trap has no plan, so once its worthless card is revealed the BT choose in a
public BT_IMPAIRMENT decision (BT-33; the article: "The BT can choose which power the card has when it is
revealed"). With the impairers off a worthless card still fills the weapon slot and does nothing (BT-12).
"""

from __future__ import annotations

from typing import Any

from engine.actions import ChooseBtAttack, ChooseBtImpairment
from engine.data import load_game_data
from engine.errors import RuleViolation, ViolationCode
from engine.events import EventLog, EventType
from engine.factions.bt_impairments import NO_MOVING, NO_SHIPPING
from engine.factions.bt_traitors import close_open_field_betrayals
from engine.factions.captives import holder, kill_leader, leaders_held
from engine.flow import Details, default_for, details_for, handles, open_prompt, sampler_for, take_prompt
from engine.ids import CardCategory, Faction
from engine.model import Battle, BattlePlan, GameState, Impairment, Prompt, PromptKind, required
from engine.names import advisors_among, card_name, faction_does, faction_name, leader_name
from engine.rng import Rng
from engine.rules.combat import category, weapon_kills
from engine.rules.economy import bank_pays, remove_spice
from engine.rules.forces import destroy_every_token

BT = Faction.BENE_TLEILAXU
ATTACK_WEAPONS = (CardCategory.PROJECTILE, CardCategory.POISON, CardCategory.LASGUN)
DEFENSE_CARDS = (CardCategory.SHIELD, CardCategory.SNOOPER, CardCategory.WORTHLESS)
IMPAIRMENTS = (NO_SHIPPING, NO_MOVING)
DECLINE = "decline"
TRAP_LEADER_DRAW = "trap_leader"  # BT-32: the leader a trap strikes (a scenario may fix it: engine/rng.py draw)


class BtAttackTarget(Details):
    """A leader the BT may attack: where, and whose (a part of BtAttackDetails)."""

    territory: str
    faction: Faction


@details_for(PromptKind.BT_ATTACK)
class BtAttackDetails(Details):
    targets: dict[str, BtAttackTarget]  # leader -> where, whose


@details_for(PromptKind.BT_IMPAIRMENT)
class BtImpairmentDetails(Details):
    target: Faction
    territory: str


def is_karama(card: str) -> bool:
    return load_game_data().card(card).name == "Karama"


def _as_lasgun(card: str | None) -> bool:
    """BT-50: a Karama in a BT attack acts as a lasgun."""
    return card is not None and (category(card) == CardCategory.LASGUN or is_karama(card))


def _new_attack(territory: str, victim: Faction, leader: str, kind: str, trap_card: str | None = None) -> Battle:
    locations = list(load_game_data().board.territory(territory).locations)
    return Battle(territory=territory, locations=locations, aggressor=BT, defender=victim, attack=kind,
                  target_leader=leader, trap_card=trap_card)


# --- traps -----------------------------------------------------------------------------------


def triggered_traps(state: GameState) -> list[str]:
    """BT-32: the sprung traps, which attack at the start of the battle round, before any battle."""
    return sorted(s for s, trap in state.traps.items() if trap.triggered_by is not None)


def start_next_trap_attack(state: GameState, log: EventLog) -> bool:
    """Start the next trap's attack on a random leader of the faction that sprang it; False when none is left."""
    while state.battle_round().traps_to_spring:
        stronghold = state.battle_round().traps_to_spring.pop(0)
        trap = state.traps.pop(stronghold)
        victim = required(trap.triggered_by, "the faction that sprang the trap")  # triggered_traps: sprung ones
        alive = leaders_held(state, victim)  # his captives too, not those held captive
        if not alive:
            state.treachery_discard.append(trap.card)
            # the discard pile lies face up: the table sees what the trap was, as after an attack (BT-33)
            log.public(EventType.TRAP_DISCARDED, f"The trap on {stronghold} finds no {faction_name(victim)} leader to "
                       f"strike and is discarded: it was {card_name(trap.card)} (R-13).", territory=stronghold,
                       card=trap.card)
            continue
        leader = state.rng.draw(TRAP_LEADER_DRAW, alive)  # BT-32: drawn at random
        battle = _new_attack(stronghold, victim, leader, "trap", trap.card)
        battle.plans[BT] = BattlePlan(weapon=trap.card)  # the trap's card is its whole plan
        battle.step = "voice"  # BT-34: no prescience question and no Voice against a trap
        state.battle_round().current = battle
        log.public(EventType.TRAP_ATTACK,
                   f"The trap on {stronghold} strikes {leader_name(leader)}, drawn at random from "
                   f"the {faction_name(victim)} leaders (BT-32).", territory=stronghold, leader=leader,
                   faction=victim.value)
        if victim == Faction.ATREIDES:  # BT-34, R-22: the Atreides look at a trap that strikes them
            log.private(EventType.TRAP_SEEN, Faction.ATREIDES, f"Prescience: the trap on {stronghold} is "
                        f"{card_name(trap.card)}.", card=trap.card, territory=stronghold)
        return True
    return False


# --- the leader attack -----------------------------------------------------------------------


def attack_targets(state: GameState) -> dict[str, str]:
    """BT-11: leaders who led tokens in a battle this round and survived -> the territory of that battle.
    A cheap hero is no leader (BT-15); the Kwisatz Haderach is never a target (R-5)."""
    dead = {leader for fs in state.factions.values() for leader in fs.leaders_in_tanks}
    led = state.battle_round().leader_territory
    return {leader: territory for leader, territory in led.items() if leader not in dead}


def attack_cards(state: GameState) -> list[str]:
    """What may fill the BT's weapon slot (R-34): a weapon, a worthless card, a Karama. BT-12 ("a weapon card
    and/or a worthless card") allows a worthless card alone whether or not BT-16's impairers are on; with them
    off it simply does nothing."""
    return [c for c in state.faction(BT).hand if category(c) in ATTACK_WEAPONS or is_karama(c)
            or category(c) == CardCategory.WORTHLESS]


def offer_leader_attack(state: GameState, log: EventLog) -> bool:
    """After the last battle, ask the BT whether to attack (BT-11); False when there is nothing to decide. The
    BT are asked whenever a leader may be attacked, whether or not they hold a card for the weapon slot (BT-12):
    asking only a BT who hold one would tell the table so. Without one, declining is their only choice."""
    if not state.in_game(BT) or state.bt is None:
        return False
    if not attack_targets(state):
        return False
    targets = attack_targets(state) if attack_cards(state) else {}
    # public facts for the decision card: whose each target is and where he fought
    open_prompt(state, PromptKind.BT_ATTACK, BT, secret=True, options=[*sorted(targets), DECLINE],
                targets={leader: {"territory": territory, "faction": holder(state, leader).value}
                         for leader, territory in sorted(targets.items())})
    return True


@handles(ChooseBtAttack)
def choose_bt_attack(state: GameState, action: ChooseBtAttack, log: EventLog) -> None:
    prompt = take_prompt(state, action.faction, PromptKind.BT_ATTACK, "BT-11")
    close_open_field_betrayals(state)  # the attack decision ends the battle round
    if action.leader is None:
        log.public(EventType.BT_ATTACK_DECLINED, "The Bene Tleilaxu attack no leader this round.")
        return
    # A target offered when the prompt opened may have died since (a traitor reveal, a Karama): refused too.
    if not attack_cards(state):
        raise RuleViolation(ViolationCode.NOT_ALLOWED, "BT-12", "The BT attack with a weapon, worthless or Karama "
                            "card, and hold none: they may only decline.", [DECLINE])
    if action.leader not in prompt.options or action.leader == DECLINE or action.leader not in attack_targets(state):
        raise RuleViolation(ViolationCode.ILLEGAL_CHOICE, "BT-11", "The BT may attack only a leader who led tokens "
                            "in a battle this round and survived.", prompt.options)
    territory = attack_targets(state)[action.leader]
    victim = holder(state, action.leader)  # a captive leading for the Harkonnen is theirs
    state.battle_round().current = _new_attack(territory, victim, action.leader, "leader")
    log.public(EventType.BT_ATTACK, f"The Bene Tleilaxu attack {leader_name(action.leader)} in {territory} (BT-11).",
               leader=action.leader, territory=territory, faction=victim.value)


def _target(attack: Battle) -> str:
    """The leader a BT attack or trap strikes, chosen (BT-11) or drawn (BT-32) when it began."""
    return required(attack.target_leader, "the attack's target leader")


def attack_lost_its_weapon(state: GameState, battle: Battle, log: EventLog) -> bool:
    """R-34: the BT attack's plan must fill the weapon slot. If the BT spent their last such card after
    choosing the target (a Karama against prescience or Voice), the attack is called off; True if so."""
    if battle.attack != "leader" or attack_cards(state):
        return False
    log.public(EventType.BT_ATTACK_CALLED_OFF, f"The Bene Tleilaxu attack on {leader_name(_target(battle))} is "
               "called off: they hold no card left for its weapon slot (R-34).", leader=battle.target_leader)
    return True


# --- plans -----------------------------------------------------------------------------------


def attack_shape(state: GameState, battle: Battle, faction: Faction) -> dict[str, Any]:
    """BT-12: the BT fill the weapon slot (and may add a worthless card); the defender names his leader and
    may play a defense and/or a worthless card (engine/phases/battle_plans.py narrows it by prescience and the
    Voice)."""
    hand = state.faction(faction).hand
    if faction == BT and battle.attack == "leader":
        weapons, leaders = attack_cards(state), []
        defenses = [c for c in hand if category(c) == CardCategory.WORTHLESS]
    else:
        weapons = [c for c in hand if category(c) == CardCategory.WORTHLESS]
        defenses = [c for c in hand if category(c) in DEFENSE_CARDS]
        leaders = [battle.target_leader]
    return {
        "territory": battle.territory,
        "leaders": leaders,
        "cheap_heroes": [],
        "max_dial": 0,
        "max_spice": 0,
        "kwisatz_haderach": False,
        "may_play_cards": True,
        "weapons": weapons,
        "defenses": defenses,
        # BT-16 (optional): named with the leader attack's plan; a trap's is chosen once it is revealed
        "impairments": list(IMPAIRMENTS) if faction == BT and state.setup.options.bt_worthless_impairers else [],
    }


def attack_cards_problem(battle: Battle, faction: Faction, hand: dict[str, Any], weapon: str | None, defense: str | None
                         ) -> tuple[str, list[str] | None] | None:
    """The cards of a BT attack (engine/phases/battle_plans.py `cards_problem`): R-34, BT-12."""
    if faction != BT:
        if weapon and category(weapon) != CardCategory.WORTHLESS:
            return "The attacked leader plays only a defense and/or a worthless card (BT-12).", None
        return None
    if weapon is None:
        return ("A BT attack always fills its weapon slot: a weapon, a worthless card or a Karama (R-34).",
                hand["weapons"])
    if defense and category(defense) != CardCategory.WORTHLESS:
        return "Beside its weapon the BT attack may add only a worthless card (BT-12).", None
    return None


def impairs(state: GameState, weapon: str | None) -> bool:
    """BT-16, R-17: a worthless card played with no weapon, in a BT attack or as a trap (BT-33), impairs the
    attacked faction when the optional impairers are on."""
    return (state.setup.options.bt_worthless_impairers and weapon is not None
            and category(weapon) == CardCategory.WORTHLESS)


def impairment_wanted(state: GameState, battle: Battle, faction: Faction, weapon: str | None) -> bool:
    """BT-16, R-17: the BT's leader attack plan names an impairment exactly when its weapon slot holds a worthless
    card and the impairers are on (a trap's is chosen once it is revealed: BT_IMPAIRMENT)."""
    return faction == BT and battle.attack == "leader" and impairs(state, weapon)


def check_impairment(state: GameState, battle: Battle, faction: Faction, plan: BattlePlan, impair: str | None) -> None:
    """BT-16, R-17: in the leader attack the BT name the impairment with the plan."""
    wanted = impairment_wanted(state, battle, faction, plan.weapon)
    if wanted and impair is None:
        raise RuleViolation(ViolationCode.ILLEGAL_CHOICE, "BT-16", "With a worthless card and no weapon, name the "
                            "impairment: no shipping or no moving next turn.", list(IMPAIRMENTS))
    if impair is not None and not wanted:
        worthless = plan.weapon is not None and category(plan.weapon) == CardCategory.WORTHLESS
        if faction == BT and worthless and not state.setup.options.bt_worthless_impairers:
            raise RuleViolation(ViolationCode.ILLEGAL_CHOICE, "BT-16", "The worthless impairers (BT-16) are off in "
                                "this game: a worthless card in the weapon slot does nothing.")
        raise RuleViolation(ViolationCode.ILLEGAL_CHOICE, "R-17", "An impairment comes only with a worthless card "
                            "played instead of a weapon in a BT attack.")


# --- resolution ------------------------------------------------------------------------------


def resolve_attack(state: GameState, battle: Battle, log: EventLog) -> None:
    """BT-12..BT-15, BT-33, BT-50, R-4, R-15, R-16, R-18."""
    bt_plan, defense_plan = battle.plans[BT], battle.plans[battle.defender]
    weapon, defense = required(bt_plan.weapon, "the attack's weapon (R-34)"), defense_plan.defense
    leader = _target(battle)
    karama_trap = battle.attack == "trap" and is_karama(weapon)
    shielded = defense is not None and category(defense) == CardCategory.SHIELD
    explosion = karama_trap or (_as_lasgun(weapon) and shielded)
    killed = explosion or _as_lasgun(weapon) or weapon_kills(weapon, defense)
    lines = []
    if explosion:  # BT-14, BT-50, R-16: every token and all spice there; R-38: the advisors co-existing there too
        lost = advisors = 0
        for loc in battle.locations:
            tokens, advisors_here = destroy_every_token(state, loc)
            lost, advisors = lost + sum(tokens.values()) + advisors_here, advisors + advisors_here
            remove_spice(state, loc)
        lines.append(f"An explosion (lasgun against shield, BT-14, BT-50): every token ({lost}"
                     f"{advisors_among(advisors)}) and all spice in {battle.territory} are destroyed.")
    state.treachery_discard.append(weapon)  # the attack's cards are always discarded
    if bt_plan.defense:
        state.treachery_discard.append(bt_plan.defense)
    for card in (defense_plan.weapon, defense_plan.defense):
        if not card:
            continue
        keep = not killed and category(card) != CardCategory.WORTHLESS
        (state.faction(battle.defender).hand if keep else state.treachery_discard).append(card)
    if killed:
        kill_leader(state, leader)  # into his own faction's tanks, a captive's too
        strength = load_game_data().leader(leader).strength
        bank_pays(state, BT, strength)  # BT-15, BT-33, R-15
        lines.append(f"{leader_name(leader)} dies; the Bene Tleilaxu gain {strength} spice.")
    else:
        lines.append(f"{leader_name(leader)} survives.")
    worthless_trap = battle.attack == "trap" and impairs(state, weapon)
    if battle.attack == "leader" and impairs(state, weapon) and battle.impair:
        lines.append("The worthless card impairs them: " + _impose(state, battle.defender, battle.impair))
    if worthless_trap:  # BT-33, BT-16: the BT choose the impairment now that the card is revealed
        lines.append(f"The worthless card impairs them: the Bene Tleilaxu now choose whether "
                     f"{faction_does(battle.defender, 'may')} not ship or may not move next turn (BT-16, BT-33).")
    kind = "trap" if battle.attack == "trap" else "attack"
    resolved = EventType.BT_TRAP_RESOLVED if battle.attack == "trap" else EventType.BT_ATTACK_RESOLVED
    log.public(resolved, f"The Bene Tleilaxu {kind} on {leader_name(leader)}: "
               + " ".join(lines), leader=leader, killed=killed, explosion=explosion, territory=battle.territory,
               card=weapon if battle.attack == "trap" else None)
    if worthless_trap:
        open_prompt(state, PromptKind.BT_IMPAIRMENT, BT, secret=False, options=list(IMPAIRMENTS),
                    target=battle.defender.value, territory=battle.territory)


def _impose(state: GameState, victim: Faction, impair: str) -> str:
    """BT-16, R-17: bar the faction from shipping or moving during the next turn; the words for the event."""
    state.bt_state().impairments.append(Impairment(faction=victim, kind=impair, turn=state.turn + 1))
    what = "ship" if impair == NO_SHIPPING else "move on-board tokens"
    return f"{faction_does(victim, 'may')} not {what} next turn (BT-16)."


@handles(ChooseBtImpairment)
def choose_bt_impairment(state: GameState, action: ChooseBtImpairment, log: EventLog) -> None:
    """BT-16, BT-33: the impairment a worthless trap card imposes, chosen by the BT once it is revealed."""
    prompt = take_prompt(state, action.faction, PromptKind.BT_IMPAIRMENT, "BT-16")
    victim = Faction(prompt.detail["target"])
    log.public(EventType.BT_IMPAIRMENT, f"The worthless trap on {prompt.detail['territory']}: "
               + _impose(state, victim, action.impair), faction=victim.value, impair=action.impair)


# --- defaults and automatic players ----------------------------------------------------------


@default_for(PromptKind.BT_ATTACK)
def _default_attack(state: GameState, prompt: Prompt) -> ChooseBtAttack:
    return ChooseBtAttack(faction=BT)


@sampler_for(PromptKind.BT_ATTACK)
def _sample_attack(state: GameState, prompt: Prompt, rng: Rng) -> ChooseBtAttack:
    choice = rng.choice(prompt.options)
    return ChooseBtAttack(faction=BT, leader=None if choice == DECLINE else choice)


@default_for(PromptKind.BT_IMPAIRMENT)
def _default_impairment(state: GameState, prompt: Prompt) -> ChooseBtImpairment:
    return ChooseBtImpairment(faction=BT, impair=NO_MOVING)


@sampler_for(PromptKind.BT_IMPAIRMENT)
def _sample_impairment(state: GameState, prompt: Prompt, rng: Rng) -> ChooseBtImpairment:
    return ChooseBtImpairment(faction=BT, impair=rng.choice(prompt.options))
