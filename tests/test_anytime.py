"""engine/rules/anytime.py: what a faction may do at any time, outside its open decisions.

Over positions of random games (every option on, and the default game; each faction given a card played at any
time when its hand has room) the list is checked both ways: every combination of legal parts it offers is
accepted by `apply`, and every any-time action that `apply` accepts and that takes effect (a broad sample, built
from the rules' words: every card, target, leader, territory and amount) is on the list. Then the list of one
faction does not change when another faction's secrets do, and rules tests for the moments the rules name.
"""

from __future__ import annotations

import itertools
from functools import partial

import pytest

from engine.actions import (
    Action,
    BreakAlliance,
    GiveAllySpice,
    GiveBribe,
    KaramaDestroyTrap,
    KaramaTaxBt,
    PlayGhola,
    PlayHajr,
    PlayTruthtrance,
    RevealBtTraitor,
    SetAdvisorOrder,
    SetBidOrder,
    SetCoexistence,
    SetGuildTimingOrder,
    SetOutbidOrder,
    SetRevivalOrder,
    SetSpiceWinOrder,
    SetStormCardOrder,
    SetTraitorOrder,
    UseKarama,
    UseSpecialKarama,
)
from engine.data import load_game_data
from engine.errors import RuleViolation
from engine.flow import DEFAULTS
from engine.game import apply
from engine.ids import Faction
from engine.model import Battle, BattlePlan, BattleState, BattleVictory, GameState, KaramaOrder, Phase, PromptKind
from engine.phases.spice_blow import sand_territories
from engine.rng import Rng
from engine.rules.anytime import (
    BID_LIMIT_OFFERED,
    Amount,
    AnytimeChoice,
    AnytimeKind,
    Pick,
    Text,
    anytime_action,
    anytime_choice,
    anytime_choices,
)
from engine.rules.karama import OWNER, Advantage
from tests.conftest import BG, BT, A, E, F, G, H, ready_game, refused
from tests.helpers.positions.anytime import QUESTIONS, holding, others_secrets_changed, positions

COMBINATIONS = 6  # combinations of parts tried per choice and position (a sample when there are more)
CANDIDATES = 30  # any-time actions tried per faction and position in the completeness test


def _values(part, rng: Rng) -> list:
    if isinstance(part, Pick):
        return list(part.options)
    if isinstance(part, Amount):
        return sorted({part.low, part.high, part.low + rng.below(part.high - part.low + 1)})
    return list(QUESTIONS)


def combinations(choice: AnytimeChoice, rng: Rng, most: int | None = COMBINATIONS) -> list[dict]:
    """Combinations of the choice's parts (amounts at both ends and one between): all, or a sample of `most`."""
    every = [dict(zip([p.name for p in choice.parts], values, strict=True))
             for values in itertools.product(*(_values(p, rng) for p in choice.parts))]
    if most is None or len(every) <= most:
        return every
    rng.shuffle(every)
    return every[:most]


def test_the_positions_show_every_kind_of_choice():
    kinds = {c.kind for state in positions() for f in state.factions for c in anytime_choices(state, f)}
    assert kinds == set(AnytimeKind)


def test_every_choice_listed_is_accepted():
    rng = Rng.from_seed(7)
    tried = 0
    for state in positions()[::3]:
        for faction in state.factions:
            for choice in anytime_choices(state, faction):
                for values in combinations(choice, rng):
                    action = anytime_action(faction, choice.kind, values)
                    try:
                        apply(state, action)
                    except RuleViolation as refusal:
                        pytest.fail(f"turn {state.turn} {state.phase.value}: {action!r} refused: {refusal}")
                    tried += 1
    assert tried > 1000


# --- nothing accepted is missing ---------------------------------------------------------------------------


def candidates(state: GameState, faction: Faction) -> list[partial]:
    """Any-time actions as the rules name them, whether legal now or not: every card of the hand in every use,
    every faction, leader, stronghold and territory, amounts around the faction's spice (each made when called:
    only a sample of them is tried)."""
    data = load_game_data()
    hand, spice = state.faction(faction).hand, state.faction(faction).spice
    others = [f for f in state.factions if f != faction]
    every_leader = [leader.id for fd in data.factions.values() for leader in fd.leaders]
    dead = state.faction(faction).leaders_in_tanks
    board = data.board
    territories = sorted({board.location_territory(loc) for loc in (*state.forces, *state.bg_advisors)})
    made = partial
    found = [made(PlayHajr, faction=faction), made(SetBidOrder, faction=faction),
             made(SetBidOrder, faction=faction, auto_pass=True)]
    found += [made(SetTraitorOrder, faction=faction, auto=yes) for yes in (True, False)]
    found += [made(SetStormCardOrder, faction=faction, never=yes) for yes in (True, False)]
    found += [made(SetOutbidOrder, faction=faction, pass_when_outbid=yes) for yes in (True, False)]
    found += [made(SetRevivalOrder, faction=faction, free_tokens=yes) for yes in (True, False)]
    found += [made(SetGuildTimingOrder, faction=faction, storm_order=yes) for yes in (True, False)]
    found += [made(SetAdvisorOrder, faction=faction, order=order) for order in ("polar_sink", "never", "ask")]
    found += [made(SetSpiceWinOrder, faction=faction, declare=yes) for yes in (True, False)]
    found += [made(SetBidOrder, faction=faction, max_bid=n) for n in (1, BID_LIMIT_OFFERED)]
    for card in hand:
        found += [made(UseKarama, faction=faction, card=card, against=owner, advantage=a.value)
                  for a, owner in OWNER.items()]
        found += [made(KaramaTaxBt, faction=faction, card=card)]
        found += [made(KaramaDestroyTrap, faction=faction, card=card, stronghold=s) for s in board.strongholds]
        found += special_karama_candidates(faction, card, others, dead)
    found += [made(PlayGhola, faction=faction, tokens=n) for n in range(1, 6)]
    found += [made(PlayGhola, faction=faction, leader=leader) for leader in dead]
    found += [made(PlayTruthtrance, faction=faction, target=f, question=QUESTIONS[0]) for f in others]
    found += [made(RevealBtTraitor, faction=faction, leader=leader) for leader in every_leader]
    found += [made(SetCoexistence, faction=faction, territory=t, advisors=way) for t in territories
              for way in (True, False)]
    for to in others:
        found += [made(GiveBribe, faction=faction, to=to, amount=n) for n in {1, max(spice, 1), spice + 1}]
        found += [made(GiveAllySpice, faction=faction, to=to, amount=n) for n in {1, max(spice, 1), spice + 1}]
    return found


def special_karama_candidates(faction: Faction, card: str, others: list[Faction], dead: list[str]) -> list[partial]:
    """Each power in the shape A-14 gives it: the Atreides name nothing, the Emperor tokens or a leader, the Fremen a
    territory, the Guild and the Harkonnen a faction."""
    use = partial(UseSpecialKarama, faction=faction, card=card)
    if faction == A:
        return [use]
    if faction == E:
        return [partial(use, tokens=n) for n in (1, 2, 3)] + [partial(use, leader=leader) for leader in dead]
    if faction == F:
        return [partial(use, territory=t) for t in sand_territories()]
    return [partial(use, target=f) for f in others]


TYPED = ("amount", "max_bid", "question")  # the action fields an Amount or a Text part fills


def listing(faction: Faction, choices: list[AnytimeChoice]) -> dict[str, list[dict]]:
    """Every action the choices make, without its typed fields (as JSON), with the typed parts that go with it."""
    made: dict[str, list[dict]] = {}
    for choice in choices:
        picks = [p for p in choice.parts if isinstance(p, Pick)]
        typed = {p.name: p for p in choice.parts if not isinstance(p, Pick)}
        for values in itertools.product(*(p.options for p in picks)):
            chosen = dict(zip([p.name for p in picks], values, strict=True))
            chosen |= {name: (part.low if isinstance(part, Amount) else QUESTIONS[0]) for name, part in typed.items()}
            action = anytime_action(faction, choice.kind, chosen)
            made.setdefault(action.model_dump_json(exclude=set(TYPED)), []).append(typed)
    return made


def listed(action: Action, made: dict[str, list[dict]]) -> bool:
    """Whether the listing makes this action, its amount or text within the limits of the part."""
    return any(all(_fits(part, getattr(action, name)) for name, part in typed.items())
               for typed in made.get(action.model_dump_json(exclude=set(TYPED)), []))


def _fits(part, value) -> bool:
    if isinstance(part, Amount):
        return part.low <= value <= part.high
    assert isinstance(part, Text)
    return 1 <= len(value.strip()) <= part.max_length


def takes_effect(action: Action, events) -> bool:
    """Whether an accepted action does what it is for: a BT reveal to no effect (R-8) is legal but spends the
    secret for nothing, so the list leaves it out (issue 25 item 10)."""
    return not isinstance(action, RevealBtTraitor) or any(e.data.get("effect") for e in events
                                                           if e.type == "bt_traitor_revealed")


def test_every_anytime_action_accepted_is_listed():
    """Every any-time action the rules accept and that takes effect is on the list."""
    rng = Rng.from_seed(11)
    accepted = 0
    for state in positions()[1::3]:
        for faction in state.factions:
            made = listing(faction, anytime_choices(state, faction))
            pool = candidates(state, faction)
            rng.shuffle(pool)
            for make in pool[:CANDIDATES]:
                action = make()
                try:
                    _, events = apply(state, action)
                except RuleViolation:
                    continue
                if not takes_effect(action, events):
                    continue
                accepted += 1
                assert listed(action, made), f"turn {state.turn} {state.phase.value}: {action!r} is accepted but " \
                                             "not listed"
    assert accepted > 300


# --- secrets ----------------------------------------------------------------------------------------------


def test_another_factions_secrets_never_change_the_list():
    rng = Rng.from_seed(3)
    for state in positions()[::3]:
        for faction in state.factions:
            changed = others_secrets_changed(state, faction, rng)
            assert anytime_choices(changed, faction) == anytime_choices(state, faction)


# --- the moments the rules name -----------------------------------------------------------------------------


def kinds(state: GameState, faction: Faction) -> set[AnytimeKind]:
    return {c.kind for c in anytime_choices(state, faction)}


def test_standing_orders_are_always_there_and_the_spice_win_order_is_the_bts():
    state = ready_game()
    orders = {AnytimeKind.BID_ORDER, AnytimeKind.BID_LIMIT, AnytimeKind.TRAITOR_ORDER}
    assert kinds(state, A) >= orders and AnytimeKind.SPICE_WIN_ORDER not in kinds(state, A)
    bt_orders = kinds(state, BT)
    assert bt_orders >= orders - {AnytimeKind.TRAITOR_ORDER} | {AnytimeKind.SPICE_WIN_ORDER}
    # BT-1: no traitor cards, so no traitor-call order (issue 25 item 12), and the order is refused in words
    assert AnytimeKind.TRAITOR_ORDER not in bt_orders
    refusal = refused(state, SetTraitorOrder(faction=BT, auto=True), "BT-1")
    assert refusal.message.startswith("The Bene Tleilaxu have no traitor cards: they never call a traitor")


def test_nothing_once_the_game_is_over():
    state = ready_game()
    state.phase = Phase.ENDED
    assert anytime_choices(state, A) == []


def test_a_14_karama_names_a_card_of_the_hand_and_the_advantages_of_the_factions_in_play():
    state = ready_game(factions=(A, H, F))
    holding(state, A, "karama_1", "karama_2")
    choice = anytime_choice(state, A, AnytimeKind.KARAMA)
    assert choice.part("card").options == ["karama_1", "karama_2"]
    advantages = choice.part("advantage").options
    assert {OWNER[Advantage(a)] for a in advantages} == {H, F}  # not their own, not absent
    assert "worm_placement" not in advantages  # a character advantage, and the option is off
    state.karama_orders.append(KaramaOrder(faction=A, card="karama_1", advantage="extra_card"))
    assert anytime_choice(state, A, AnytimeKind.KARAMA).part("card").options == ["karama_2"]


def test_a_14_a_card_readied_for_a_special_power_is_not_readied_again():
    state = ready_game(factions=(A, H, F), special_karama_powers=True)
    holding(state, F, "karama_1")
    state, _ = apply(state, UseSpecialKarama(faction=F, card="karama_1", territory="The Great Flat"))
    assert AnytimeKind.KARAMA not in kinds(state, F)
    refused(state, UseKarama(faction=F, card="karama_1", against=H, advantage="extra_card"), rule="A-14")


def test_bt_51_karama_against_the_bt_taxes_them_or_destroys_an_untriggered_trap():
    state = ready_game()
    holding(state, H, "karama_1")
    assert anytime_choice(state, H, AnytimeKind.KARAMA_TAX_BT).part("card").options == ["karama_1"]
    untriggered = [s for s, t in state.traps.items() if t.triggered_by is None]
    trap = anytime_choice(state, H, AnytimeKind.KARAMA_DESTROY_TRAP)
    assert untriggered and trap.part("stronghold").options == untriggered
    holding(state, BT, "karama_2")
    assert not kinds(state, BT) & {AnytimeKind.KARAMA_TAX_BT, AnytimeKind.KARAMA_DESTROY_TRAP}


def test_hajr_only_while_the_factions_own_move_is_decided():
    state = ready_game(factions=(A, H, F))
    holding(state, H, "hajr")
    assert AnytimeKind.HAJR not in kinds(state, H)
    for _ in range(400):  # on to the movement round, answering with defaults
        mover = next((p for p in state.prompts if p.kind == PromptKind.MOVEMENT), None)
        if mover is not None:
            break
        prompt = state.prompts[0]
        state, _ = apply(state, DEFAULTS[prompt.kind](state, prompt))
    assert (AnytimeKind.HAJR in kinds(state, H)) == (mover.faction == H)
    assert not any(AnytimeKind.HAJR in kinds(state, f) for f in state.factions if f != mover.faction)


def test_ghola_offers_a_leader_in_the_tanks_or_up_to_5_tokens_and_nothing_in_battle():
    state = ready_game(factions=(A, H, F))
    holding(state, A, "tleilaxu_ghola")
    fs = state.faction(A)
    fs.tanks, fs.reserves = 3, fs.reserves - 3
    fs.leaders_in_tanks = ["duncan_idaho"]
    assert anytime_choice(state, A, AnytimeKind.GHOLA).part("revive").options == [
        "leader:duncan_idaho", "tokens:1", "tokens:2", "tokens:3"]
    state.battle = BattleState(current=Battle(territory="Arrakeen", locations=["Arrakeen"], aggressor=H, defender=F))
    assert AnytimeKind.GHOLA not in kinds(state, A)


def test_truthtrance_names_a_faction_not_already_owing_an_answer():
    state = ready_game(factions=(A, H, F))
    holding(state, A, "truthtrance_1")
    holding(state, H, "truthtrance_2")
    choice = anytime_choice(state, A, AnytimeKind.TRUTHTRANCE)
    assert choice.part("target").options == ["harkonnen", "fremen"]
    assert choice.part("question") == Text(name="question", max_length=300)
    state, _ = apply(state, PlayTruthtrance(faction=H, target=F, question="Will you ship?"))
    assert anytime_choice(state, A, AnytimeKind.TRUTHTRANCE).part("target").options == ["harkonnen"]


def test_bt_23_a_marked_leader_is_revealed_when_it_takes_effect_unless_his_faction_is_fighting():
    state = ready_game()
    duncan = "duncan_idaho"
    state.bt.marked = [duncan]
    assert AnytimeKind.BT_REVEAL not in kinds(state, BT)  # he won nothing: the reveal could have no effect
    state.forces["Arrakeen#9"] = {A: 10}
    state.victories = [BattleVictory(territory="Arrakeen", faction=A, leader=duncan, stronghold=True)]
    assert anytime_choice(state, BT, AnytimeKind.BT_REVEAL).part("leader").options == [duncan]
    state.battle = BattleState(current=Battle(territory="Arrakeen", locations=["Arrakeen"], aggressor=A, defender=H))
    assert AnytimeKind.BT_REVEAL not in kinds(state, BT)
    state.battle = None
    state.faction(A).leaders_in_tanks.append(duncan)  # BT-22: a mark dies with its leader
    assert AnytimeKind.BT_REVEAL not in kinds(state, BT)


def test_a_14_the_atreides_see_the_plan_once_the_opponents_is_in_and_before_theirs():
    state = ready_game(factions=(A, H, F), special_karama_powers=True)
    holding(state, A, "karama_1")
    battle = Battle(territory="Arrakeen", locations=["Arrakeen"], aggressor=A, defender=H, step="plans")
    state.battle = BattleState(current=battle)
    assert AnytimeKind.SPECIAL_KARAMA not in kinds(state, A)
    battle.plans[H] = BattlePlan(dial=1)
    assert anytime_choice(state, A, AnytimeKind.SPECIAL_KARAMA).parts == [Pick(name="card", options=["karama_1"])]
    battle.plans[A] = BattlePlan(dial=1)
    assert AnytimeKind.SPECIAL_KARAMA not in kinds(state, A)


def test_a_14_special_powers_aim_where_they_may():
    state = ready_game(factions=(A, H, F, G, E, BT), special_karama_powers=True)
    for faction, card in ((G, "karama_1"), (H, "karama_2")):
        holding(state, faction, card)
    guild = anytime_choice(state, G, AnytimeKind.SPECIAL_KARAMA).part("target").options
    assert set(guild) == {A.value, H.value, E.value}  # not the Fremen (no shipment from off-planet), not the BT
    holding(state, E)
    harkonnen = anytime_choice(state, H, AnytimeKind.SPECIAL_KARAMA).part("target").options
    assert E.value not in harkonnen and BT.value not in harkonnen  # no cards to take; R-27


def test_a_16_a_bribe_goes_to_another_faction_from_the_spice_held_and_a_26_the_emperors_to_an_ally():
    state = ready_game(factions=(A, H, E))
    state.faction(E).spice = 7
    bribe = anytime_choice(state, E, AnytimeKind.BRIBE)
    assert bribe.part("to").options == ["atreides", "harkonnen"]
    assert bribe.part("amount") == Amount(name="amount", low=1, high=7)
    assert AnytimeKind.ALLY_SPICE not in kinds(state, E)
    state.alliances = [[E, H]]
    assert anytime_choice(state, E, AnytimeKind.ALLY_SPICE).part("to").options == ["harkonnen"]
    assert AnytimeKind.ALLY_SPICE not in kinds(state, H)
    state.faction(E).spice = 0
    assert not kinds(state, E) & {AnytimeKind.BRIBE, AnytimeKind.ALLY_SPICE}


def test_a_8_an_alliance_is_never_broken_outside_a_nexus():
    """A-8: formed and broken only at a Nexus, which is a decision of its own; nothing here breaks one."""
    state = ready_game(factions=(A, H, E))
    state.alliances = [[E, H]]
    refused(state, BreakAlliance(faction=H), rule="A-8")
    assert all(anytime_action(H, c.kind, values).type != "break_alliance"
               for c in anytime_choices(state, H) for values in combinations(c, Rng.from_seed(1)))


def test_a_15_coexistence_in_the_bene_gesserits_own_movement_turn():
    state = ready_game(factions=(A, BG, F), character_advantages=True)
    assert AnytimeKind.COEXISTENCE not in kinds(state, BG)
    for _ in range(400):
        if any(p.kind in (PromptKind.SHIPMENT, PromptKind.MOVEMENT) for p in state.prompts_for(BG)):
            break
        prompt = next(p for p in state.prompts if p.faction != BG or p.kind not in (PromptKind.SHIPMENT,))
        state, _ = apply(state, DEFAULTS[prompt.kind](state, prompt))
    state.add_tokens("The Great Flat#14", BG, 2)
    state.faction(BG).reserves -= 2
    changes = anytime_choice(state, BG, AnytimeKind.COEXISTENCE).part("change").options
    assert "advisors:The Great Flat" in changes and all(c.split(":")[0] in ("advisors", "fighters") for c in changes)
    after, _ = apply(state, anytime_action(BG, AnytimeKind.COEXISTENCE, {"change": "advisors:The Great Flat"}))
    assert after.bg_advisors == {"The Great Flat#14": 2}
    assert "fighters:The Great Flat" in anytime_choice(after, BG, AnytimeKind.COEXISTENCE).part("change").options


def test_a_15_the_ghola_offers_no_more_tokens_than_may_come_back_this_turn():
    """One elite token a turn (A-15): with only Fedaykin in the tanks, the Ghola may bring back one of them."""
    state = ready_game(factions=(A, F, H), character_advantages=True)
    holding(state, F, "tleilaxu_ghola")
    fs = state.faction(F)
    fs.tanks, fs.elite_tanks, fs.reserves = 3, 3, fs.reserves - 3
    assert anytime_choice(state, F, AnytimeKind.GHOLA).part("revive").options == ["tokens:1"]
    refused(state, PlayGhola(faction=F, tokens=2), rule="A-15")
    assert apply(state, PlayGhola(faction=F, tokens=1)).state.faction(F).tanks == 2
