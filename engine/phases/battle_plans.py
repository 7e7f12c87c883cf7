"""What a side may put in its battle plan, and the check of a submitted plan: one computation (issue 13).

A plan has three parts that no rule ties to each other: who leads (a leader or a cheap hero, the Kwisatz
Haderach beside a leader: A-13, A-15), the dial (and the spice backing it, A-15 advanced combat), and the cards
(a weapon and a defense; in a BT attack the impairment a worthless card imposes: BT-12, BT-16, R-17, R-34).
The hand and the board say what each part may hold (`hand_shape`); prescience's answer (A-26) and the Voice
narrow it. For each part one function says what is wrong with a choice, or nothing: `check_plan` refuses a plan
with the words of its first wrong part, and `plan_shape`, the detail of the BATTLE_PLAN prompt, lists every
choice those functions let through (the cards as the legal pairs of weapon and defense), so a form built from
it offers only plans the check accepts.
"""

from __future__ import annotations

from typing import Any

from engine.data import load_game_data
from engine.errors import RuleViolation, ViolationCode
from engine.factions.captives import leaders_held
from engine.factions.elites import battle_tokens, elite_worth
from engine.ids import CardCategory, Faction
from engine.model import Battle, BattlePlan, GameState
from engine.names import card_name, counted, leader_name
from engine.phases import bt_attack
from engine.rules.combat import category

RULE = "1979 rules: Battles"
WEAPONS = (CardCategory.PROJECTILE, CardCategory.POISON, CardCategory.LASGUN, CardCategory.WORTHLESS)
DEFENSES = (CardCategory.SHIELD, CardCategory.SNOOPER, CardCategory.WORTHLESS)
NONE = "none"  # "nothing" as a prescience answer

Refusal = tuple[str, list[str] | None]  # why a part is refused, and what is allowed instead (None: not listed)


# --- what the hand and the board allow ---------------------------------------------------------------


def available_leaders(state: GameState, faction: Faction, territory: str) -> list[str]:
    """Leaders alive, fighting for the faction (its captives included, A-15) and not already used in another
    territory this turn (a leader fights in one territory per turn). Public: the table knows all of it."""
    used = state.battle.leader_territory if state.battle else {}
    return [leader for leader in leaders_held(state, faction) if used.get(leader, territory) == territory]


def kwisatz_haderach_available(state: GameState, faction: Faction, territory: str) -> bool:
    """A-15: active once the Atreides lost 7 tokens in battles, alive, and in one territory a turn."""
    kh = state.kwisatz_haderach
    went = state.battle.kwisatz_haderach_territory if state.battle else None
    return (faction == Faction.ATREIDES and state.setup.options.character_advantages and kh.active and not kh.dead
            and went in (None, territory))


def elite_worth_in(battle: Battle, side: Faction) -> int:
    """A-15: what each of the side's elites is worth in this battle (A-14: a Karama may cancel the Sardaukar's)."""
    opponent = battle.defender if side == battle.aggressor else battle.aggressor
    return 1 if side == Faction.EMPEROR and battle.sardaukar_cancelled else elite_worth(side, opponent)


def max_dial_spice(state: GameState, faction: Faction, most_dialed: int) -> int:
    """A-15 `advanced_combat`: spice may back the dial, 1 per token, up to what the faction holds."""
    if not state.setup.options.advanced_combat:
        return 0
    return min(most_dialed, state.faction(faction).spice)


def dial_limit(state: GameState, battle: Battle, faction: Faction) -> int:
    """The most the side may dial: its tokens in the battle, each elite at its worth here (A-15). The plan's
    limit and the prescience answer's range both come from here."""
    return battle_tokens(state, battle.locations, faction, elite_worth_in(battle, faction))


def hand_shape(state: GameState, battle: Battle, faction: Faction) -> dict[str, Any]:
    """What the side's hand and tokens allow before prescience or the Voice bind anything: the truthful
    prescience answers are drawn from it."""
    if battle.attack:
        return bt_attack.attack_shape(state, battle, faction)
    hand = state.faction(faction).hand
    leaders = available_leaders(state, faction, battle.territory)
    heroes = [c for c in hand if category(c) == CardCategory.CHEAP_HERO]
    tokens = dial_limit(state, battle, faction)
    return {
        "territory": battle.territory,
        "leaders": leaders,
        "cheap_heroes": heroes,
        "max_dial": tokens,
        "kwisatz_haderach": bool(leaders) and kwisatz_haderach_available(state, faction, battle.territory),
        "max_spice": max_dial_spice(state, faction, tokens),
        "may_play_cards": bool(leaders or heroes),  # no leader, no cheap hero: no cards
        "weapons": [c for c in hand if category(c) in WEAPONS],
        "defenses": [c for c in hand if category(c) in DEFENSES],
    }


# --- what binds the plan: prescience's answer, the Voice ----------------------------------------------


def plan_element(plan: BattlePlan, element: str) -> str:
    """The plan's leader, weapon, defense or dial as a prescience answer names it."""
    if element == "dial":
        return str(plan.dial)
    if element == "leader":
        return plan.leader or plan.cheap_hero or NONE
    return getattr(plan, element) or NONE


def is_card(item: str) -> bool:
    try:
        load_game_data().card(item)
    except KeyError:
        return False
    return True


def describe_element(element: str, answer: str) -> str:
    if answer == NONE:
        return "no " + element
    if element == "dial":
        return f"a dial of {answer}"
    if element == "leader" and is_card(answer):
        return card_name(answer)
    return leader_name(answer) if element == "leader" else card_name(answer)


def answers_in(hand: dict[str, Any], battle: Battle, faction: Faction, element: str) -> list[str]:
    """The truthful prescience answers: what the side's plan may hold, from its hand shape."""
    if element == "dial":
        return [str(n) for n in range(hand["max_dial"] + 1)]
    if element == "leader":
        options = hand["leaders"] + hand["cheap_heroes"]
        return options if options else [NONE]
    if battle.attack and faction == Faction.BENE_TLEILAXU:  # the weapon slot must stay fillable
        if element == "weapon":
            return list(hand["weapons"])
        return [c for c in hand["defenses"] if any(w != c for w in hand["weapons"])] + [NONE]
    cards = hand["weapons"] if element == "weapon" else hand["defenses"]
    return [*cards, NONE] if hand["may_play_cards"] else [NONE]


def binding_answer(battle: Battle, faction: Faction, hand: dict[str, Any]) -> str | None:
    """The prescience answer this side's plan must follow, if any. Our reading: an answer the side can no longer
    play binds nothing (its card spent since as a Karama, its tokens taken since by an admin correction), like
    a Voice that cannot be obeyed; else the plan would have no legal form and the game would stop (issue 12)."""
    answer = battle.prescience_answer if battle.prescience_target == faction else None
    element = battle.prescience_element  # asked whenever there is an answer
    if answer is None or element is None or answer not in answers_in(hand, battle, faction, element):
        return None
    return answer


def _can_obey_play(battle: Battle, faction: Faction, wanted: str, hand: dict[str, Any]) -> bool:
    """A 'play' Voice binds only when the side can play such a card, prescience's binding answer allowing."""
    if not hand["may_play_cards"]:
        return False
    slots = []
    if any(category(c).value == wanted for c in hand["weapons"]):
        slots.append("weapon")
    if any(category(c).value == wanted for c in hand["defenses"]):
        slots.append("defense")
    if binding_answer(battle, faction, hand) is not None:
        slots = [s for s in slots if s != battle.prescience_element]
    return bool(slots)


def forbidden_by_voice(battle: Battle, card: str, kind: str) -> bool:
    """Whether "do not play a `kind`" forbids the card: its own kind; R-35: in the BT's leader attack a Karama is
    a lasgun (it would strike as one, BT-17, BT-50). A "play" command never obliges the BT to make it one (R-35):
    `_can_obey_play` reads the cards' own kinds."""
    if battle.attack == "leader" and kind == CardCategory.LASGUN.value and bt_attack.is_karama(card):
        return True
    return category(card).value == kind


def binding_voice(battle: Battle, faction: Faction, hand: dict[str, Any]) -> tuple[str, str] | None:
    """The Voice this side's plan must obey, as (command, kind of card), or None when there is none or it cannot
    be obeyed: a 'play' command for a kind the side cannot play; a 'not' command against the card prescience
    bound it to (the answer came first), or in a BT attack against every card the weapon slot could hold (R-34)."""
    if battle.voice_target != faction or battle.voice is None:
        return None
    command, wanted = battle.voice.split(":", 1)
    if command == "play":
        return (command, wanted) if _can_obey_play(battle, faction, wanted, hand) else None
    slot_left = not battle.attack or any(not forbidden_by_voice(battle, c, wanted) for c in hand["weapons"])
    bound = binding_answer(battle, faction, hand)
    bound_forbidden = bound is not None and is_card(bound) and forbidden_by_voice(battle, bound, wanted)
    return (command, wanted) if slot_left and not bound_forbidden else None


def _prescience_problem(battle: Battle, faction: Faction, hand: dict[str, Any], plan: BattlePlan,
                        elements: tuple[str, ...]) -> Refusal | None:
    answer = binding_answer(battle, faction, hand)
    element = battle.prescience_element
    if answer is not None and element in elements and plan_element(plan, element) != answer:
        return f"Prescience binds your {element} to what you answered: {describe_element(element, answer)}.", None
    return None


# --- the three parts of a plan -------------------------------------------------------------------------


def dial_problem(state: GameState, battle: Battle, faction: Faction, hand: dict[str, Any], dial: int, spice: int
                 ) -> Refusal | None:
    """The dial and the spice backing it (A-15 `advanced_combat`)."""
    if dial > hand["max_dial"]:
        return f"You have {counted(hand['max_dial'], 'token')} in {battle.territory}; you dialed {dial}.", None
    if spice and not state.setup.options.advanced_combat:
        return "Spice backs a dial only in advanced combat (A-15 `advanced_combat`).", None
    backing = min(dial, hand.get("max_spice", 0))
    if spice > backing:
        return (f"Spice backs dialed tokens one each, up to your spice: at most {backing} here (A-15 "
                "`advanced_combat`).", None)
    return _prescience_problem(battle, faction, hand, BattlePlan(dial=dial), ("dial",))


def head_problem(battle: Battle, faction: Faction, hand: dict[str, Any], leader: str | None, cheap_hero: str | None,
                 kwisatz_haderach: bool) -> Refusal | None:
    """Who leads: a leader or a cheap hero when the side has one (A-13), the Kwisatz Haderach only beside a
    leader (A-15)."""
    heads = hand["leaders"] + hand["cheap_heroes"]
    if kwisatz_haderach and not hand.get("kwisatz_haderach"):
        return ("Only the Atreides' active, living Kwisatz Haderach may go with a leader, in one territory a turn "
                "(A-15).", None)
    if kwisatz_haderach and not leader:
        return "The Kwisatz Haderach accompanies a leader, never a cheap hero, and cannot fight alone (A-15).", None
    if leader and cheap_hero:
        return "A plan has a leader or a cheap hero in the leader's place, not both.", None
    if leader and leader not in hand["leaders"]:
        return "That leader cannot fight here: dead, not yours, or already fought elsewhere this turn.", hand["leaders"]
    if cheap_hero and cheap_hero not in hand["cheap_heroes"]:
        return "You must hold the cheap hero you play.", hand["cheap_heroes"]
    if not leader and not cheap_hero and heads:
        return "A leader or a cheap hero must be in the plan when you have one.", heads
    return _prescience_problem(battle, faction, hand, BattlePlan(leader=leader, cheap_hero=cheap_hero), ("leader",))


def cards_problem(state: GameState, battle: Battle, faction: Faction, hand: dict[str, Any], weapon: str | None,
                  defense: str | None) -> Refusal | None:
    """The weapon and defense slots: cards from the hand that fit them, one card a slot, as prescience and the
    Voice bind them; a BT attack's own rules (R-34, BT-12)."""
    if not hand["may_play_cards"] and (weapon or defense):
        return "With no leader and no cheap hero you fight with your dial alone (A-13).", None
    if weapon and weapon not in hand["weapons"]:
        return "The weapon slot takes a weapon or a worthless card from your hand.", hand["weapons"]
    if defense and defense not in hand["defenses"]:
        return "The defense slot takes a defense or a worthless card from your hand.", hand["defenses"]
    if weapon and weapon == defense:
        return "One card cannot fill both slots.", None
    bound = _prescience_problem(battle, faction, hand, BattlePlan(weapon=weapon, defense=defense),
                                ("weapon", "defense"))
    if bound:
        return bound
    voice = binding_voice(battle, faction, hand)
    if voice is not None:
        command, wanted = voice
        played = [c for c in (weapon, defense) if c]
        forbidden = next((c for c in played if forbidden_by_voice(battle, c, wanted)), None)
        if command == "not" and forbidden:
            why = "" if category(forbidden).value == wanted else " (your Karama would strike as one, R-35)"
            return f"The Voice forbids you to play a {wanted}{why}.", None
        if command == "play" and not any(category(c).value == wanted for c in played):
            return f"The Voice commands you to play a {wanted}, and you can.", None
    if battle.attack:
        return bt_attack.attack_cards_problem(battle, faction, hand, weapon, defense)
    return None


def check_plan(state: GameState, battle: Battle, faction: Faction, plan: BattlePlan) -> None:
    """Refuse a plan the rules forbid, naming the rule and what is allowed."""
    hand = hand_shape(state, battle, faction)
    for problem in (dial_problem(state, battle, faction, hand, plan.dial, plan.spice),
                    head_problem(battle, faction, hand, plan.leader, plan.cheap_hero, plan.kwisatz_haderach),
                    cards_problem(state, battle, faction, hand, plan.weapon, plan.defense)):
        if problem is not None:
            message, allowed = problem
            raise RuleViolation(ViolationCode.ILLEGAL_CHOICE, RULE, message, allowed)


# --- the shape a form offers -----------------------------------------------------------------------------


def plan_shape(state: GameState, battle: Battle, faction: Faction) -> dict[str, Any]:
    """Every choice of each part that `check_plan` accepts, for the BATTLE_PLAN prompt's detail (the decider's
    alone): the leaders and cheap heroes, whether the Kwisatz Haderach may go beside a leader, the dial's range
    and the most spice that may back it, the legal [weapon, defense] pairs (None: an empty slot) and the
    weapons and defenses found in them, and in a BT attack the impairments and the weapons that call for one.
    What binds the plan is named too: the prescience answer the side gave and a Voice it must obey."""
    hand = hand_shape(state, battle, faction)
    leaders = [x for x in hand["leaders"] if head_problem(battle, faction, hand, x, None, False) is None]
    heroes = [x for x in hand["cheap_heroes"] if head_problem(battle, faction, hand, None, x, False) is None]
    dials = [n for n in range(hand["max_dial"] + 1) if dial_problem(state, battle, faction, hand, n, 0) is None]
    pairs = [[weapon, defense] for weapon in [*hand["weapons"], None] for defense in [None, *hand["defenses"]]
             if cards_problem(state, battle, faction, hand, weapon, defense) is None]
    voice = binding_voice(battle, faction, hand)
    weapons = [c for c in hand["weapons"] if any(p[0] == c for p in pairs)]
    return {
        "territory": battle.territory,
        "leaders": leaders,
        "cheap_heroes": heroes,
        "kwisatz_haderach": any(head_problem(battle, faction, hand, x, None, True) is None for x in leaders),
        "min_dial": dials[0],
        "max_dial": dials[-1],
        "max_spice": min(dials[-1], hand["max_spice"]),
        "may_play_cards": hand["may_play_cards"],
        "weapons": weapons,
        "defenses": [c for c in hand["defenses"] if any(p[1] == c for p in pairs)],
        "card_pairs": pairs,
        "prescience": battle.prescience_element if battle.prescience_target == faction else None,
        "prescience_answer": binding_answer(battle, faction, hand),
        "voice": battle.voice if battle.voice_target == faction else None,
        "voice_binds": voice is not None,
        "attack": battle.attack,
        "impairments": hand.get("impairments", []),  # BT-16: named with the BT's leader attack plan
        "impairing": [c for c in weapons if bt_attack.impairment_wanted(state, battle, faction, c)],
    }
