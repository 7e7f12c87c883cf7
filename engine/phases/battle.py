"""The battle round (1979 rules: Battles; A-13, A-18, A-26).

Battles happen wherever two or more factions (not allies) have tokens in one territory, except the Polar
Sink; tokens the storm separates do not meet. The earliest faction in storm order with a battle is the
aggressor and picks where, and against whom, it fights next. Each battle runs in fixed, announced steps:

    prescience (the Atreides ask one element) -> its binding answer -> Voice (the Bene Gesserit command)
    -> both secret plans -> reveal -> both sides asked about traitors -> resolution

Secret parts (plans, the prescience answer, traitor answers) are prompts and events for their owners only
until the reveal. Both sides are asked about traitors every time, so being asked tells nothing.
"""

from __future__ import annotations

from typing import Any

from engine.actions import (
    AnswerPrescience,
    AskPrescience,
    CallTraitor,
    ChooseBattle,
    SetTraitorOrder,
    SubmitBattlePlan,
    UseVoice,
)
from engine.data import POLAR_SINK, load_game_data
from engine.errors import RuleViolation, ViolationCode
from engine.events import BY_STANDING_ORDER, EventLog, EventType
from engine.factions.bt_traitors import close_open_field_betrayals, open_reveal_window
from engine.factions.captives import captives_go_home, kill_leader, offer_capture
from engine.factions.elites import ELITE_WORTH, elite_name, elites_at, loss_plan
from engine.flow import Details, default_for, details_for, handles, open_prompt, runs_phase, sampler_for, take_prompt
from engine.ids import CardCategory, Faction
from engine.model import Battle, BattlePlan, BattleState, BattleVictory, GameState, Phase, Prompt, PromptKind, required
from engine.names import (
    advisors_among,
    agreeing,
    card_name,
    counted,
    faction_does,
    faction_name,
    leader_name,
    the_faction,
)
from engine.phases import bt_attack
from engine.phases.battle_plans import (
    NONE,
    RULE,
    answers_in,
    check_plan,
    describe_element,
    elite_worth_in,
    hand_shape,
    plan_element,
    plan_shape,
)
from engine.phases.turn import end_phase
from engine.rng import Rng
from engine.rules.board import board_index, factions_by_territory, is_stronghold
from engine.rules.combat import category, weapon_kills
from engine.rules.economy import bank_pays, pay, remove_spice
from engine.rules.forces import destroy_every_token, send_to_tanks, wipe_out
from engine.rules.karama import Advantage, karama_cancels
from engine.rules.order import storm_order

SECTORS = 18
VOICE_CATEGORIES = (
    CardCategory.PROJECTILE, CardCategory.POISON, CardCategory.LASGUN, CardCategory.SHIELD,
    CardCategory.SNOOPER, CardCategory.WORTHLESS,
)
ELEMENTS = ("leader", "weapon", "defense", "dial")
CALL, NO_CALL = "call", "no"  # the traitor question's options
PRESCIENCE, ANSWER, VOICE, PLANS, TRAITORS = "prescience", "answer", "voice", "plans", "traitors"
TRAPS_STEP, FIGHTING_STEP, BT_ATTACK_STEP = "traps", "fighting", "bt_attack"
KH_AWAKENING, KH_BONUS = 7, 2  # the Kwisatz Haderach


# --- where battles are -----------------------------------------------------------------------


@details_for(PromptKind.BATTLE_CHOICE)
class BattleChoiceDetails(Details):
    locations: dict[str, list[str]]  # option -> where that battle would be fought


@details_for(PromptKind.PRESCIENCE)
class PrescienceDetails(Details):
    target: Faction


@details_for(PromptKind.PRESCIENCE_ANSWER)
class PrescienceAnswerDetails(Details):
    element: str  # the element of the plan asked for


@details_for(PromptKind.VOICE)
class VoiceDetails(Details):
    target: Faction


@details_for(PromptKind.BATTLE_PLAN)
class BattlePlanDetails(Details):
    """engine/phases/battle_plans.py `plan_shape`."""

    territory: str
    leaders: list[str]
    cheap_heroes: list[str]
    kwisatz_haderach: bool  # he may go beside a leader
    min_dial: int
    max_dial: int
    max_spice: int  # the most spice that may back the dial (A-15 advanced combat)
    may_play_cards: bool
    weapons: list[str]
    defenses: list[str]
    card_pairs: list[tuple[str | None, str | None]]  # the legal [weapon, defense] pairs; None: an empty slot
    prescience: str | None  # the element the Atreides asked of this side
    prescience_answer: str | None  # the answer that binds it
    voice: str | None  # "play:<kind>" or "not:<kind>"
    voice_binds: bool
    attack: str | None  # "leader" (BT-11) or "trap" (BT-32): not a battle
    impairments: list[str]  # BT-16: named with the BT's attack plan
    impairing: list[str]  # the weapons that call for an impairment


@details_for(PromptKind.TRAITOR_CALL)
class TraitorCallDetails(Details):
    """`_traitor_facts`: all public once the plans are revealed."""

    territory: str
    opponent: Faction
    leader: str | None  # None: a cheap hero or nobody
    kwisatz_haderach: bool
    ally: Faction | None  # the ally the asker answers for


def _arc(sectors: tuple[int, ...]) -> list[int]:
    """A territory's sectors in counterclockwise order, starting after the gap (18, 1, 2 for a wrap)."""
    for start in sectors:
        if (start - 2) % SECTORS + 1 not in sectors:
            index = sectors.index(start)
            return list(sectors[index:]) + list(sectors[:index])
    return list(sectors)


def meeting_groups(state: GameState, territory: str) -> list[list[str]]:
    """The territory's locations whose tokens meet: the storm's sector splits the territory, and tokens
    inside the storm's sector meet only each other."""
    t = load_game_data().board.territory(territory)
    sector_of = board_index().sector
    by_sector = {sector_of[loc]: loc for loc in t.locations}
    groups: list[list[str]] = []
    current: list[str] = []
    for sector in _arc(t.sectors):
        if sector == state.storm_sector:
            groups += [current, [by_sector[sector]]]
            current = []
        else:
            current.append(by_sector[sector])
    groups.append(current)
    return [g for g in groups if g]


def pending_battles(state: GameState) -> list[tuple[str, list[str], list[Faction]]]:
    """Every place a battle must be fought: (territory, its meeting locations, the factions there in storm
    order). Allies never fight each other."""
    order = storm_order(state)
    occupied = factions_by_territory(state)
    found = []
    for territory in load_game_data().board.territories:
        if territory == POLAR_SINK or len(occupied.get(territory, ())) < 2:
            continue  # no battle without two factions (tested before the storm's split, which is slower)
        for group in meeting_groups(state, territory):
            present = [f for f in order if any(f in state.forces.get(loc, {}) for loc in group)]
            if any(b not in state.ally_of(a) for a in present for b in present if a != b):
                found.append((territory, group, present))
    return found


def _choices(state: GameState, aggressor: Faction) -> list[tuple[str, list[str], Faction]]:
    """The battles the aggressor may pick: (territory, locations, opponent)."""
    return [
        (territory, group, other)
        for territory, group, present in pending_battles(state)
        if aggressor in present
        for other in present
        if other != aggressor and other not in state.ally_of(aggressor)
    ]


def _choice_key(territory: str, opponent: Faction) -> str:
    return f"{territory}|{opponent.value}"


# --- the round -------------------------------------------------------------------------------


@runs_phase(Phase.BATTLE)
def run_battles(state: GameState, log: EventLog) -> bool:
    """Traps strike first (BT-32), then the battles, then the BT may attack a leader (BT-11)."""
    if state.step == "":
        state.battle = BattleState(traps_to_spring=bt_attack.triggered_traps(state))
        state.step = TRAPS_STEP
    battle = state.battle_round().current
    if battle is not None:
        return _advance_battle(state, battle, log)
    if state.step == TRAPS_STEP:
        if bt_attack.start_next_trap_attack(state, log):
            return True
        state.step = FIGHTING_STEP
    if state.step == FIGHTING_STEP:
        if _next_battle(state, log):
            return True
        state.step = BT_ATTACK_STEP
        if bt_attack.offer_leader_attack(state, log):
            return True
    if state.step == BT_ATTACK_STEP:
        captives_go_home(state, log)  # with the other surviving leaders
        state.battle = None
        close_open_field_betrayals(state)  # the battle round is over
        log.public(EventType.BATTLES_OVER, "All battles are over; surviving leaders return to their factions.")
        end_phase(state, log)
        return True
    return False


def _next_battle(state: GameState, log: EventLog) -> bool:
    """Start the next battle (or ask the aggressor to pick one); False when none is left."""
    pending = pending_battles(state)
    if not pending:
        return False
    order = storm_order(state)
    aggressor = min((present[0] for _, _, present in pending), key=order.index)
    choices = _choices(state, aggressor)
    if len(choices) == 1:
        territory, group, opponent = choices[0]
        _start_battle(state, territory, group, aggressor, opponent, log)
    else:
        open_prompt(state, PromptKind.BATTLE_CHOICE, aggressor, secret=False,
                    options=[_choice_key(t, o) for t, _, o in choices],
                    locations={_choice_key(t, o): group for t, group, o in choices})  # where each would be fought
    return True


@handles(ChooseBattle)
def choose_battle(state: GameState, action: ChooseBattle, log: EventLog) -> None:
    prompt = take_prompt(state, action.faction, PromptKind.BATTLE_CHOICE, RULE)
    key = _choice_key(action.territory, action.opponent)
    if key not in prompt.options:
        raise RuleViolation(ViolationCode.ILLEGAL_CHOICE, RULE,
                            f"There is no battle for you against {action.opponent.value} in {action.territory}.",
                            prompt.options)
    chosen = next((c for c in _choices(state, action.faction) if _choice_key(c[0], c[2]) == key), None)
    if chosen is None:  # a BT betrayal took the tokens since the choice was offered (BT-23, R-7)
        log.public(EventType.BATTLE_GONE,
                   f"There is no battle in {action.territory} against {faction_name(action.opponent)} "
                   "any more; the battle round goes on.", territory=action.territory, opponent=action.opponent.value)
        return
    territory, group, opponent = chosen
    _start_battle(state, territory, group, action.faction, opponent, log)


def record_victory(state: GameState, battle: Battle, winner: Faction) -> None:
    """BT-23: the winner's leader is the last to have led its tokens to win this territory."""
    leader = battle.plans[winner].leader
    state.victories = [v for v in state.victories if v.territory != battle.territory]
    if leader and any(state.tokens_at(loc, winner) for loc in battle.locations):
        state.victories.append(BattleVictory(territory=battle.territory, faction=winner, leader=leader,
                                             stronghold=is_stronghold(battle.territory),
                                             with_kwisatz_haderach=battle.plans[winner].kwisatz_haderach))


def _start_battle(state: GameState, territory: str, group: list[str], aggressor: Faction, defender: Faction,
                  log: EventLog) -> None:
    close_open_field_betrayals(state)
    state.battle_round().current = Battle(territory=territory, locations=group, aggressor=aggressor, defender=defender)
    log.public(
        EventType.BATTLE_STARTED,
        f"Battle in {territory}: {faction_name(aggressor)} (aggressor) against {faction_name(defender)}. "
        "Steps: prescience, Voice, battle plans, reveal, traitors, resolution.",
        territory=territory, aggressor=aggressor.value, defender=defender.value,
    )


def _helper_in(state: GameState, battle: Battle, helper: Faction) -> tuple[Faction, Faction] | None:
    """(helper's side, opponent) when `helper` fights this battle or is allied to a side (A-26)."""
    for side, other in ((battle.aggressor, battle.defender), (battle.defender, battle.aggressor)):
        if side == helper or helper in state.ally_of(side):
            return side, other
    return None


def _helps(state: GameState, battle: Battle, helper: Faction) -> tuple[Faction, Faction] | None:
    """The side a faction's prescience or Voice serves, and its opponent. In a BT attack only the defender
    may use them (BT-13); a trap cannot be Voiced and is looked at instead (BT-34)."""
    if not state.in_game(helper) or battle.attack == "trap":
        return None
    sides = _helper_in(state, battle, helper)
    if sides and battle.attack == "leader" and sides[0] != battle.defender:
        return None
    return sides


def _advance_battle(state: GameState, battle: Battle, log: EventLog) -> bool:
    if battle.step == "":
        battle.step = PRESCIENCE
        if not battle.attack:
            _karama_against_sardaukar(state, battle, log)
        sides = _helps(state, battle, Faction.ATREIDES)
        if sides and not karama_cancels(state, Advantage.PRESCIENCE, log):
            battle.prescience_asker, battle.prescience_target = Faction.ATREIDES, sides[1]
            elements = ["weapon", "defense"] if battle.attack else list(ELEMENTS)
            open_prompt(state, PromptKind.PRESCIENCE, Faction.ATREIDES, secret=False, options=[*elements, NONE],
                        target=sides[1].value)
        return True
    if battle.step == PRESCIENCE:
        battle.step = ANSWER
        if battle.prescience_element is not None:
            target, element = required(battle.prescience_target, "the prescience target"), battle.prescience_element
            # the options are the truthful answers, so a menu can offer them (the handler checks them again)
            open_prompt(state, PromptKind.PRESCIENCE_ANSWER, target, secret=True, element=element,
                        options=_answer_options(state, battle, target, element))
        return True
    if battle.step == ANSWER:
        battle.step = VOICE
        sides = _helps(state, battle, Faction.BENE_GESSERIT)
        if sides and not karama_cancels(state, Advantage.VOICE, log):
            battle.voice_by, battle.voice_target = Faction.BENE_GESSERIT, sides[1]
            options = [NONE] + [f"{c}:{k.value}" for c in ("play", "not") for k in VOICE_CATEGORIES]
            open_prompt(state, PromptKind.VOICE, Faction.BENE_GESSERIT, secret=False, options=options,
                        target=sides[1].value)
        return True
    if battle.step == VOICE:
        if bt_attack.attack_lost_its_weapon(state, battle, log):
            state.battle_round().current = None
            return True
        battle.step = PLANS
        for side in (battle.aggressor, battle.defender):
            if side in battle.plans:
                continue  # a trap's card is its whole plan (BT-32)
            open_prompt(state, PromptKind.BATTLE_PLAN, side, secret=True, **plan_shape(state, battle, side))
        return True
    if battle.step == PLANS:
        battle.step = TRAITORS
        _reveal(state, battle, log)
        if battle.attack:
            bt_attack.resolve_attack(state, battle, log)
            state.battle_round().current = None
            return True
        for faction in _traitor_askers(state, battle):
            open_prompt(state, PromptKind.TRAITOR_CALL, faction, secret=True,
                        options=traitor_options(state, battle, faction), **_traitor_facts(state, battle, faction))
            if state.faction(faction).auto_traitor:
                state.prompts.pop()
                _record_traitor_answer(state, battle, faction, _can_call(state, battle, faction), log, by_order=True)
        return True
    if battle.step == TRAITORS:
        _resolve(state, battle, log)
        state.battle_round().current = None
        open_reveal_window(state, battle.territory)
        return True
    return False


# --- prescience and Voice --------------------------------------------------------------------


@handles(AskPrescience)
def ask_prescience(state: GameState, action: AskPrescience, log: EventLog) -> None:
    take_prompt(state, action.faction, PromptKind.PRESCIENCE, RULE)
    battle = state.current_battle()
    battle.prescience_element = action.element
    if action.element is None:
        log.public(EventType.PRESCIENCE_DECLINED, "The Atreides ask no prescience question.")
    else:
        target = required(battle.prescience_target, "the prescience target")
        log.public(EventType.PRESCIENCE_ASKED, f"The Atreides use prescience: "
                   f"{faction_does(target, 'must')} reveal the {action.element} of the plan to "
                   "them.", element=action.element,
                   target=target.value)


@handles(AnswerPrescience)
def answer_prescience(state: GameState, action: AnswerPrescience, log: EventLog) -> None:
    prompt = take_prompt(state, action.faction, PromptKind.PRESCIENCE_ANSWER, RULE)
    battle = state.current_battle()
    element = prompt.detail["element"]
    legal = _answer_options(state, battle, action.faction, element)
    if action.answer not in legal:
        raise RuleViolation(ViolationCode.ILLEGAL_CHOICE, RULE,
                            f"Your {element} must be answered truthfully from what you can play.", legal)
    battle.prescience_answer = action.answer
    shown = describe_element(element, action.answer)
    audience = (required(battle.prescience_asker, "the prescience asker"), action.faction)
    told = (f"will play no {element}" if action.answer == NONE else f"will play {shown} as the {element}")
    log.private(EventType.PRESCIENCE_ANSWERED,
                audience, f"Prescience: {the_faction(action.faction)} {told}. The plan is "
                "bound to it.", element=element, answer=action.answer)
    log.public(EventType.DECISION_MADE,
               f"{faction_does(action.faction, 'answered', start=True)} the prescience question.",
               faction=action.faction.value, kind=PromptKind.PRESCIENCE_ANSWER.value)


def _answer_options(state: GameState, battle: Battle, faction: Faction, element: str) -> list[str]:
    """The truthful answers: what the side's plan may hold, from the plan's own hand shape."""
    return answers_in(hand_shape(state, battle, faction), battle, faction, element)


@handles(UseVoice)
def use_voice(state: GameState, action: UseVoice, log: EventLog) -> None:
    prompt = take_prompt(state, action.faction, PromptKind.VOICE, RULE)
    battle = state.current_battle()
    if action.command is None:
        log.public(EventType.VOICE_DECLINED, "The Bene Gesserit use no Voice.")
        return
    key = f"{action.command}:{action.category}"
    if key not in prompt.options:
        raise RuleViolation(ViolationCode.ILLEGAL_CHOICE, RULE, f"The Voice cannot command {key!r}.", prompt.options)
    battle.voice = key
    verb = "must play" if action.command == "play" else "must not play"
    target = required(battle.voice_target, "the Voice's target")
    log.public(EventType.VOICE_USED, f"The Voice: {faction_name(target)} {verb} a {action.category} "
               "if they can.", target=target.value, command=action.command, category=action.category)


# --- plans -----------------------------------------------------------------------------------


def _karama_against_sardaukar(state: GameState, battle: Battle, log: EventLog) -> None:
    """A-14: a readied Karama fires as the Sardaukar would count double in this battle, when it begins: their
    worth sets the most the Emperor may dial, which a prescience answer binds, so it is fixed before the question
    (issue 12: an answer must stay playable)."""
    emperor = Faction.EMPEROR
    if emperor not in (battle.aggressor, battle.defender) or elite_worth_in(battle, emperor) < ELITE_WORTH:
        return  # no Sardaukar bonus here: no Emperor, or against the Fremen
    if any(elites_at(state, loc, emperor) for loc in battle.locations):
        battle.sardaukar_cancelled = karama_cancels(state, Advantage.SARDAUKAR, log)


@handles(SubmitBattlePlan)
def submit_battle_plan(state: GameState, action: SubmitBattlePlan, log: EventLog) -> None:
    prompt = take_prompt(state, action.faction, PromptKind.BATTLE_PLAN, RULE)
    battle = state.current_battle()
    plan = BattlePlan(leader=action.leader, cheap_hero=action.cheap_hero, dial=action.dial,
                      weapon=action.weapon, defense=action.defense, kwisatz_haderach=action.kwisatz_haderach,
                      spice=action.spice)
    check_plan(state, battle, action.faction, plan)
    if action.impair or battle.attack:
        bt_attack.check_impairment(state, battle, action.faction, plan, action.impair)
        battle.impair = battle.impair or action.impair
    battle.plans[action.faction] = plan
    log.private(EventType.PLAN_SUBMITTED, action.faction, "Your battle plan: " + describe_plan(plan) + ".",
                plan=plan.model_dump(mode="json"), prompt=prompt.id)
    log.public(EventType.DECISION_MADE, f"{faction_does(action.faction, 'submitted', start=True)} a battle plan.",
               faction=action.faction.value, kind=PromptKind.BATTLE_PLAN.value)


def describe_plan(plan: BattlePlan) -> str:
    leader = leader_name(plan.leader) if plan.leader else card_name(plan.cheap_hero) if plan.cheap_hero \
        else "no leader"
    if plan.kwisatz_haderach:
        leader += " with the Kwisatz Haderach"
    weapon = card_name(plan.weapon) if plan.weapon else "no weapon"
    defense = card_name(plan.defense) if plan.defense else "no defense"
    spice = f" backed by {plan.spice} spice" if plan.spice else ""
    return f"{leader}, dial {plan.dial}{spice}, {weapon}, {defense}"


def _reveal(state: GameState, battle: Battle, log: EventLog) -> None:
    """Both plans are shown together, only now that both are in."""
    for side in (battle.aggressor, battle.defender):
        plan = battle.plans[side]
        hand = state.faction(side).hand
        for slot in ("cheap_hero", "weapon", "defense"):
            card = getattr(plan, slot)
            if not card or card == battle.trap_card:
                continue
            if card in hand:
                hand.remove(card)  # played: on the table until the battle resolves
            else:  # our reading: spent since the plan was made (a Karama, A-15 worthless cards): not played
                setattr(plan, slot, None)
        if plan.leader and not battle.attack:  # a BT attack or trap is no battle: nobody "led tokens" there (BT-11)
            state.battle_round().leader_territory[plan.leader] = battle.territory
        if plan.kwisatz_haderach and karama_cancels(state, Advantage.KWISATZ_HADERACH, log):
            plan.kwisatz_haderach = False  # he does not fight beside the leader this time
        if plan.kwisatz_haderach:
            state.battle_round().kwisatz_haderach_territory = battle.territory
    what = {"leader": "BT attack", "trap": "Trap"}.get(battle.attack or "", "Battle")
    log.public(
        EventType.PLANS_REVEALED,
        f"{what} plans in {battle.territory}: " + "; ".join(
            f"{faction_name(s)}: {describe_plan(battle.plans[s])}" for s in (battle.aggressor, battle.defender)
        ) + ".",
        territory=battle.territory,
        plans={s.value: battle.plans[s].model_dump(mode="json") for s in (battle.aggressor, battle.defender)},
    )
    if not battle.attack:
        _announce_elites(state, battle, log)


def _announce_elites(state: GameState, battle: Battle, log: EventLog) -> None:
    """A-15: the Sardaukar and Fedaykin in the battle, and what each is worth in it (public: starred tokens)."""
    for side in (battle.aggressor, battle.defender):
        elites = sum(elites_at(state, loc, side) for loc in battle.locations)
        if elites:
            worth = elite_worth_in(battle, side)
            log.public(EventType.ELITE_TOKENS_FIGHT,
                       f"{elites} {elite_name(side)} fight for the {faction_name(side)} in "
                       f"{battle.territory}, each worth {worth} in the dial and in losses"
                       + (" (single: against the Fremen, or cancelled by Karama)" if worth == 1 else "")
                       + " (A-15).",
                       faction=side.value, elites=elites, worth=worth, territory=battle.territory)


# --- traitors --------------------------------------------------------------------------------


def _traitor_askers(state: GameState, battle: Battle) -> list[Faction]:
    """Both sides, and the Harkonnen when allied to a side (A-26: they may use their traitors for an ally)."""
    askers = [battle.aggressor, battle.defender]
    if state.in_game(Faction.HARKONNEN) and Faction.HARKONNEN not in askers and _helper_in(
            state, battle, Faction.HARKONNEN):
        askers.append(Faction.HARKONNEN)
    return askers


def _opposing_leader(state: GameState, battle: Battle, faction: Faction) -> str | None:
    side = _helper_in(state, battle, faction)
    if side is None:
        return None
    return battle.plans[side[1]].leader


def _can_call(state: GameState, battle: Battle, faction: Faction) -> bool:
    """A traitor card names the opposing leader; none works against one the Kwisatz Haderach accompanies."""
    leader = _opposing_leader(state, battle, faction)
    side = _helper_in(state, battle, faction)
    with_kh = side is not None and battle.plans[side[1]].kwisatz_haderach
    return leader is not None and leader in state.faction(faction).traitors and not with_kh


def traitor_options(state: GameState, battle: Battle, faction: Faction) -> list[str]:
    """A-13, A-26: "call" only for a side that holds the opposing leader's traitor card (the Harkonnen's for their
    ally too); every asker is asked all the same, and the options are the asker's secret, so being asked tells the
    table nothing."""
    return [CALL, NO_CALL] if _can_call(state, battle, faction) else [NO_CALL]


def _traitor_facts(state: GameState, battle: Battle, faction: Faction) -> dict[str, Any]:
    """What the traitor question is about, all public once the plans are revealed: the opposing side and its leader
    (None: a cheap hero or nobody), whether the Kwisatz Haderach is beside him, and the ally an asker speaks for."""
    side, opponent = required(_helper_in(state, battle, faction), "a side the asker fights on or helps")
    plan = battle.plans[opponent]
    return {"territory": battle.territory, "opponent": opponent.value, "leader": plan.leader,
            "kwisatz_haderach": plan.kwisatz_haderach, "ally": side.value if side != faction else None}


@handles(CallTraitor)
def call_traitor(state: GameState, action: CallTraitor, log: EventLog) -> None:
    take_prompt(state, action.faction, PromptKind.TRAITOR_CALL, "A-13")
    battle = state.current_battle()
    if action.call and not _can_call(state, battle, action.faction):
        side = _helper_in(state, battle, action.faction)
        if side is not None and battle.plans[side[1]].kwisatz_haderach:
            raise RuleViolation(ViolationCode.NOT_ALLOWED, "A-15", "The Kwisatz Haderach accompanies the leader "
                                "opposing you: no traitor can be called against that leader.", [NO_CALL])
        raise RuleViolation(ViolationCode.NOT_ALLOWED, "A-13",
                            "You hold no traitor card for the leader opposing you.", [NO_CALL])
    _record_traitor_answer(state, battle, action.faction, action.call, log)


def _record_traitor_answer(state: GameState, battle: Battle, faction: Faction, call: bool, log: EventLog,
                           by_order: bool = False) -> None:
    """The answer, by a click or by the standing order (A-13: "call" only with the traitor for the opposing
    leader): the table reads the same words either way."""
    battle.traitor_calls[faction] = call
    words = "call a traitor" if call else "call no traitor"
    log.private(EventType.TRAITOR_ANSWER,
                faction, f"{BY_STANDING_ORDER}, you {words}." if by_order else f"You {words}.",
                call=call)
    log.public(EventType.DECISION_MADE, f"{faction_does(faction, 'answered', start=True)} the traitor question.",
               faction=faction.value, kind=PromptKind.TRAITOR_CALL.value)


@handles(SetTraitorOrder)
def set_traitor_order(state: GameState, action: SetTraitorOrder, log: EventLog) -> None:
    """A secret standing order, changed at any time; "always" answers an open traitor question at once too."""
    faction = action.faction
    if faction == Faction.BENE_TLEILAXU:
        raise RuleViolation(ViolationCode.NOT_ALLOWED, "BT-1", "The Bene Tleilaxu have no traitor cards: they never "
                            "call a traitor (their traitors are revived leaders they mark and reveal, BT-20, BT-23).")
    state.faction(faction).auto_traitor = action.auto
    log.private(EventType.TRAITOR_ORDER, faction,
                "Traitors will be called automatically." if action.auto else "You will be asked about traitors.",
                auto=action.auto)
    if action.auto and state.prompt_of(faction, PromptKind.TRAITOR_CALL) is not None:
        take_prompt(state, faction, PromptKind.TRAITOR_CALL, "A-13")
        battle = state.current_battle()
        _record_traitor_answer(state, battle, faction, _can_call(state, battle, faction), log, by_order=True)


# --- resolution ------------------------------------------------------------------------------


def _betrayed(state: GameState, battle: Battle, side: Faction) -> Faction | None:
    """Who called a traitor on this side's leader, if anyone."""
    leader = battle.plans[side].leader
    for caller, called in battle.traitor_calls.items():
        if called and leader and _opposing_leader(state, battle, caller) == leader:
            return caller
    return None


def _resolve(state: GameState, battle: Battle, log: EventLog) -> None:
    a, d = battle.aggressor, battle.defender
    betrayed = {side: _betrayed(state, battle, side) for side in (a, d)}
    atreides_tanks = state.faction(Faction.ATREIDES).tanks if state.in_game(Faction.ATREIDES) else 0
    winner = None
    if betrayed[a] and betrayed[d]:
        _double_traitor(state, battle, log)
    elif betrayed[a] or betrayed[d]:
        victim = a if betrayed[a] else d
        winner = d if victim == a else a
        caller = required(betrayed[victim], "the traitor's caller")
        _traitor_win(state, battle, winner=winner, victim=victim, caller=caller, log=log)
    else:
        winner = _fight(state, battle, log)
    _pay_dialed_spice(state, battle, keepers=[side for side in (a, d) if betrayed[a if side == d else d]], log=log)
    if state.in_game(Faction.ATREIDES):
        _count_atreides_losses(state, state.faction(Faction.ATREIDES).tanks - atreides_tanks, log)
    if winner == Faction.HARKONNEN:
        offer_capture(state, d if winner == a else a, log)


def _pay_dialed_spice(state: GameState, battle: Battle, keepers: list[Faction], log: EventLog) -> None:
    """A-15 `advanced_combat`: the spice backing each dial goes to the bank after the battle; a side that won
    by revealing a traitor keeps its spice (GF9, the digest's only wording)."""
    for side in (battle.aggressor, battle.defender):
        amount = min(battle.plans[side].spice, state.faction(side).spice)
        if not amount or side in keepers:
            continue
        pay(state, side, amount, None, "A-15", "The spice dialed")
        log.public(EventType.COMBAT_SPICE_PAID, f"{faction_does(side, 'pay', start=True)}"
                                        f" the {amount} spice that backed their dial to "
                   "the bank (A-15 advanced combat).", faction=side.value, spice=amount, territory=battle.territory)


def _count_atreides_losses(state: GameState, lost: int, log: EventLog) -> None:
    """A-15: the Kwisatz Haderach awakens once the Atreides have lost 7 tokens in battles (a public count)."""
    kh = state.kwisatz_haderach
    if not lost or not state.setup.options.character_advantages:
        return
    kh.battle_losses += lost
    if not kh.active and kh.battle_losses >= KH_AWAKENING:
        kh.active = True
        log.public(EventType.KWISATZ_HADERACH_ACTIVATED,
                   f"The Atreides have lost {kh.battle_losses} tokens in battles: the "
                   "Kwisatz Haderach awakens. From now on he may go with an Atreides leader, adding 2 to his "
                   "strength, and no traitor can be called against that leader (A-13, A-15).",
                   losses=kh.battle_losses)


def _kill_leader(state: GameState, faction: Faction, leader: str) -> None:
    kill_leader(state, leader)  # into his own faction's tanks, even when he led for his captors


def _leader_total(plan: BattlePlan) -> int:
    """A-13: the leader's strength, +2 with the Kwisatz Haderach beside him."""
    return _leader_strength(plan) + (KH_BONUS if plan.kwisatz_haderach and plan.leader else 0)


def _doubled_dial(state: GameState, plan: BattlePlan) -> int:
    """Twice what the dial adds to the total: in advanced combat (A-15) each dialed token counts fully only
    when backed by 1 spice, else half."""
    if not state.setup.options.advanced_combat:
        return 2 * plan.dial
    return 2 * plan.spice + (plan.dial - plan.spice)


def _shown(doubled: int) -> int | float:
    return doubled // 2 if doubled % 2 == 0 else doubled / 2


def _lose_everything(state: GameState, battle: Battle, side: Faction) -> int:
    return sum(wipe_out(state, loc, side) for loc in battle.locations)


def _discard_played(state: GameState, battle: Battle, side: Faction) -> list[str]:
    """The losing side's played cards to the discard pile; returns them."""
    plan = battle.plans[side]
    played = [c for c in (plan.cheap_hero, plan.weapon, plan.defense) if c]
    state.treachery_discard += played
    return played


def _loser_words(loser: Faction, lost: int, played: list[str]) -> str:
    """What the loser loses, for the table: the cards only when they played any."""
    return f"{faction_does(loser, 'lose')} {counted(lost, 'token')}" + (" and the cards played" if played else "")


def _capitalised(sentence: str) -> str:
    return sentence[0].upper() + sentence[1:]


def _dial_words(winner: Faction, dial: int) -> str:
    """What the winner loses, for the table: the number dialed (A-13)."""
    return (f"{faction_does(winner, 'lose')} the {counted(dial, 'token')} dialed" if dial
            else f"{faction_does(winner, 'lose')} no tokens (a dial of 0)")


def _double_traitor(state: GameState, battle: Battle, log: EventLog) -> None:
    """A-13: both leaders traitors: both sides lose everything there and nobody is paid. Each call reveals its
    caller's traitor, as a single call does: the news names both."""
    sides = (battle.aggressor, battle.defender)
    # each leader was called a traitor: each side has the caller of its traitor and its leader
    betrayals = {side: (required(_betrayed(state, battle, side), "the traitor's caller"),
                        required(battle.plans[side].leader, "the betrayed leader")) for side in sides}
    traitors = dict(betrayals.values())
    for side in sides:
        _kill_leader(state, side, betrayals[side][1])
        _lose_everything(state, battle, side)
        _discard_played(state, battle, side)
    calls = " and ".join(f"{faction_does(caller, 'reveal')} {leader_name(leader)}"
                         for caller, leader in traitors.items())
    log.public(EventType.DOUBLE_TRAITOR,
               f"Both leaders in {battle.territory} are traitors: {calls}! Both sides lose every "
               "token and card there, both leaders die, and nobody is paid (A-13).", territory=battle.territory,
               traitors={caller.value: leader for caller, leader in traitors.items()})


def _traitor_win(state: GameState, battle: Battle, winner: Faction, victim: Faction, caller: Faction,
                 log: EventLog) -> None:
    """The caller's side wins outright, loses nothing; the traitor dies and the caller is paid his strength."""
    traitor = required(battle.plans[victim].leader, "the betrayed leader")
    strength = load_game_data().leader(traitor).strength
    _kill_leader(state, victim, traitor)
    lost = _lose_everything(state, battle, victim)
    played = _discard_played(state, battle, victim)
    plan = battle.plans[winner]
    state.faction(winner).hand += [c for c in (plan.cheap_hero, plan.weapon, plan.defense) if c]
    bank_pays(state, caller, strength)
    record_victory(state, battle, winner)
    log.public(
        EventType.TRAITOR_CALLED,
        f"{faction_does(caller, 'reveal', start=True)} {leader_name(traitor)} as a traitor! "
        f"{faction_does(winner, 'win', start=True)} in {battle.territory}; {_loser_words(victim, lost, played)}; "
        f"{faction_does(caller, 'receive')} {strength} spice.",
        caller=caller.value, traitor=traitor, winner=winner.value, loser=victim.value, territory=battle.territory,
    )


def _leader_strength(plan: BattlePlan) -> int:
    return load_game_data().leader(plan.leader).strength if plan.leader else 0


def _fight(state: GameState, battle: Battle, log: EventLog) -> Faction | None:
    """The battle fought out; returns the winner (None after an explosion)."""
    a, d = battle.aggressor, battle.defender
    plans = {a: battle.plans[a], d: battle.plans[d]}
    weapons = [category(p.weapon) for p in plans.values() if p.weapon]
    shields = [category(p.defense) for p in plans.values() if p.defense]
    if CardCategory.LASGUN in weapons and CardCategory.SHIELD in shields:
        _explosion(state, battle, log)
        return None
    opponent = {a: d, d: a}
    killed = {side: weapon_kills(plans[opponent[side]].weapon, plans[side].defense) for side in (a, d)}
    doubled = {side: _doubled_dial(state, plans[side]) + (0 if killed[side] else 2 * _leader_total(plans[side]))
               for side in (a, d)}
    totals = {side: _shown(doubled[side]) for side in (a, d)}
    winner = a if doubled[a] >= doubled[d] else d  # ties go to the aggressor
    loser = opponent[winner]
    paid = 0
    for side in (a, d):
        leader = plans[side].leader
        if killed[side] and leader:
            _kill_leader(state, side, leader)
            paid += _leader_strength(plans[side])  # every leader killed, his own included
    lost = _lose_everything(state, battle, loser)
    played = _discard_played(state, battle, loser)
    elites_lost = _pay_dial(state, battle, winner, plans[winner].dial)
    record_victory(state, battle, winner)
    kept = _winner_cards(state, winner, plans[winner])
    if paid:
        bank_pays(state, winner, paid)
    dead = [leader_name(leader) for s in (a, d) if killed[s] and (leader := plans[s].leader)]
    log.public(
        EventType.BATTLE_WON,
        f"{faction_does(winner, 'win', start=True)} in {battle.territory}, {totals[winner]} to {totals[loser]}"
        + (" (the aggressor wins ties)" if totals[a] == totals[d] else "") + ". "
        + (f"Killed: {', '.join(dead)}; {faction_does(winner, 'receive')} {paid} spice. " if dead else "")
        + _capitalised(f"{_loser_words(loser, lost, played)}; {_dial_words(winner, plans[winner].dial)}")
        + (f" and {agreeing(winner, 'keep')} {', '.join(card_name(c) for c in kept)}" if kept else "")
        + ".",
        territory=battle.territory, winner=winner.value, loser=loser.value, totals={s.value: totals[s] for s in (a, d)},
        killed=[plans[s].leader for s in (a, d) if killed[s] and plans[s].leader], paid=paid,
        elites_lost=elites_lost,
    )
    return winner


def _pay_dial(state: GameState, battle: Battle, winner: Faction, dial: int) -> int:
    """The winner loses exactly the number dialed, taken from its tokens there: regular tokens first, then
    elites, each covering 2 of the dial (A-15; a Sardaukar covers 1 against the Fremen). Returns the elites
    lost."""
    worth = elite_worth_in(battle, winner)
    elites_lost = 0
    for loc in battle.locations:
        regular, elites = loss_plan(state, loc, winner, worth, dial)
        if regular or elites:
            send_to_tanks(state, loc, winner, regular + elites, elites=elites)
            dial -= regular + elites * worth
            elites_lost += elites
        if dial <= 0:
            break
    return elites_lost


def _winner_cards(state: GameState, winner: Faction, plan: BattlePlan) -> list[str]:
    """The winner keeps weapon and defense; worthless cards and a cheap hero are discarded."""
    kept = []
    for card in (plan.cheap_hero, plan.weapon, plan.defense):
        if not card:
            continue
        if category(card) in (CardCategory.WORTHLESS, CardCategory.CHEAP_HERO):
            state.treachery_discard.append(card)
        else:
            state.faction(winner).hand.append(card)
            kept.append(card)
    return kept


def _explosion(state: GameState, battle: Battle, log: EventLog) -> None:
    """Lasgun and shield: every token and all spice in the territory, both leaders, all played cards; no
    winner and nobody paid."""
    for side in (battle.aggressor, battle.defender):
        leader = battle.plans[side].leader
        if leader:
            _kill_leader(state, side, leader)
        _discard_played(state, battle, side)
        if battle.plans[side].kwisatz_haderach:  # the only way he dies
            state.kwisatz_haderach.dead = True
            log.public(EventType.KWISATZ_HADERACH_KILLED,
                       "The Kwisatz Haderach dies in the explosion; he may be revived "
                       "like a leader (A-15).", territory=battle.territory)
    lost = advisors = 0
    for loc in load_game_data().board.territory(battle.territory).locations:
        tokens, advisors_here = destroy_every_token(state, loc)  # co-existing advisors too
        lost, advisors = lost + sum(tokens.values()) + advisors_here, advisors + advisors_here
        remove_spice(state, loc)
    log.public(EventType.EXPLOSION, f"Explosion in {battle.territory}, a lasgun against a shield: everything there is "
               f"destroyed ({counted(lost, 'token')}{advisors_among(advisors)}, both leaders, all spice); nobody "
               "wins and nobody is paid.", territory=battle.territory, advisors=advisors)


# --- defaults and automatic players ----------------------------------------------------------


def _minimal_plan(state: GameState, battle: Battle, faction: Faction) -> BattlePlan:
    """The weakest legal plan: the weakest leader (or a cheap hero), the lowest dial, the fewest cards (none unless
    something binds the side to one); the BT's attack fills its weapon slot with a real weapon before a worthless
    card (R-34, BT-16)."""
    shape = plan_shape(state, battle, faction)
    data = load_game_data()
    plan = BattlePlan(dial=shape["min_dial"])
    if shape["leaders"]:
        plan.leader = min(shape["leaders"], key=lambda leader: data.leader(leader).strength)
    elif shape["cheap_heroes"]:
        plan.cheap_hero = shape["cheap_heroes"][0]

    def weight(pair: list[str | None]) -> tuple[int, bool]:
        weapon = pair[0]
        return (sum(card is not None for card in pair),
                bool(battle.attack) and weapon is not None and category(weapon) == CardCategory.WORTHLESS)

    plan.weapon, plan.defense = min(shape["card_pairs"], key=weight)  # the first of the lightest: weapon slot first
    return plan


def _plan_action(state: GameState, faction: Faction, plan: BattlePlan, battle: Battle | None) -> SubmitBattlePlan:
    """The action for a plan; a BT attack with a worthless card and no weapon names an impairment when the
    impairers are on (BT-16)."""
    impair = None
    if battle is not None and bt_attack.impairment_wanted(state, battle, faction, plan.weapon):
        impair = "no_moving"
    return SubmitBattlePlan(faction=faction, impair=impair, **plan.model_dump())


@default_for(PromptKind.BATTLE_PLAN)
def _default_plan(state: GameState, prompt: Prompt) -> SubmitBattlePlan:
    battle = state.current_battle()
    return _plan_action(state, prompt.faction, _minimal_plan(state, battle, prompt.faction), battle)


@sampler_for(PromptKind.BATTLE_PLAN)
def _sample_plan(state: GameState, prompt: Prompt, rng: Rng) -> SubmitBattlePlan:
    """A random plan among those the prompt offers (engine/phases/battle_plans.py `plan_shape`)."""
    shape = prompt.detail
    plan = BattlePlan(dial=shape["min_dial"] + rng.below(shape["max_dial"] - shape["min_dial"] + 1))
    heads = shape["leaders"] + shape["cheap_heroes"]
    if heads:
        head = rng.choice(heads)
        plan.leader, plan.cheap_hero = (None, head) if head in shape["cheap_heroes"] else (head, None)
        plan.kwisatz_haderach = bool(plan.leader and shape["kwisatz_haderach"] and rng.below(4))
    plan.weapon, plan.defense = rng.choice(shape["card_pairs"])
    backing = min(plan.dial, shape["max_spice"])
    plan.spice = rng.below(backing + 1) if backing else 0  # A-15 `advanced_combat`
    impair = rng.choice(shape["impairments"]) if plan.weapon in shape["impairing"] else None  # BT-16
    return SubmitBattlePlan(faction=prompt.faction, impair=impair, **plan.model_dump())


@default_for(PromptKind.BATTLE_CHOICE)
def _default_choice(state: GameState, prompt: Prompt) -> ChooseBattle:
    """The first battle offered that is still there (a BT betrayal may have taken one since, BT-23)."""
    still = {_choice_key(t, o) for t, _, o in _choices(state, prompt.faction)}
    territory, opponent = next((o for o in prompt.options if o in still), prompt.options[0]).split("|")
    return ChooseBattle(faction=prompt.faction, territory=territory, opponent=Faction(opponent))


@sampler_for(PromptKind.BATTLE_CHOICE)
def _sample_choice(state: GameState, prompt: Prompt, rng: Rng) -> ChooseBattle:
    territory, opponent = rng.choice(prompt.options).split("|")
    return ChooseBattle(faction=prompt.faction, territory=territory, opponent=Faction(opponent))


@default_for(PromptKind.PRESCIENCE)
def _default_prescience(state: GameState, prompt: Prompt) -> AskPrescience:
    return AskPrescience(faction=prompt.faction)


@sampler_for(PromptKind.PRESCIENCE)
def _sample_prescience(state: GameState, prompt: Prompt, rng: Rng) -> AskPrescience:
    choice = rng.choice(prompt.options)
    return AskPrescience(faction=prompt.faction, element=None if choice == NONE else choice)


@default_for(PromptKind.PRESCIENCE_ANSWER)
def _default_answer(state: GameState, prompt: Prompt) -> AnswerPrescience:
    """Answer with what the minimal plan would play, so the binding answer leaves a legal plan."""
    battle = state.current_battle()
    plan = _minimal_plan(state, battle, prompt.faction)
    return AnswerPrescience(faction=prompt.faction, answer=plan_element(plan, prompt.detail["element"]))


@sampler_for(PromptKind.PRESCIENCE_ANSWER)
def _sample_answer(state: GameState, prompt: Prompt, rng: Rng) -> AnswerPrescience:
    options = _answer_options(state, state.current_battle(), prompt.faction, prompt.detail["element"])
    return AnswerPrescience(faction=prompt.faction, answer=rng.choice(options))


@default_for(PromptKind.VOICE)
def _default_voice(state: GameState, prompt: Prompt) -> UseVoice:
    return UseVoice(faction=prompt.faction)


@sampler_for(PromptKind.VOICE)
def _sample_voice(state: GameState, prompt: Prompt, rng: Rng) -> UseVoice:
    choice = rng.choice(prompt.options)
    if choice == NONE:
        return UseVoice(faction=prompt.faction)
    command, category_name = choice.split(":", 1)
    return UseVoice(faction=prompt.faction, command=command, category=category_name)


@default_for(PromptKind.TRAITOR_CALL)
def _default_traitor_call(state: GameState, prompt: Prompt) -> CallTraitor:
    return CallTraitor(faction=prompt.faction, call=False)


@sampler_for(PromptKind.TRAITOR_CALL)
def _sample_traitor_call(state: GameState, prompt: Prompt, rng: Rng) -> CallTraitor:
    """Random players call whenever they can, so traitors show up in random games."""
    return CallTraitor(faction=prompt.faction, call=_can_call(state, state.current_battle(), prompt.faction))


def cards_on_the_table(state: GameState) -> list[str]:
    """Cards revealed in the battle being resolved: out of the hands, not yet discarded or taken back."""
    battle = state.battle.current if state.battle else None
    if battle is None:
        return []
    if battle.step != TRAITORS:
        return [battle.trap_card] if battle.trap_card else []  # a sprung trap's card, off the board (BT-32)
    return [c for plan in battle.plans.values() for c in (plan.cheap_hero, plan.weapon, plan.defense) if c]
