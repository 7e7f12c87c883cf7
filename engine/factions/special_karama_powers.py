"""The handlers of the special Karama powers (A-14); see engine/factions/special_karama.py for the rules."""

from __future__ import annotations

from typing import NoReturn

from engine.actions import ReturnCards, UseSpecialKarama
from engine.errors import RuleViolation, ViolationCode
from engine.events import EventLog, EventType
from engine.factions.special_karama import FREMEN_WORM, RULE, STOP_SHIPMENT, spend_special_karama
from engine.flow import Details, default_for, details_for, handles, open_prompt, sampler_for, take_prompt
from engine.ids import Faction
from engine.model import GameState, Prompt, PromptKind, SpecialKaramaOrder
from engine.names import card_name, counted, faction_does, faction_name, faction_possessive, leader_name
from engine.phases.battle import describe_plan
from engine.phases.revival import reopen_revival_prompt, revive_leader
from engine.phases.spice_blow import sand_territories
from engine.rng import Rng
from engine.rules.forces import revive_tokens
from engine.rules.karama import counts_as_karama, karama_cards

EMPEROR_TOKENS = 3
A, BG, E, F, G, H, BT = (Faction.ATREIDES, Faction.BENE_GESSERIT, Faction.EMPEROR, Faction.FREMEN, Faction.GUILD,
                         Faction.HARKONNEN, Faction.BENE_TLEILAXU)


@details_for(PromptKind.HAND_SWAP)
class HandSwapDetails(Details):
    target: Faction
    count: int
    taken: list[str]


def _refuse(message: str, allowed: list[str] | None = None,
            code: ViolationCode = ViolationCode.NOT_ALLOWED) -> NoReturn:
    raise RuleViolation(code, RULE, message, allowed or [])


def _check_use(state: GameState, action: UseSpecialKarama) -> None:
    faction = action.faction
    if not state.setup.options.special_karama_powers:
        _refuse("Special Karama powers are the option special_karama_powers, which is off in this game (A-14).")
    if faction in (BG, BT):
        _refuse(f"{faction_does(faction, 'have', start=True)} no special Karama power in these rules (A-14"
                + (", R-27)." if faction == BT else "; their worthless cards as Karama are a character advantage)."))
    if faction in state.special_karama_used:
        _refuse("Each faction's special Karama power is used once per game; yours is spent (A-14).")
    if any(o.faction == faction for o in state.special_karama_orders):
        _refuse("Your special Karama power is already readied (A-14).")
    hand = state.faction(faction).hand
    if action.card not in hand or not counts_as_karama(state, faction, action.card):
        _refuse("You must hold the Karama card you name.", karama_cards(state, faction), ViolationCode.ILLEGAL_CHOICE)
    if any(o.card == action.card for o in state.karama_orders):
        _refuse("That Karama card is readied against an advantage (A-14); use another card.")


def _in_battle(state: GameState) -> bool:
    return state.battle is not None and state.battle.current is not None


def _target(state: GameState, action: UseSpecialKarama, what: str) -> Faction:
    target = action.target
    allowed = [f.value for f in state.factions if f not in (action.faction, BT)]
    if target is None or target not in state.factions or target == action.faction:
        _refuse(f"Name the faction whose {what}.", allowed, ViolationCode.ILLEGAL_CHOICE)
    if target == BT:
        _refuse("Against the Bene Tleilaxu Karama does only what BT-51 lists (R-27).", allowed)
    return target


@handles(UseSpecialKarama)
def use_special_karama(state: GameState, action: UseSpecialKarama, log: EventLog) -> None:
    _check_use(state, action)
    {A: _atreides, E: _emperor, F: _fremen, G: _guild, H: _harkonnen}[action.faction](state, action, log)


def _atreides(state: GameState, action: UseSpecialKarama, log: EventLog) -> None:
    """See the opponent's whole plan in one of their battles (not a BT attack, R-27), before making theirs."""
    battle = state.current_battle() if _in_battle(state) else None
    if battle is None or battle.attack or A not in (battle.aggressor, battle.defender):
        _refuse("The Atreides see a whole battle plan only in a battle of their own (A-14).")
    opponent = battle.defender if battle.aggressor == A else battle.aggressor
    if A in battle.plans or battle.step != "plans":
        _refuse("The Atreides see the opponent's plan before making their own (A-14); yours is in.")
    if opponent not in battle.plans:
        _refuse(f"{faction_does(opponent, 'have', start=True)} not made a battle plan yet; try again once it is in.")
    spend_special_karama(state, SpecialKaramaOrder(faction=A, card=action.card, power="see_plan"), log)
    plan = battle.plans[opponent]
    log.public(EventType.SPECIAL_KARAMA,
               f"The Atreides play Karama (special power, A-14): they see the whole battle plan of "
               f"{faction_name(opponent)}.", faction=A.value, card=action.card, power="see_plan",
               target=opponent.value)
    log.private(EventType.PLAN_SEEN, A, f"Karama: {faction_possessive(opponent)} plan is {describe_plan(plan)}.",
                faction=opponent.value, plan=plan.model_dump())


def _emperor(state: GameState, action: UseSpecialKarama, log: EventLog) -> None:
    """Up to 3 tokens or one leader from the tanks, free, at any time outside a battle (the all-five-dead
    condition of A-7 does not apply, as for the Tleilaxu Ghola)."""
    fs = state.faction(E)
    if _in_battle(state):
        _refuse("The Emperor's special Karama revival cannot be used while a battle is being fought.")
    if (action.leader is None) == (action.tokens == 0):
        _refuse(f"The Emperor revive either one leader or 1 to {EMPEROR_TOKENS} tokens (A-14).",
                code=ViolationCode.ILLEGAL_CHOICE)
    if action.leader is not None and action.leader not in fs.leaders_in_tanks:
        _refuse(f"{action.leader!r} is not one of your leaders in the tanks.", list(fs.leaders_in_tanks),
                ViolationCode.ILLEGAL_CHOICE)
    if action.tokens > min(EMPEROR_TOKENS, fs.tanks):
        _refuse(f"The Emperor revive up to {EMPEROR_TOKENS} tokens and have {fs.tanks} in the tanks; not "
                f"{action.tokens}.", code=ViolationCode.ILLEGAL_CHOICE)
    if action.tokens:
        revive_tokens(state, E, action.tokens)  # refuses beyond the one-elite-a-turn limit
    spend_special_karama(state, SpecialKaramaOrder(faction=E, card=action.card, power="revival"), log)
    what = leader_name(action.leader) if action.leader else counted(action.tokens, "token")
    log.public(EventType.SPECIAL_KARAMA,
               f"The Emperor plays Karama (special power, A-14): {what} revived from the tanks, "
               "free.", faction=E.value, card=action.card, power="revival", leader=action.leader, tokens=action.tokens)
    if action.leader:
        revive_leader(state, E, action.leader, log, "karama")  # BT-20: the BT may mark him
    reopen_revival_prompt(state, E, log)  # what is left to revive changed


def _fremen(state: GameState, action: UseSpecialKarama, log: EventLog) -> None:
    sand = sand_territories()
    if action.territory not in sand:
        _refuse("The Fremen Karama worm goes to a sand territory (A-14).", sand, ViolationCode.ILLEGAL_CHOICE)
    state.special_karama_orders.append(SpecialKaramaOrder(faction=F, card=action.card, power=FREMEN_WORM,
                                                          territory=action.territory))
    log.private(EventType.SPECIAL_KARAMA_READIED,
                F, f"Your Karama will send Shai-Hulud to {action.territory} at the end of "
                "the next spice blow after turn 1 (A-14).", card=action.card, territory=action.territory)


def _guild(state: GameState, action: UseSpecialKarama, log: EventLog) -> None:
    target = _target(state, action, "next shipment from off-planet the Guild stop")
    if target == F:
        _refuse("The Fremen never ship from off-planet; there is nothing to stop.")
    state.special_karama_orders.append(SpecialKaramaOrder(faction=G, card=action.card, power=STOP_SHIPMENT,
                                                          target=target))
    log.private(EventType.SPECIAL_KARAMA_READIED,
                G, f"Your Karama will stop the next shipment of {faction_name(target)} "
                "from off-planet (A-14).", card=action.card, target=target.value)


def _harkonnen(state: GameState, action: UseSpecialKarama, log: EventLog) -> None:
    target = _target(state, action, "hand the Harkonnen take")
    if _in_battle(state):
        _refuse("The Harkonnen special Karama cannot be used while a battle is being fought.")
    taken = list(state.faction(target).hand)
    if not taken:
        _refuse(f"{faction_does(target, 'hold', start=True)} no cards.")
    spend_special_karama(state, SpecialKaramaOrder(faction=H, card=action.card, power="hand_swap"), log)
    state.faction(target).hand = []
    state.faction(H).hand += taken
    open_prompt(state, PromptKind.HAND_SWAP, H, secret=True, options=list(state.faction(H).hand),
                target=target.value, count=len(taken), taken=taken)
    log.public(EventType.SPECIAL_KARAMA,
               f"The Harkonnen play Karama (special power, A-14): they take the whole hand of "
               f"{faction_name(target)} ({len(taken)} cards) and give back as many.", faction=H.value,
               card=action.card, power="hand_swap", target=target.value, count=len(taken))
    log.private(EventType.HAND_TAKEN, (H, target), f"The Harkonnen take {faction_possessive(target)} hand: "
                + ", ".join(card_name(c) for c in taken) + ".", target=target.value, cards=taken)


@handles(ReturnCards)
def return_cards(state: GameState, action: ReturnCards, log: EventLog) -> None:
    prompt = take_prompt(state, action.faction, PromptKind.HAND_SWAP, RULE)
    target, count = Faction(prompt.detail["target"]), cards_owed(state, prompt)
    hand = state.faction(H).hand
    if len(action.cards) != count or len(set(action.cards)) != count or not set(action.cards) <= set(hand):
        raise RuleViolation(ViolationCode.ILLEGAL_CHOICE, RULE, f"Give back exactly {count} different cards from "
                            "your hand.", list(hand))
    for card in action.cards:
        hand.remove(card)
    state.faction(target).hand += action.cards
    log.public(EventType.CARDS_RETURNED, f"The Harkonnen give {count} cards back to {faction_name(target)} (A-14).",
               faction=H.value, target=target.value, count=count)
    log.private(EventType.CARDS_GIVEN_BACK, (H, target), f"The Harkonnen give {faction_name(target)}: "
                + ", ".join(card_name(c) for c in action.cards) + ".", target=target.value, cards=action.cards)


def cards_owed(state: GameState, prompt: Prompt) -> int:
    """As many cards as were taken; our reading: if the Harkonnen played some of their cards since (a taken Karama
    against the BT, a Truthtrance), they give back all they still hold when that is fewer, so the swap can always
    end (issue 12)."""
    taken: int = prompt.detail["count"]
    return min(taken, len(state.faction(H).hand))


@default_for(PromptKind.HAND_SWAP)
def _default_return(state: GameState, prompt: Prompt) -> ReturnCards:
    """The cards taken, back where they were: the swap then only showed the hand."""
    hand = state.faction(prompt.faction).hand
    taken = [c for c in prompt.detail["taken"] if c in hand]
    rest = [c for c in hand if c not in taken]
    return ReturnCards(faction=prompt.faction, cards=(taken + rest)[:cards_owed(state, prompt)])


@sampler_for(PromptKind.HAND_SWAP)
def _sample_return(state: GameState, prompt: Prompt, rng: Rng) -> ReturnCards:
    hand = list(state.faction(prompt.faction).hand)
    rng.shuffle(hand)
    return ReturnCards(faction=prompt.faction, cards=hand[:cards_owed(state, prompt)])


