"""The form of each kind of decision (bot/discord/form_core.py), and `form_for`, which finds a decision's form.

Discord-free (components.py renders a form as buttons or select menus). A form is built from the prompt alone,
as `engine.flow.legal_choices` returns it: its options and its details, read through the kind's model
(`details_of`: the battle plan's leaders, cards and dial, the BT's hand and receivers...). The engine checks the
full rule again on submission; a form only offers what the prompt says is legal and assembles the typed action.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from typing import Any

from bot.discord.form_core import Choice, Field, Form
from bot.discord.turn_forms import TURN_FORMS
from engine.actions import (
    Action,
    AnswerPrescience,
    AnswerRevealKarama,
    AnswerRevealWindow,
    AskPrescience,
    CallTraitor,
    ChooseBattle,
    ChooseBtAttack,
    ChooseBtImpairment,
    ChooseTraitor,
    DialStorm,
    GrantAllyRevival,
    LayTraps,
    MarkBtTraitor,
    PlayStormCards,
    PredictWinner,
    ReturnCards,
    SubmitBattlePlan,
    TrapsAndGifts,
    UseVoice,
)
from engine.data import load_game_data
from engine.factions.bt_bidding import BtTrapsAndGiftsDetails
from engine.factions.bt_impairments import NO_MOVING, NO_SHIPPING
from engine.factions.bt_reveal_karama import CANCEL, LET_IT_STAND, BtRevealKaramaDetails
from engine.factions.bt_traitors import NO, PASS
from engine.factions.special_karama_powers import HandSwapDetails
from engine.flow import details_of
from engine.ids import Faction
from engine.model import Prompt, PromptKind
from engine.names import card_name, faction_name, leader_name
from engine.phases.battle import CALL, NO_CALL, BattlePlanDetails, PrescienceAnswerDetails, TraitorCallDetails
from engine.phases.battle_plans import NONE
from engine.phases.bt_attack import DECLINE, BtAttackDetails, BtImpairmentDetails
from engine.phases.revival import GRANT, REFUSE, BtAllyRevivalDetails
from engine.phases.setup import BgPredictionDetails, BtTrapsDetails
from engine.rules.cards import FAMILY_ATOMICS, WEATHER_CONTROL, StormCardsDetails

NOTHING = ""  # a menu's "no weapon", "no defense", "keep the card"...: None in a refined form means "not chosen"


def _leader(leader_id: str) -> str:
    try:
        return leader_name(leader_id)
    except (KeyError, LookupError):
        return leader_id


def _strong(leader_id: str) -> str:
    """"Feyd-Rautha (strength 6)": a leader and his strength, for a battle plan."""
    try:
        return f"{leader_name(leader_id)} (strength {load_game_data().leader(leader_id).strength})"
    except (KeyError, LookupError):
        return leader_id


def _card(card_id: str) -> str:
    try:
        return card_name(card_id)
    except (KeyError, LookupError):
        return card_id


def _single(prompt: Prompt, name: str, choices: list[Choice], build: Callable[[Faction, Any], Action]) -> Form:
    return Form(prompt, (Field(name, tuple(choices)),), lambda faction, values: build(faction, values[0]))


# --- one-choice decisions ---------------------------------------------------------------------------


def _traitor_pick(prompt: Prompt) -> Form:
    return _single(prompt, "Traitor", [Choice(_leader(o), o) for o in prompt.options],
                   lambda f, v: ChooseTraitor(faction=f, leader=v))


def _storm_dial(prompt: Prompt) -> Form:
    return _single(prompt, "Storm dial", [Choice(o, int(o)) for o in prompt.options],
                   lambda f, v: DialStorm(faction=f, value=v))


def _traitor_call(prompt: Prompt) -> Form:
    """A-13: "call" is offered only to a side holding the opposing leader's traitor card (engine/phases/battle.py
    `traitor_options`)."""
    leader = details_of(prompt, TraitorCallDetails).leader
    labels = {CALL: f"Call traitor: {_leader(leader)}" if leader else "Call traitor", NO_CALL: "No traitor call"}
    return _single(prompt, "Traitor call", [Choice(labels.get(o, o), o == CALL) for o in prompt.options],
                   lambda f, v: CallTraitor(faction=f, call=v))


# --- the public battle decisions: which battle, the prescience question, the Voice; a trap's impairment ---


def battle_label(option: str) -> str:
    """"Fight the Harkonnen in Arrakeen" for an option "Arrakeen|harkonnen" (engine/phases/battle.py)."""
    territory, opponent = option.split("|")
    return f"Fight the {faction_name(Faction(opponent))} in {territory}"


def _battle_choice(prompt: Prompt) -> Form:
    def build(faction: Faction, option: str) -> ChooseBattle:
        territory, opponent = option.split("|")
        return ChooseBattle(faction=faction, territory=territory, opponent=Faction(opponent))

    return _single(prompt, "Battle", [Choice(battle_label(o), o) for o in prompt.options], build)


def prescience_label(option: str) -> str:
    return "Ask nothing" if option == NONE else f"Ask for their {option}"


def _prescience(prompt: Prompt) -> Form:
    return _single(prompt, "Question", [Choice(prescience_label(o), o) for o in prompt.options],
                   lambda f, v: AskPrescience(faction=f, element=None if v == NONE else v))


def voice_label(option: str) -> str:
    """"They must play a poison weapon" for "play:poison weapon" (engine/phases/battle.py VOICE_CATEGORIES)."""
    if option == NONE:
        return "No Voice"
    command, kind = option.split(":", 1)
    kind = "worthless card" if kind == "worthless" else kind
    return f"They must {'play' if command == 'play' else 'not play'} a {kind}"


def _voice(prompt: Prompt) -> Form:
    def build(faction: Faction, option: str) -> UseVoice:
        if option == NONE:
            return UseVoice(faction=faction)
        command, kind = option.split(":", 1)
        return UseVoice(faction=faction, command=command, category=kind)

    return _single(prompt, "Voice", [Choice(voice_label(o), o) for o in prompt.options], build)


IMPAIRMENT_LABELS = {NO_SHIPPING: "no shipping next turn", NO_MOVING: "no moving next turn"}  # BT-16, R-17


def _bt_impairment(prompt: Prompt) -> Form:
    target = faction_name(details_of(prompt, BtImpairmentDetails).target)
    return _single(prompt, "Impairment", [Choice(f"{target}: {IMPAIRMENT_LABELS.get(o, o)}", o)
                                          for o in prompt.options],
                   lambda f, v: ChooseBtImpairment(faction=f, impair=v))


def _element_label(element: str, option: str) -> str:
    """A prescience answer: a number for the dial, a leader's or a card's name, or "none"."""
    if option == NONE:
        return f"No {element}"
    if element == "dial":
        return option
    if element == "leader":
        name = _leader(option)
        return name if name != option else f"{_card(option)} (cheap hero)"
    return _card(option)


def _prescience_answer(prompt: Prompt) -> Form:
    element = details_of(prompt, PrescienceAnswerDetails).element
    return _single(prompt, f"Your {element}", [Choice(_element_label(element, o), o) for o in prompt.options],
                   lambda f, v: AnswerPrescience(faction=f, answer=v))


def _bt_attack(prompt: Prompt) -> Form:
    targets = details_of(prompt, BtAttackDetails).targets

    def label(leader: str) -> str:
        where = targets.get(leader)
        return f"Attack {_leader(leader)}" + (f" ({faction_name(where.faction)}, {where.territory})" if where else "")

    choices = [Choice("Attack no leader", None) if o == DECLINE else Choice(label(o), o) for o in prompt.options]
    return _single(prompt, "Attack", choices, lambda f, v: ChooseBtAttack(faction=f, leader=v))


def _bt_mark(prompt: Prompt) -> Form:
    choices = [Choice("Mark no one", None) if o == NO else Choice(f"Mark {_leader(o)}", o) for o in prompt.options]
    return _single(prompt, "Mark", choices, lambda f, v: MarkBtTraitor(faction=f, leader=v))


def _bt_ally_revival(prompt: Prompt) -> Form:
    ally = faction_name(details_of(prompt, BtAllyRevivalDetails).ally)
    labels = {GRANT: f"Grant the {ally} free revival", REFUSE: f"Refuse: the {ally} revive as usual and pay you"}
    return _single(prompt, "Ally's revival", [Choice(labels[o], o == GRANT) for o in prompt.options],
                   lambda f, v: GrantAllyRevival(faction=f, grant=v))


def _bt_reveal_karama(prompt: Prompt) -> Form:
    leader = _leader(details_of(prompt, BtRevealKaramaDetails).leader)
    labels = {LET_IT_STAND: f"Let the reveal of {leader} stand",
              CANCEL: f"Play Karama: cancel the reveal of {leader}"}
    return _single(prompt, "Karama", [Choice(labels.get(o, o), o == CANCEL) for o in prompt.options],
                   lambda f, v: AnswerRevealKarama(faction=f, cancel=v))


def _bt_reveal_window(prompt: Prompt) -> Form:
    choices = [Choice("Let the moment pass", None) if o == PASS else Choice(f"Reveal {_leader(o)}", o)
               for o in prompt.options]
    return _single(prompt, "Reveal", choices, lambda f, v: AnswerRevealWindow(faction=f, leader=v))


# --- decisions of several parts -----------------------------------------------------------------------


def _bg_prediction(prompt: Prompt) -> Form:
    factions = Field("Winner", tuple(Choice(faction_name(Faction(o)), Faction(o)) for o in prompt.options))
    last = details_of(prompt, BgPredictionDetails).turns
    turns = Field("Turn", tuple(Choice(f"Turn {t}", t) for t in range(1, last + 1)))
    return Form(prompt, (factions, turns), lambda f, v: PredictWinner(faction=f, predicted=v[0], turn=v[1]))


def _refined(makers: list[Callable[[dict[int, Any]], Field]]) -> Callable[[list[Any]], tuple[Field, ...]]:
    """A form's parts where each may depend on the ones before it: `makers[i]` makes part i from the values in
    effect before it (by part: the value chosen, else the part's preselected default, else None: undecided). A
    value its part no longer offers counts as not chosen."""
    def refine(values: list[Any]) -> tuple[Field, ...]:
        fields: list[Field] = []
        in_effect: dict[int, Any] = {}
        for index, (make, value) in enumerate(zip(makers, values, strict=True)):
            field = make(in_effect)
            offered = [c.value for c in field.choices]
            if value is None or value not in offered:
                value = offered[field.default] if field.default is not None else None
            in_effect[index] = value
            fields.append(field)
        return tuple(fields)

    return refine


def _refined_form(prompt: Prompt, makers: list[Callable[[dict[int, Any]], Field]],
                  build: Callable[[Faction, list[Any]], Action]) -> Form:
    refine = _refined(makers)
    return Form(prompt, refine([None] * len(makers)), build, refine=refine)


def _field(name: str, choices: list[Choice], first_by_default: bool = False) -> Field:
    """A part, its first choice preselected when asked or when it is the only one."""
    return Field(name, tuple(choices), default=0 if len(choices) == 1 or first_by_default else None)


def _slot(name: str, choices: list[Choice]) -> Field:
    """A part whose empty choice (no card, no impairment), when offered, comes first and is preselected."""
    return _field(name, choices, first_by_default=choices[0].value == NOTHING)


# --- BT traps and gifts: one part per card of the hand ------------------------------------------------------


def _card_destinations(hand: list[str], strongholds: list[str], receivers: dict[Faction, int]
                       ) -> list[Callable[[dict[int, Any]], Field]]:
    """Where each card of the BT hand goes: kept (preselected), a trap on a stronghold no earlier card traps
    (BT-30: one trap a stronghold), or a gift to a player whose hand the earlier gifts have not filled (BT-40)."""
    def maker(index: int, card: str) -> Callable[[dict[int, Any]], Field]:
        def make(before: dict[int, Any]) -> Field:
            earlier = [before[i] for i in range(index) if before[i]]
            trapped = {target for where, target in earlier if where == "trap"}
            given = Counter(target for where, target in earlier if where == "gift")
            choices = [Choice(f"Keep {_card(card)}", NOTHING)]
            choices += [Choice(f"Trap on {s}", ("trap", s)) for s in strongholds if s not in trapped]
            choices += [Choice(f"Give to {faction_name(Faction(r))}", ("gift", r)) for r, room in receivers.items()
                        if given[r] < room]
            return Field(_card(card), tuple(choices), default=0)
        return make

    return [maker(index, card) for index, card in enumerate(hand)]


def _sorted_out(hand: list[str], values: list[Any]) -> tuple[dict[str, str], dict[str, Faction]]:
    """(traps: stronghold -> card, gifts: card -> receiver) from each card's destination."""
    traps: dict[str, str] = {}
    gifts: dict[str, Faction] = {}
    for card, value in zip(hand, values, strict=True):
        if not value:
            continue
        where, target = value
        if where == "trap":
            traps[target] = card
        else:
            gifts[card] = Faction(target)
    return traps, gifts


def _bt_traps(prompt: Prompt) -> Form:
    hand = details_of(prompt, BtTrapsDetails).hand
    return _refined_form(prompt, _card_destinations(hand, list(prompt.options), {}),
                         lambda f, v: LayTraps(faction=f, traps=_sorted_out(hand, v)[0]))


def _bt_traps_and_gifts(prompt: Prompt) -> Form:
    d = details_of(prompt, BtTrapsAndGiftsDetails)
    hand = d.hand
    strongholds = list(prompt.options) if d.traps else []
    receivers = dict(d.receivers) if d.gifts else {}

    def build(faction: Faction, values: list[Any]) -> Action:
        traps, gifts = _sorted_out(hand, values)
        return TrapsAndGifts(faction=faction, traps=traps, gifts=gifts)

    return _refined_form(prompt, _card_destinations(hand, strongholds, receivers), build)


def _hand_swap(prompt: Prompt) -> Form:
    """The Harkonnen special Karama (A-14): after taking a hand, give back as many cards as were taken: one part
    per card owed, each offering the cards no earlier part gives."""
    hand, count = list(prompt.options), details_of(prompt, HandSwapDetails).count

    def maker(index: int) -> Callable[[dict[int, Any]], Field]:
        def make(before: dict[int, Any]) -> Field:
            given = {before[i] for i in range(index)}
            return _field(f"Give back ({index + 1} of {count})",
                          [Choice(_card(card), card) for card in hand if card not in given])
        return make

    return _refined_form(prompt, [maker(index) for index in range(count)],
                         lambda f, v: ReturnCards(faction=f, cards=list(v)))


def _storm_cards(prompt: Prompt) -> Form:
    fields: list[Field] = []
    if WEATHER_CONTROL in prompt.options:
        low, high = details_of(prompt, StormCardsDetails).weather_control_range
        fields.append(Field("Weather Control", (Choice("Do not play Weather Control", None),
                                                *(Choice(f"Weather Control: the storm moves {n}", n)
                                                  for n in range(low, high + 1))), default=0))
    if FAMILY_ATOMICS in prompt.options:
        fields.append(Field("Family Atomics", (Choice("Do not play Family Atomics", False),
                                               Choice("Play Family Atomics", True)), default=0))
    if not fields:
        return _single(prompt, "Storm cards", [Choice("Play no storm card", None)],
                       lambda f, v: PlayStormCards(faction=f))
    kinds = [field.name for field in fields]

    def build(faction: Faction, values: list[Any]) -> Action:
        chosen = dict(zip(kinds, values, strict=True))
        return PlayStormCards(faction=faction, weather_control=chosen.get("Weather Control"),
                              family_atomics=bool(chosen.get("Family Atomics")))

    return Form(prompt, tuple(fields), build)


def plan_heads(plan: BattlePlanDetails) -> list[tuple[str, str]]:
    """Who may lead the plan: ("leader", id) and ("hero", card) pairs (engine/phases/battle_plans.py)."""
    return [("leader", x) for x in plan.leaders] + [("hero", x) for x in plan.cheap_heroes]


def _empty_first(cards: list[str | None]) -> list[str | None]:
    unique = list(dict.fromkeys(cards))
    return [None] * (None in unique) + [card for card in unique if card is not None]


def plan_weapons(plan: BattlePlanDetails) -> list[str | None]:
    """The weapon slot's legal cards as the legal pairs of the shape list them; None first: the empty slot."""
    return _empty_first([pair[0] for pair in plan.card_pairs])


def plan_defenses(plan: BattlePlanDetails, weapon: str | None, decided: bool = True) -> list[str | None]:
    """The defense slot's legal cards beside this weapon (beside any weapon when not `decided`)."""
    return _empty_first([pair[1] for pair in plan.card_pairs
                         if not decided or pair[0] == weapon])


CARDS = "Weapon + defense"  # the battle plan's part of the card pairs, when both slots may hold a card


def _pair_label(weapon: str | None, defense: str | None) -> str:
    """"Lasgun + no defense", "No weapon + Shield": the slots in the part's order (a worthless card may fill
    either)."""
    words = f"{_card(weapon) if weapon else 'no weapon'} + {_card(defense) if defense else 'no defense'}"
    return words[0].upper() + words[1:]


def _card_choices(cards: list[str | None], empty: str) -> list[Choice]:
    return [Choice(empty, NOTHING) if card is None else Choice(_card(card), card) for card in cards]


def _battle_plan(prompt: Prompt) -> Form:
    """engine/phases/battle_plans.py `plan_shape`: every part offers only what the check accepts, and where a rule
    ties two parts the later one is offered again for the earlier choice: the defense beside the weapon (one card
    a slot; the Voice; prescience), the Kwisatz Haderach beside a leader, the spice up to the dial, the impairment
    with a worthless card in the weapon slot (BT-16)."""
    d = details_of(prompt, BattlePlanDetails)
    names: list[str] = []
    makers: list[Callable[[dict[int, Any]], Field]] = []

    def part(name: str, make: Callable[[dict[int, Any]], Field]) -> None:
        names.append(name)
        makers.append(make)

    def chosen(name: str, before: dict[int, Any]) -> Any:
        """What an earlier part holds: its value, NOTHING for an empty slot, None when undecided or absent."""
        return before.get(names.index(name)) if name in names else None

    heads = plan_heads(d)
    if heads:
        choices = [Choice(_strong(x) if who == "leader" else f"{_card(x)} (cheap hero, strength 0)", (who, x))
                   for who, x in heads]
        part("Leader", lambda before: _field("Leader", choices))
    weapons, defenses = plan_weapons(d), plan_defenses(d, None, decided=False)
    if any(weapons) and any(defenses):  # one menu of the legal pairs: one choice instead of two (issue 14)
        pairs = [Choice(_pair_label(w, c), (w or NOTHING, c or NOTHING))
                 for w, c in sorted(d.card_pairs, key=lambda pair: pair != (None, None))]  # no cards first
        part(CARDS, lambda before: _field(CARDS, pairs, first_by_default=pairs[0].value == (NOTHING, NOTHING)))
    elif any(weapons):
        part("Weapon", lambda before: _slot("Weapon", _card_choices(weapons, "No weapon")))
    elif any(defenses):
        part("Defense", lambda before: _slot("Defense", _card_choices(defenses, "No defense")))

    def weapon_of(before: dict[int, Any]) -> Any:
        """The weapon chosen so far: a card, NOTHING for none, None when undecided."""
        if CARDS not in names:
            return chosen("Weapon", before)
        pair = chosen(CARDS, before)
        return None if pair is None else pair[0]
    low, high = d.min_dial, d.max_dial
    if high > 0:
        part("Dial", lambda before: _field("Dial", [Choice(str(n), n) for n in range(low, high + 1)]))
    if d.kwisatz_haderach:  # he may go with a leader, never a cheap hero
        def kwisatz_haderach(before: dict[int, Any]) -> Field:
            head = chosen("Leader", before)
            choices = [Choice("Without the Kwisatz Haderach", False)]
            if head is None or head[0] == "leader":
                choices.append(Choice("With the Kwisatz Haderach (+2)", True))
            return _field("Kwisatz Haderach", choices, first_by_default=True)
        part("Kwisatz Haderach", kwisatz_haderach)
    if d.max_spice > 0:  # A-15 advanced combat: 1 spice backs 1 token dialed
        def spice(before: dict[int, Any]) -> Field:
            dial = chosen("Dial", before)
            top = d.max_spice if dial is None else min(dial, d.max_spice)
            return _field("Spice", [Choice(f"{n} spice", n) for n in range(top + 1)], first_by_default=True)
        part("Spice", spice)
    impairing = d.impairing
    if impairing:  # BT-16, R-17: named exactly when a worthless card fills the weapon slot
        def impairment(before: dict[int, Any]) -> Field:
            weapon = weapon_of(before)
            undecided = weapon is None
            choices = []
            if any(w not in impairing for w in weapons) if undecided else weapon not in impairing:
                choices.append(Choice("No impairment (a real weapon)", NOTHING))
            if undecided or weapon in impairing:
                choices += [Choice(f"Impair: {IMPAIRMENT_LABELS.get(i, i)}", i) for i in d.impairments]
            return _slot("Impairment", choices)
        part("Impairment", impairment)

    def build(faction: Faction, values: list[Any]) -> Action:
        plan = dict(zip(names, values, strict=True))
        who, leader = plan.get("Leader") or (None, None)
        weapon, defense = plan.get(CARDS) or (plan.get("Weapon"), plan.get("Defense"))
        return SubmitBattlePlan(faction=faction, leader=leader if who == "leader" else None,
                                cheap_hero=leader if who == "hero" else None, weapon=weapon or None,
                                defense=defense or None, dial=plan.get("Dial", low),
                                impair=plan.get("Impairment") or None,
                                kwisatz_haderach=bool(plan.get("Kwisatz Haderach")), spice=plan.get("Spice", 0))

    if not makers:  # no leader, no card, no token to dial: the plan is empty, one click sends it
        return _single(prompt, "Battle plan", [Choice("Submit an empty plan (no leader, no card, dial 0)", None)],
                       lambda f, v: SubmitBattlePlan(faction=f))
    return _refined_form(prompt, makers, build)


FORMS: dict[PromptKind, Callable[[Prompt], Form]] = {
    PromptKind.TRAITOR_PICK: _traitor_pick,
    PromptKind.STORM_DIAL: _storm_dial,
    PromptKind.TRAITOR_CALL: _traitor_call,
    PromptKind.PRESCIENCE_ANSWER: _prescience_answer,
    PromptKind.BT_ATTACK: _bt_attack,
    PromptKind.BT_MARK: _bt_mark,
    PromptKind.BT_ALLY_REVIVAL: _bt_ally_revival,
    PromptKind.BT_REVEAL_WINDOW: _bt_reveal_window,
    PromptKind.BT_REVEAL_KARAMA: _bt_reveal_karama,
    PromptKind.BG_PREDICTION: _bg_prediction,
    PromptKind.BT_TRAPS: _bt_traps,
    PromptKind.BT_TRAPS_AND_GIFTS: _bt_traps_and_gifts,
    PromptKind.STORM_CARDS: _storm_cards,
    PromptKind.BATTLE_PLAN: _battle_plan,
    PromptKind.HAND_SWAP: _hand_swap,
    PromptKind.BATTLE_CHOICE: _battle_choice,
    PromptKind.PRESCIENCE: _prescience,
    PromptKind.VOICE: _voice,
    PromptKind.BT_IMPAIRMENT: _bt_impairment,
    **TURN_FORMS,
}


def form_for(prompt: Prompt) -> Form | None:
    """The form of a decision, secret or public; None for a kind that has none yet (answered with a command)."""
    build = FORMS.get(prompt.kind)
    return build(prompt) if build is not None else None


