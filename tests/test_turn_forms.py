"""The forms and cards of the turn's public decisions (bot/discord/turn_forms.py, bot/app/turn_facts.py), without
Discord: over random games with every option, every choice a form offers makes an action the engine accepts, every
form renders as Discord accepts it, an untouched form answers as the decision's default does; each kind's form
offers what its prompt says is legal, with its costs; no card or control shows its reader another faction's secret.
"""

from __future__ import annotations

from collections import Counter

import discord
import pytest

from bot.app import render
from bot.app.action_words import revival_words
from bot.app.render import decision_card
from bot.discord.components import DYNAMIC_ITEMS, AmountModal, prompt_view
from bot.discord.form_core import MAX_CHOICES, Form, FormIncomplete
from bot.discord.prompt_forms import form_for
from bot.discord.turn_forms import TURN_FORMS
from engine.actions import (
    AcceptAlliance,
    Bid,
    BreakAlliance,
    BtAllyRevive,
    EndNexus,
    Move,
    PassBid,
    PlaceStartingTokens,
    PlayTruthtrance,
    ProposeAlliance,
    Revive,
    RideWorm,
    SetCoexistence,
    Ship,
    ShipToReserves,
    SkipMove,
    SkipShipment,
)
from engine.errors import RuleViolation
from engine.flow import DEFAULTS
from engine.game import apply
from engine.ids import Faction
from engine.model import GameState, Prompt, PromptKind
from engine.rng import Rng
from engine.rules.board import locations_of
from engine.secrecy.views import view
from tests.conftest import (
    BG,
    BT,
    A,
    E,
    F,
    G,
    H,
    card_text_without_places,
    cards_hidden_from,
    prompts_met,
    unique_card_names,
)
from tests.helpers.positions.bt_traitors import position
from tests.helpers.positions.movement import answer_defaults_until, arrange
from tests.helpers.positions.optional_combat import harkonnen_win
from tests.helpers.positions.optional_rules import two_worms
from tests.helpers.positions.spice_blow import fremen_in_great_flat

TURN_KINDS = set(TURN_FORMS)
NOTHING = {PromptKind.SHIPMENT: "Ship nothing", PromptKind.MOVEMENT: "Move nothing"}
SNOWFLAKE_GAME = "g1456074443980800012"


def turn_prompts():
    """(state, prompt) of the turn's public decisions in random games (tests/conftest.py)."""
    return prompts_met(TURN_KINDS, per_kind=30)


def scenario_prompts():
    """The rarer decisions, from positions built for them (random games reach them only now and then): the worm
    ride and placement, a Truthtrance, a captured leader, the Bene Gesserit movement with co-existence."""
    truthtrance = apply(position(factions=(A, H, BT), hands={A: ["truthtrance_1"]}),
                        PlayTruthtrance(faction=A, target=H, question="Do you hold a traitor?")).state
    coexisting = answer_defaults_until(arrange(forces={ARRAKEEN: {A: 3, BG: 2}}, character_advantages=True)[0],
                                       BG, PromptKind.MOVEMENT)
    states = [fremen_in_great_flat()[0], two_worms(character_advantages=True)[0], truthtrance,
              harkonnen_win(True)[0], coexisting]
    return [(state, p) for state in states for p in state.prompts if p.kind in TURN_KINDS]


@pytest.fixture(scope="module")
def real_prompts():
    return turn_prompts() + scenario_prompts()


def offered(form: Form, rng: Rng, per_part: int = 3) -> list[list[int | None]]:
    """Drafts choosing in every part in turn, each part as it is offered after the earlier choices: every choice
    of a part of up to `per_part` choices, else its first, its last and a random one."""
    drafts = []

    def choose(chosen: list[int | None], part: int) -> None:
        if part == len(form.fields):
            drafts.append(chosen)
            return
        count = len(form.fields_for(chosen)[part].choices)
        picks = range(count) if count <= per_part else sorted({0, count - 1, rng.below(count)})
        for index in picks:
            choose([*chosen[:part], index, *chosen[part + 1:]], part + 1)

    choose([None] * len(form.fields), 0)
    return drafts


def test_every_choice_a_turn_form_offers_is_accepted_by_the_engine(real_prompts):
    """Issue 13 item 2: only legal choices are offered. Submitted on the state it was offered in, each draft (and
    the lowest and highest typed amount) makes an action the rules accept."""
    assert {p.kind for _, p in real_prompts} == TURN_KINDS  # the games and the scenarios reach every kind
    rng, tried = Rng.from_seed(13), Counter()
    for state, prompt in real_prompts:
        form = form_for(prompt)
        actions = [form.action(draft) for draft in offered(form, rng)]
        if form.amount is not None:
            actions += [form.amount.action(prompt.faction, str(n)) for n in (form.amount.low, form.amount.high)]
        for action in actions:
            try:
                apply(state, action)
            except RuleViolation as refusal:
                pytest.fail(f"{prompt.kind.value} offered {action!r}, refused: {refusal}")
            tried[prompt.kind] += 1
    assert min(tried.values()) >= 2 and sum(tried.values()) > 1000


def test_every_turn_decision_of_real_games_renders_as_discord_accepts_it(real_prompts):
    templates = [item.__discord_ui_compiled_template__ for item in DYNAMIC_ITEMS]
    modals = 0
    for _, prompt in real_prompts:
        view = prompt_view(SNOWFLAKE_GAME, prompt, prompt.faction.value)
        rows = {item.row if item.row is not None else 0 for item in view.children}
        assert 0 < len(view.children) <= MAX_CHOICES and len(rows) <= 5, prompt
        for item in view.children:
            assert len(item.custom_id) <= 100
            assert [t.fullmatch(item.custom_id) is not None for t in templates].count(True) == 1, item.custom_id
            if isinstance(item.item, discord.ui.Select):
                assert 0 < len(item.item.options) <= MAX_CHOICES
                assert all(0 < len(option.label) <= 100 for option in item.item.options)
            else:
                assert 0 < len(item.item.label) <= 80
        form = form_for(prompt)
        amounts = ([None] if form.amount is not None else []) + [
            index for index, shortcut in enumerate(form.shortcuts) if shortcut.amount is not None]
        for shortcut in amounts:  # the modals its amounts open
            custom_id = AmountModal(SNOWFLAKE_GAME, form, shortcut).custom_id
            assert len(custom_id) <= 100 and AmountModal.template.fullmatch(custom_id), custom_id
            modals += 1
    assert modals > 0


def test_the_default_answer_is_what_the_form_gives_untouched_or_one_of_its_choices(real_prompts):
    for state, prompt in real_prompts:
        form, default = form_for(prompt), DEFAULTS[prompt.kind](state, prompt)
        if form.one_click:
            assert default in [form.action([i]) for i in range(len(form.fields[0].choices))], prompt
        elif prompt.kind in NOTHING:  # of several parts: the "nothing" button beside them
            assert shortcut(form, NOTHING[prompt.kind]).action(prompt.faction) == default
        else:
            assert form.action([None] * len(form.fields)) == default, prompt


# --- what each kind offers ---------------------------------------------------------------------------------


def shortcut(form, label: str):
    [found] = [s for s in form.shortcuts if s.label == label]
    return found


def prompt(kind: PromptKind, faction: Faction, options=(), **detail) -> Prompt:
    return Prompt(id="p9", kind=kind, faction=faction, secret=False, options=list(options), detail=detail,
                  opened_at=0)


def labels(field) -> list[str]:
    return [c.label for c in field.choices]


def pick(form: Form, *labels_chosen: str | None) -> list[int | None]:
    """The draft choosing, part by part, the choice of each label (None: nothing), each part as refined."""
    chosen: list[int | None] = [None] * len(form.fields)
    for part, label in enumerate(labels_chosen):
        if label is not None:
            chosen[part] = labels(form.fields_for(chosen)[part]).index(label)
    return chosen


def bid(min_bid: int, max_bid: int) -> Prompt:
    return prompt(PromptKind.BID, A, ["pass"], min_bid=min_bid, max_bid=max_bid, high_bid=min_bid - 1,
                  high_bidder=H.value if min_bid > 1 else None, card_number=2, cards=5, allies=[])


def test_a_6_bid_buttons_pass_or_the_next_raises_and_any_other_amount_typed_within_the_range():
    form = form_for(bid(3, 12))
    assert form.one_click and labels(form.fields[0]) == ["Pass", "Bid 3", "Bid 4", "Bid 5", "Bid 6"]
    assert [form.action([i]) for i in (0, 4)] == [PassBid(faction=A), Bid(faction=A, amount=6)]
    assert (form.amount.low, form.amount.high) == (3, 12)
    assert form.amount.action(A, " 12 ") == Bid(faction=A, amount=12)
    for typed in ("2", "13", "ten", ""):
        with pytest.raises(FormIncomplete, match="from 3 to 12"):
            form.amount.action(A, typed)


def test_a_6_a_bidder_short_of_spice_is_offered_only_what_it_can_pay():
    assert labels(form_for(bid(3, 4)).fields[0]) == ["Pass", "Bid 3", "Bid 4"] and form_for(bid(3, 4)).amount is None
    assert labels(form_for(bid(5, 4)).fields[0]) == ["Pass"]


def test_a_6_with_one_amount_left_the_card_names_it_and_no_order_up_to_it_is_offered(real_prompts):
    """A bidder whose spice is just the lowest legal bid: "bid 2 to 2" would read oddly, and an order to bid "up
    to 2" would only be the "Bid 2" beside it."""
    state, first = next((s, p) for s, p in real_prompts if p.kind == PromptKind.BID)
    lowest = int(first.detail["min_bid"])
    state = state.model_copy(deep=True)
    state.faction(first.faction).spice = lowest
    prompt = first.model_copy(update={"detail": {**first.detail, "max_bid": lowest}})
    assert f"you may bid {lowest}, or pass." in decision_card(state, prompt, None).text
    form = form_for(prompt)
    assert labels(form.fields[0]) == ["Pass", f"Bid {lowest}"]
    assert [s.label for s in form.shortcuts] == ["Pass on every card this turn"]
    assert "Bid up to N for me" in [s.label for s in form_for(bid(lowest, lowest + 1)).shortcuts]


def test_a_6_a_bidder_with_no_spice_and_no_bid_to_outbid_is_told_why_it_must_pass(real_prompts):
    state, first = next((s, p) for s, p in real_prompts if p.kind == PromptKind.BID)
    state = state.model_copy(deep=True)
    state.faction(first.faction).spice = 0
    opening = first.model_copy(update={"detail": {**first.detail, "min_bid": 1, "max_bid": 0, "high_bid": 0,
                                                  "high_bidder": None}})
    assert "Your spice: 0: you have no spice to bid: pass." in decision_card(state, opening, None).text
    outbid = opening.model_copy(update={"detail": {**opening.detail, "min_bid": 3, "high_bid": 2,
                                                   "high_bidder": H.value}})
    assert "Your spice: 0: you cannot outbid it: pass." in decision_card(state, outbid, None).text


def test_a_7_a_revival_of_nothing_reads_revive_nothing_not_zero_tokens():
    assert revival_words(0, []) == "revive nothing"
    assert revival_words(0, ["Duncan Idaho"]) == "revive Duncan Idaho"
    assert revival_words(2, ["Duncan Idaho"], True) == "revive 2 tokens and Duncan Idaho and the Kwisatz Haderach"
    assert revival_words(1, []) == "revive 1 token"


def revival(spice=10, max_tokens=3, free=1, costs=(0, 0, 2, 4), leaders=None, **extra) -> Prompt:
    leaders = {"duncan_idaho": 2, "thufir_hawat": 5} if leaders is None else leaders
    return prompt(PromptKind.REVIVAL, A, list(leaders), max_tokens=max_tokens, free_tokens=free, token_cost=2,
                  token_costs=list(costs), leader_costs=leaders, max_leaders=extra.pop("max_leaders", 1),
                  bt_alliance=extra.pop("bt_alliance", False), bt_refused=False,
                  kwisatz_haderach_cost=extra.pop("kh", None), spice=spice)


def test_a_7_revival_offers_counts_and_leaders_with_their_costs_and_only_what_the_spice_pays():
    form = form_for(revival(spice=6))
    assert [f.name for f in form.fields] == ["Tokens", "Leader"]
    assert labels(form.fields[0]) == ["No tokens", "1 token: free", "2 tokens: 2 spice", "3 tokens: 4 spice"]
    assert labels(form.fields[1]) == ["No leader", "Duncan Idaho: 2 spice", "Thufir Hawat: 5 spice"]
    assert form.action([None, None]) == Revive(faction=A, tokens=1)  # untouched: the free tokens, the default
    three = pick(form, "3 tokens: 4 spice")
    assert labels(form.fields_for(three)[1]) == ["No leader", "Duncan Idaho: 2 spice"]  # 4 + 5 > 6
    assert form.action(pick(form, "3 tokens: 4 spice", "Duncan Idaho: 2 spice")) == Revive(
        faction=A, tokens=3, leader="duncan_idaho")
    assert labels(form_for(revival(spice=1)).fields[0]) == ["No tokens", "1 token: free"]


def test_a_15_the_kwisatz_haderach_is_revived_as_the_leader_part():
    form = form_for(revival(max_tokens=0, costs=(0,), leaders={}, kh=2))
    assert form.one_click and labels(form.fields[0]) == ["No leader", "the Kwisatz Haderach: 2 spice"]
    assert form.action([1]) == Revive(faction=A, kwisatz_haderach=True)


def test_bt_60_an_ally_of_the_bt_names_two_different_leaders():
    form = form_for(revival(spice=0, max_tokens=6, free=6, costs=[0] * 7, leaders={"duncan_idaho": 0,
                                                                                  "thufir_hawat": 0},
                            max_leaders=2, bt_alliance=True))
    assert [f.name for f in form.fields] == ["Tokens", "Leader", "Second leader"]
    chosen = pick(form, "6 tokens: free", "Duncan Idaho: free")
    assert labels(form.fields_for(chosen)[2]) == ["No second leader", "Thufir Hawat: free"]
    chosen = pick(form, "6 tokens: free", "Duncan Idaho: free", "Thufir Hawat: free")
    assert form.action(chosen) == BtAllyRevive(faction=A, tokens=6, leaders=["duncan_idaho", "thufir_hawat"])


ARRAKEEN, FLAT, FWW, SINK = "Arrakeen#9", "The Great Flat#14", "False Wall West#16", "Polar Sink"


def shipment(faction=A, spice=10, reserves=10, options=(ARRAKEEN, FLAT, FWW, "False Wall West#17", SINK),
             **detail) -> Prompt:
    fremen = faction == F
    return prompt(PromptKind.SHIPMENT, faction, options, reserves=reserves, free=fremen,
                  stronghold_rate=0 if fremen else 1, elsewhere_rate=0 if fremen else 2,
                  half_price=detail.pop("half_price", faction == G), ship_from=detail.pop("ship_from", []),
                  tokens_at=detail.pop("tokens_at", {}), allies=[], strongholds=[ARRAKEEN], full_strongholds=[],
                  spice=spice, impaired=detail.pop("impaired", False))


def test_shipment_from_to_a_territory_and_sector_then_tokens_each_with_its_cost():
    form = form_for(shipment(spice=5))
    assert [f.name for f in form.fields] == ["From", "To", "Sector", "Tokens"]
    assert labels(form.fields[0]) == ["Your reserves (10 tokens)"]  # one source: taken without asking
    assert labels(form.fields_for([None] * 4)[1]) == ["Arrakeen", "The Great Flat", "False Wall West", "Polar Sink"]
    assert form.action(pick(form, None, "Arrakeen", None, "2 tokens: 2 spice")) == Ship(faction=A, to_location=ARRAKEEN,
                                                                                        tokens=2)
    chosen = pick(form, "Your reserves (10 tokens)", "False Wall West")
    refined = form.fields_for(chosen)
    assert labels(refined[2]) == ["False Wall West (sector 16)", "False Wall West (sector 17)"]
    assert labels(refined[3]) == ["1 token: 2 spice", "2 tokens: 4 spice"]  # 5 spice: no third token
    chosen = pick(form, "Your reserves (10 tokens)", "Arrakeen", None, "5 tokens: 5 spice")
    assert form.action(chosen) == Ship(faction=A, to_location=ARRAKEEN, tokens=5)  # one sector: preselected
    with pytest.raises(FormIncomplete, match="sector"):
        form.action(pick(form, "Your reserves (10 tokens)", "False Wall West", None, "1 token: 2 spice"))
    assert shortcut(form, "Ship nothing").action(A) == SkipShipment(faction=A)  # one click beside the menus
    assert shortcut(form, "Ship nothing, move nothing this turn").action(A) == SkipShipment(faction=A, no_move=True)


def test_a_23_the_guild_ship_from_the_board_to_another_territory_or_back_at_half_price():
    form = form_for(shipment(G, spice=2, reserves=0, ship_from=[FWW], tokens_at={FWW: 4}))
    assert labels(form.fields[0]) == ["False Wall West (sector 16) (4 tokens)"]
    chosen = pick(form, "False Wall West (sector 16) (4 tokens)")
    assert labels(form.fields_for(chosen)[1]) == ["Back to your reserves", "Arrakeen", "The Great Flat", "Polar Sink"]
    chosen = pick(form, "False Wall West (sector 16) (4 tokens)", "Back to your reserves")
    assert labels(form.fields_for(chosen)[3]) == ["1 token: 1 spice", "2 tokens: 1 spice", "3 tokens: 2 spice",
                                                  "4 tokens: 2 spice"]
    chosen = pick(form, "False Wall West (sector 16) (4 tokens)", "The Great Flat", None, "2 tokens: 2 spice")
    assert form.action(chosen) == Ship(faction=G, from_location=FWW, to_location=FLAT, tokens=2)
    chosen = pick(form, "False Wall West (sector 16) (4 tokens)", "Back to your reserves", None, "4 tokens: 2 spice")
    assert form.action(chosen) == ShipToReserves(faction=G, from_location=FWW, tokens=4)


def test_the_fremen_bring_tokens_free_and_an_impaired_faction_may_only_ship_nothing():
    form = form_for(shipment(F, spice=0, reserves=3, options=(FLAT,)))
    chosen = pick(form, "Your reserves (3 tokens)", "The Great Flat")
    assert labels(form.fields_for(chosen)[3]) == ["1 token: free", "2 tokens: free", "3 tokens: free"]
    assert labels(form_for(shipment(impaired=True)).fields[0]) == ["Ship nothing"]  # BT-16
    assert labels(form_for(shipment(spice=0)).fields[0]) == ["Ship nothing"]  # nothing can be paid for


def movement(impaired=False, reach=("Imperial Basin#8", "Imperial Basin#9", "Old Gap#9"), **detail) -> Prompt:
    return prompt(PromptKind.MOVEMENT, BG, [ARRAKEEN], range=1, tokens={ARRAKEEN: 3},
                  destinations={ARRAKEEN: list(reach)}, ornithopters=True, impaired=impaired, **detail)


def test_movement_from_a_group_to_a_place_in_range_and_co_existence_declared_in_the_same_form():
    form = form_for(movement(coexist={"advisors": ["Arrakeen"], "fighters": ["Polar Sink"]}))
    assert labels(form.fields[0]) == ["Arrakeen (3 tokens)", "Co-exist in Arrakeen: your tokens there become advisors",
                                      "Your advisors in Polar Sink become fighters"]
    # the reach fits one menu: to a place at once, its sector named where the territory has several
    assert [f.name for f in form.fields] == ["From", "To", "Tokens"]
    assert labels(form.fields_for(pick(form, "Arrakeen (3 tokens)"))[1]) == [
        "Imperial Basin (sector 8)", "Imperial Basin (sector 9)", "Old Gap (sector 9)"]
    chosen = pick(form, "Arrakeen (3 tokens)", "Imperial Basin (sector 8)", "2 tokens")
    assert form.action(chosen) == Move(faction=BG, from_location=ARRAKEEN, to_location="Imperial Basin#8", tokens=2)
    with pytest.raises(FormIncomplete, match="to"):
        form.action(pick(form, "Arrakeen (3 tokens)", None, "2 tokens"))
    assert form.action(pick(form, "Your advisors in Polar Sink become fighters")) == SetCoexistence(
        faction=BG, territory="Polar Sink", advisors=False)
    assert shortcut(form, "Move nothing").action(BG) == SkipMove(faction=BG)  # one click beside the menus
    assert labels(form_for(movement(impaired=True)).fields[0]) == [
        "Move nothing: a Bene Tleilaxu worthless card bars your moves (BT-16)"]  # issue 25 item 12: say why


def test_a_22_a_reach_beyond_one_menu_is_chosen_by_territory_then_sector():
    """Ornithopters reach more places than one menu holds (25): the territory, then its sector."""
    far = [place for territory in ("The Great Flat", "False Wall West", "Hagga Basin", "The Minor Erg", "Old Gap",
                                   "Imperial Basin", "Cielago North", "Cielago South", "Meridian", "South Mesa",
                                   "Wind Pass", "Rock Outcroppings") for place in locations_of(territory)]
    assert len(far) > 25
    form = form_for(movement(reach=far))
    assert [f.name for f in form.fields] == ["From", "To", "Sector", "Tokens"]
    chosen = pick(form, "Arrakeen (3 tokens)", "Old Gap")
    assert labels(form.fields_for(chosen)[2]) == ["Old Gap (sector 8)", "Old Gap (sector 9)", "Old Gap (sector 10)"]
    chosen = pick(form, "Arrakeen (3 tokens)", "Old Gap", "Old Gap (sector 9)", "3 tokens")
    assert form.action(chosen) == Move(faction=BG, from_location=ARRAKEEN, to_location="Old Gap#9", tokens=3)
    with pytest.raises(FormIncomplete, match="sector"):
        form.action(pick(form, "Arrakeen (3 tokens)", "Old Gap", None, "3 tokens"))


def test_the_fremen_split_their_starting_tokens_and_the_counts_always_add_up():
    form = form_for(prompt(PromptKind.STARTING_PLACEMENT, F, ["Sietch Tabr", "False Wall South", "False Wall West"],
                           tokens=10))
    assert [f.name for f in form.fields] == [
        "False Wall South (sector 3)", "False Wall South (sector 4)", "False Wall West (sector 15)",
        "False Wall West (sector 16)", "False Wall West (sector 17)", "Sietch Tabr"]
    assert form.action([None] * 6) == PlaceStartingTokens(faction=F, placement={"Sietch Tabr#13": 10})
    chosen = pick(form, "4 tokens", None, "6 tokens")
    refined = form.fields_for(chosen)
    assert labels(refined[3]) == ["0 tokens"] and labels(refined[5]) == ["0 tokens"]  # nothing left
    assert form.action(chosen) == PlaceStartingTokens(faction=F, placement={"False Wall South#3": 4,
                                                                            "False Wall West#15": 6})


def test_a_15_the_bene_gesserit_place_their_token_in_any_territory_and_sector():
    territories = ["Arrakeen", "False Wall West", "Polar Sink"]
    form = form_for(prompt(PromptKind.STARTING_PLACEMENT, BG, territories, tokens=1))
    assert form.action([None, None]) == PlaceStartingTokens(faction=BG, placement={SINK: 1})  # the default
    chosen = pick(form, "False Wall West", "False Wall West (sector 17)")
    assert form.action(chosen) == PlaceStartingTokens(faction=BG, placement={"False Wall West#17": 1})


def test_a_28_the_fremen_stay_or_ride_the_worm_to_a_territory_and_sector():
    form = form_for(prompt(PromptKind.WORM_RIDE, F, [ARRAKEEN, FWW, "False Wall West#17"], territory="Old Gap",
                           tokens=4, from_locations={}, impaired=False))
    assert labels(form.fields[0]) == ["Stay in Old Gap", "Arrakeen", "False Wall West"]
    assert form.action([None, None]) == RideWorm(faction=F)
    assert form.action(pick(form, "False Wall West", "False Wall West (sector 16)")) == RideWorm(faction=F,
                                                                                               to_location=FWW)


def test_a_8_the_nexus_offers_what_the_engine_says_may_be_done_now():
    form = form_for(prompt(PromptKind.NEXUS, E, [A.value, H.value, BT.value], propose_to=[BT.value],
                           offers=[A.value], allies=[H.value], may_break=True, max_alliance_size=3))
    assert labels(form.fields[0]) == ["Propose an alliance to the Bene Tleilaxu", "Accept the offer of the Atreides",
                                      "Break your alliance", "Done with this Nexus"]
    assert [form.action([i]) for i in range(4)] == [ProposeAlliance(faction=E, partner=BT),
                                                    AcceptAlliance(faction=E, partner=A), BreakAlliance(faction=E),
                                                    EndNexus(faction=E)]


# --- secrets: a card and its controls show their reader only what it may know ---------------------------------


def others_secrets_changed(state: GameState, reader: Faction) -> GameState:
    """The same game but for every other faction's hand, traitors and spice."""
    twin = state.model_copy(deep=True)
    for faction, fs in twin.factions.items():
        if faction != reader:
            fs.hand, fs.traitors, fs.spice = list(reversed(fs.hand))[1:], [], fs.spice + 7
    return twin


def shown(state: GameState, prompt: Prompt) -> tuple[str, list[tuple[str, ...]]]:
    """A card's words, and each of its controls' label, values and custom id."""
    card = decision_card(state, prompt, None).text
    controls = []
    for item in prompt_view(SNOWFLAKE_GAME, state.prompt(prompt.id), prompt.faction.value).children:
        options = item.item.options if isinstance(item.item, discord.ui.Select) else []
        controls.append((getattr(item.item, "label", None) or item.item.placeholder, item.custom_id,
                         *(f"{o.label}={o.value}" for o in options)))
    return card, controls


def test_no_turn_card_or_control_changes_with_another_factions_secrets(real_prompts):
    """Built from the reader's view and the prompt alone: a card (words, labels, values, custom ids) is the same
    whatever another faction holds, has been dealt or keeps behind its shield."""
    for state, open_prompt in real_prompts[::3]:
        twin = others_secrets_changed(state, open_prompt.faction)
        assert shown(state, open_prompt) == shown(twin, open_prompt), open_prompt


def test_no_turn_card_or_control_names_a_card_hidden_from_its_reader(real_prompts):
    unique = unique_card_names()
    for state, open_prompt in real_prompts:
        hidden = cards_hidden_from(state, open_prompt.faction)
        card, controls = shown(state, open_prompt)
        text = card_text_without_places(card + repr(controls))
        leaked = {c for c in hidden if c in text or (c in unique and unique[c] in text)}
        assert not leaked, (open_prompt, leaked)


def test_the_comparison_catches_a_card_built_from_another_factions_view(real_prompts, monkeypatch):
    """A planted fault: cards built from the Harkonnen's view, whoever reads them. The comparison above sees it."""
    state, open_prompt = next((s, p) for s, p in real_prompts if p.faction != H)
    twin = others_secrets_changed(state, open_prompt.faction)
    assert shown(state, open_prompt) == shown(twin, open_prompt)
    monkeypatch.setattr(render, "view", lambda game, faction: view(game, H))
    assert shown(state, open_prompt) != shown(twin, open_prompt)
