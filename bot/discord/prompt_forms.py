"""The form of each kind of decision (bot/discord/form_core.py), and `form_for`, which finds a decision's form.

Discord-free (components.py renders a form as buttons or select menus). A form is built from the prompt alone,
as `engine.flow.legal_choices` returns it: its options and its `detail` (the battle plan's leaders, cards and
dial, the BT's hand and receivers...). The engine checks the full rule again on submission; a form only offers
what the prompt says is legal and assembles the typed action.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from bot.discord.form_core import Choice, Field, Form, FormIncomplete
from bot.discord.turn_forms import TURN_FORMS
from engine.actions import (
    Action,
    AnswerPrescience,
    AnswerRevealKarama,
    AnswerRevealWindow,
    CallTraitor,
    ChooseBtAttack,
    ChooseTraitor,
    DialStorm,
    LayTraps,
    MarkBtTraitor,
    PlayStormCards,
    PredictWinner,
    ReturnCards,
    SubmitBattlePlan,
    TrapsAndGifts,
)
from engine.ids import Faction
from engine.model import Prompt, PromptKind
from engine.names import card_name, faction_name, leader_name

NONE = "none"  # engine/phases/battle.py: "nothing" as a prescience answer


def _leader(leader_id: str) -> str:
    try:
        return leader_name(leader_id)
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
    labels = {"call": "Call traitor", "no": "No traitor call"}
    return _single(prompt, "Traitor call", [Choice(labels.get(o, o), o == "call") for o in prompt.options],
                   lambda f, v: CallTraitor(faction=f, call=v))


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
    element = prompt.detail.get("element", "answer")
    return _single(prompt, f"Your {element}", [Choice(_element_label(element, o), o) for o in prompt.options],
                   lambda f, v: AnswerPrescience(faction=f, answer=v))


def _bt_attack(prompt: Prompt) -> Form:  # engine/phases/bt_attack.py: DECLINE = "decline"
    choices = [Choice("Attack no leader", None) if o == "decline" else Choice(f"Attack {_leader(o)}", o)
               for o in prompt.options]
    return _single(prompt, "Attack", choices, lambda f, v: ChooseBtAttack(faction=f, leader=v))


def _bt_mark(prompt: Prompt) -> Form:  # engine/factions/bt_traitors.py: NO = "no"
    choices = [Choice("Mark no one", None) if o == "no" else Choice(f"Mark {_leader(o)}", o) for o in prompt.options]
    return _single(prompt, "Mark", choices, lambda f, v: MarkBtTraitor(faction=f, leader=v))


def _bt_reveal_karama(prompt: Prompt) -> Form:  # engine/factions/bt_reveal_karama.py: "let_it_stand", "cancel"
    leader = _leader(str(prompt.detail.get("leader", "")))
    labels = {"let_it_stand": f"Let the reveal of {leader} stand",
              "cancel": f"Play Karama: cancel the reveal of {leader}"}
    return _single(prompt, "Karama", [Choice(labels.get(o, o), o == "cancel") for o in prompt.options],
                   lambda f, v: AnswerRevealKarama(faction=f, cancel=v))


def _bt_reveal_window(prompt: Prompt) -> Form:  # engine/factions/bt_traitors.py: PASS = "pass"
    choices = [Choice("Let the moment pass", None) if o == "pass" else Choice(f"Reveal {_leader(o)}", o)
               for o in prompt.options]
    return _single(prompt, "Reveal", choices, lambda f, v: AnswerRevealWindow(faction=f, leader=v))


# --- decisions of several parts -----------------------------------------------------------------------


def _bg_prediction(prompt: Prompt) -> Form:
    factions = Field("Winner", tuple(Choice(faction_name(Faction(o)), Faction(o)) for o in prompt.options))
    turns = Field("Turn", tuple(Choice(f"Turn {t}", t) for t in range(1, int(prompt.detail.get("turns", 1)) + 1)))
    return Form(prompt, (factions, turns), lambda f, v: PredictWinner(faction=f, predicted=v[0], turn=v[1]))


def _card_fields(hand: list[str], destinations: list[Choice]) -> tuple[Field, ...]:
    """One field per card of the BT hand: where the card goes (kept by default)."""
    return tuple(Field(_card(card), (Choice(f"Keep {_card(card)}", None), *destinations), default=0)
                 for card in hand)


def _sorted_out(hand: list[str], values: list[Any]) -> tuple[dict[str, str], dict[str, Faction]]:
    """(traps: stronghold -> card, gifts: card -> receiver) from each card's destination."""
    traps: dict[str, str] = {}
    gifts: dict[str, Faction] = {}
    for card, value in zip(hand, values, strict=True):
        if value is None:
            continue
        where, target = value
        if where == "trap":
            if target in traps:
                raise FormIncomplete(f"Two cards cannot both be the trap on {target} (BT-30): one trap a stronghold.")
            traps[target] = card
        else:
            gifts[card] = Faction(target)
    return traps, gifts


def _bt_traps(prompt: Prompt) -> Form:
    hand = list(prompt.detail.get("hand", []))
    where = [Choice(f"Trap on {s}", ("trap", s)) for s in prompt.options]
    return Form(prompt, _card_fields(hand, where),
                lambda f, v: LayTraps(faction=f, traps=_sorted_out(hand, v)[0]))


def _bt_traps_and_gifts(prompt: Prompt) -> Form:
    hand = list(prompt.detail.get("hand", []))
    where = [Choice(f"Trap on {s}", ("trap", s)) for s in prompt.options] if prompt.detail.get("traps", True) else []
    if prompt.detail.get("gifts", True):
        receivers = prompt.detail.get("receivers", {})
        where += [Choice(f"Give to {faction_name(Faction(r))}", ("gift", r)) for r in receivers]

    def build(faction: Faction, values: list[Any]) -> Action:
        traps, gifts = _sorted_out(hand, values)
        return TrapsAndGifts(faction=faction, traps=traps, gifts=gifts)

    return Form(prompt, _card_fields(hand, where), build)


def _hand_swap(prompt: Prompt) -> Form:
    """The Harkonnen special Karama (A-14): after taking a hand, give back as many cards as were taken."""
    hand, count = list(prompt.options), int(prompt.detail.get("count", 0))
    fields = tuple(Field(_card(card), (Choice(f"Keep {_card(card)}", False), Choice(f"Give back {_card(card)}", True)),
                         default=0) for card in hand)

    def build(faction: Faction, values: list[Any]) -> Action:
        back = [card for card, give in zip(hand, values, strict=True) if give]
        if len(back) != count:
            raise FormIncomplete(f"Give back exactly {count} cards (you chose {len(back)}).")
        return ReturnCards(faction=faction, cards=back)

    return Form(prompt, fields, build)


def _storm_cards(prompt: Prompt) -> Form:  # engine/cards.py: "pass", "weather_control", "family_atomics"
    fields: list[Field] = []
    if "weather_control" in prompt.options:
        low, high = prompt.detail.get("weather_control_range", (0, 10))
        fields.append(Field("Weather Control", (Choice("Do not play Weather Control", None),
                                                *(Choice(f"Weather Control: the storm moves {n}", n)
                                                  for n in range(low, high + 1))), default=0))
    if "family_atomics" in prompt.options:
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


def _battle_plan(prompt: Prompt) -> Form:
    """engine/phases/battle.py `_plan_shape` (and bt_attack.py `attack_shape`): leaders and cheap heroes, the
    weapon and defense cards, the dial's maximum, and for the BT's attack the impairments (BT-16)."""
    d = prompt.detail
    fields: list[Field] = []
    heroes = [Choice(_leader(x), ("leader", x)) for x in d.get("leaders", [])] + \
             [Choice(f"{_card(x)} (cheap hero)", ("hero", x)) for x in d.get("cheap_heroes", [])]
    if heroes:
        fields.append(Field("Leader", tuple(heroes), default=0 if len(heroes) == 1 else None))
    cards = d.get("may_play_cards", True)
    bt_attack = prompt.faction == Faction.BENE_TLEILAXU and d.get("attack") == "leader"
    if cards and d.get("weapons"):
        weapons = tuple(Choice(_card(c), c) for c in d["weapons"])
        # the BT's attack always fills its weapon slot
        fields.append(Field("Weapon", weapons) if bt_attack else Field("Weapon", (Choice("No weapon", None),
                                                                                  *weapons), default=0))
    if cards and d.get("defenses"):
        fields.append(Field("Defense", (Choice("No defense", None), *(Choice(_card(c), c) for c in d["defenses"])),
                            default=0))
    if d.get("max_dial", 0) > 0:
        fields.append(Field("Dial", tuple(Choice(str(n), n) for n in range(d["max_dial"] + 1))))
    if d.get("kwisatz_haderach"):  # he may go with the leader
        fields.append(Field("Kwisatz Haderach", (Choice("Without the Kwisatz Haderach", False),
                                                 Choice("With the Kwisatz Haderach (+2)", True)), default=0))
    if d.get("max_spice", 0) > 0:  # A-15 advanced combat: spice backing the dial
        fields.append(Field("Spice", tuple(Choice(f"{n} spice", n) for n in range(d["max_spice"] + 1)), default=0))
    if d.get("impairments"):
        labels = {"no_shipping": "Impair: no shipping next turn", "no_moving": "Impair: no moving next turn"}
        fields.append(Field("Impairment", (Choice("No impairment", None),
                                           *(Choice(labels.get(i, i), i) for i in d["impairments"])), default=0))
    names = [f.name for f in fields]

    def build(faction: Faction, values: list[Any]) -> Action:
        chosen = dict(zip(names, values, strict=True))
        who, leader = chosen.get("Leader") or (None, None)
        return SubmitBattlePlan(faction=faction, leader=leader if who == "leader" else None,
                                cheap_hero=leader if who == "hero" else None, weapon=chosen.get("Weapon"),
                                defense=chosen.get("Defense"), dial=chosen.get("Dial") or 0,
                                impair=chosen.get("Impairment"),
                                kwisatz_haderach=bool(chosen.get("Kwisatz Haderach")), spice=chosen.get("Spice") or 0)

    if not fields:  # no leader, no card, no token to dial: the plan is empty, one click sends it
        return _single(prompt, "Battle plan", [Choice("Submit an empty plan (no leader, no card, dial 0)", None)],
                       lambda f, v: SubmitBattlePlan(faction=f))
    return Form(prompt, tuple(fields), build)


FORMS: dict[PromptKind, Callable[[Prompt], Form]] = {
    PromptKind.TRAITOR_PICK: _traitor_pick,
    PromptKind.STORM_DIAL: _storm_dial,
    PromptKind.TRAITOR_CALL: _traitor_call,
    PromptKind.PRESCIENCE_ANSWER: _prescience_answer,
    PromptKind.BT_ATTACK: _bt_attack,
    PromptKind.BT_MARK: _bt_mark,
    PromptKind.BT_REVEAL_WINDOW: _bt_reveal_window,
    PromptKind.BT_REVEAL_KARAMA: _bt_reveal_karama,
    PromptKind.BG_PREDICTION: _bg_prediction,
    PromptKind.BT_TRAPS: _bt_traps,
    PromptKind.BT_TRAPS_AND_GIFTS: _bt_traps_and_gifts,
    PromptKind.STORM_CARDS: _storm_cards,
    PromptKind.BATTLE_PLAN: _battle_plan,
    PromptKind.HAND_SWAP: _hand_swap,
    **TURN_FORMS,
}


def form_for(prompt: Prompt) -> Form | None:
    """The form of a decision, secret or public; None for a kind that has none yet (answered with a command)."""
    build = FORMS.get(prompt.kind)
    return build(prompt) if build is not None else None


