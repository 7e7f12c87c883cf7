"""The any-time panel (bot/discord/anytime_panel.py) with fake interactions: it is built from the clicker's own legal
any-time actions (engine/rules/anytime.py), every action it offers is one the rules accept, its controls fit Discord, it
shows a faction nothing that changes with another faction's secrets, and its callbacks act for the clicker's own
seat only (amounts and questions through a modal), catching what changed since the panel was drawn."""

from __future__ import annotations

import discord
import pytest

from bot.app.anytime_words import ORDER_KINDS, orders_text, panel_text
from bot.app.service import GameService
from bot.discord.anytime_panel import (
    DYNAMIC_ITEMS,
    NOT_NOW,
    AnyButton,
    AnySelect,
    AnySubmit,
    OpenPanel,
    PanelBack,
    PanelMenu,
    TypedModal,
    choice_form,
    choice_view,
    panel_view,
    typed_parts,
)
from bot.discord.client import MentatBot
from bot.discord.components import DYNAMIC_ITEMS as CARD_ITEMS
from bot.discord.form_core import MAX_CHOICES, Draft
from bot.discord.lasting_modal import FORM_CLOSED
from bot.store.memory import MemoryGameStore
from engine.actions import SetStormCardOrder, UseKarama
from engine.errors import RuleViolation
from engine.game import apply
from engine.ids import Faction
from engine.model import GameState, Phase
from engine.rng import Rng
from engine.rules.anytime import Amount, AnytimeKind, anytime_choices
from engine.secrecy.views import view
from tests.conftest import ready_game, store_running_game
from tests.helpers.discord_fakes import SNOWFLAKE_GAME, ComponentInteraction, EditingResponse, press_as
from tests.helpers.positions.anytime import QUESTIONS, holding, others_secrets_changed, positions

A, H, BT, E = Faction.ATREIDES, Faction.HARKONNEN, Faction.BENE_TLEILAXU, Faction.EMPEROR
USERS = {A: 101, H: 102, BT: 103}
TEMPLATES = [item.__discord_ui_compiled_template__ for item in (*DYNAMIC_ITEMS, *CARD_ITEMS)]


def controls(view_: discord.ui.View) -> list[tuple[str, str]]:
    """What a view shows: each control's label or placeholder, its options, and its custom id."""
    shown = []
    for item in view_.children:
        inner = item.item if isinstance(item, discord.ui.DynamicItem) else item
        labels = [o.label for o in inner.options] if isinstance(inner, discord.ui.Select) else []
        shown.append((getattr(inner, "label", None) or inner.placeholder, repr(labels), item.custom_id))
    return shown


def every_view(state: GameState, faction: Faction) -> list[discord.ui.View]:
    choices = anytime_choices(state, faction)
    return [panel_view(SNOWFLAKE_GAME, choices)] + [choice_view(SNOWFLAKE_GAME, c, faction) for c in choices]


def first_values(form) -> list[int]:
    return [0] * len(form.fields)


# --- the views ------------------------------------------------------------------------------------------------


def test_a_panel_with_nothing_left_to_choose_has_no_menu():
    """Discord refuses a select menu of no options: once the game is over the panel shows no menu at all."""
    assert panel_view(SNOWFLAKE_GAME, []).children == []
    ended = ready_game(factions=(A, H, BT), seed=3)
    ended.phase = Phase.ENDED
    assert panel_view(SNOWFLAKE_GAME, anytime_choices(ended, H)).children == []
    [menu] = panel_view(SNOWFLAKE_GAME, anytime_choices(ready_game(factions=(A, H, BT), seed=3), H)).children
    assert 1 <= len(menu.item.options) <= MAX_CHOICES


def test_every_panel_and_form_fits_discord_and_every_custom_id_has_one_handler():
    for state in positions()[::4]:
        for faction in state.factions:
            for view_ in every_view(state, faction):
                rows = {item.row if item.row is not None else 0 for item in view_.children}
                assert len(view_.children) <= MAX_CHOICES and len(rows) <= 5
                for item in view_.children:
                    assert len(item.custom_id) <= 100, item.custom_id
                    assert [t.fullmatch(item.custom_id) is not None for t in TEMPLATES].count(True) == 1
                    if isinstance(item.item, discord.ui.Select):
                        assert 0 < len(item.item.options) <= MAX_CHOICES
            for choice in anytime_choices(state, faction):  # each modal, its draft as long as it gets
                form = choice_form(choice, faction)
                longest = [len(field.choices) - 1 for field in form.fields]
                custom_id = TypedModal(SNOWFLAKE_GAME, choice, form, longest).custom_id
                assert len(custom_id) <= 100 and TypedModal.template.fullmatch(custom_id), custom_id


def test_every_action_the_panel_offers_is_accepted():
    """Each button's value, or each menu's first and last value, with the typed parts at their limits: the form
    makes an action the rules accept."""
    tried = 0
    for state in positions()[1::6]:
        for faction in state.factions:
            for choice in anytime_choices(state, faction):
                form = choice_form(choice, faction)
                picks = [[i] for i in range(len(form.fields[0].choices))] if len(form.fields) == 1 else \
                    [[0] * len(form.fields), [len(f.choices) - 1 for f in form.fields]]
                for typed in _typed_values(choice):
                    for chosen in picks:
                        action = choice_form(choice, faction, typed).action(chosen)
                        try:
                            apply(state, action)
                        except RuleViolation as refusal:
                            pytest.fail(f"{action!r} offered but refused: {refusal}")
                        tried += 1
    assert tried > 500


def _typed_values(choice) -> list[dict]:
    parts = typed_parts(choice)
    if not parts:
        return [{}]
    return [{p.name: (p.low if isinstance(p, Amount) else QUESTIONS[0]) for p in parts},
            {p.name: (p.high if isinstance(p, Amount) else QUESTIONS[1]) for p in parts}]


def test_a_factions_panel_does_not_change_with_another_factions_secrets():
    rng = Rng.from_seed(5)
    for state in positions()[2::6]:
        for faction in state.factions:
            changed = others_secrets_changed(state, faction, rng)
            assert [controls(v) for v in every_view(changed, faction)] == [controls(v) for v in
                                                                          every_view(state, faction)]
            assert panel_text(view(changed, faction), anytime_choices(changed, faction)) == \
                panel_text(view(state, faction), anytime_choices(state, faction))


def test_the_panel_says_what_may_be_done_and_the_standing_orders():
    state = ready_game()
    holding(state, H, "karama_1")
    holding(state, A)
    state.faction(H).bid_order.max_bid = 4
    text = panel_text(view(state, H), anytime_choices(state, H))
    assert "- Karama: cancel another faction's advantage (rule A-14)" in text
    assert "- Karama: tax the Bene Tleilaxu 10 spice (rule BT-51)" in text
    assert "- Bidding: outbid the high bid by 1, up to 4 spice, else pass." in text
    assert "- Traitor calls: ask me each time." in text
    atreides = panel_text(view(state, A), anytime_choices(state, A))
    assert "Karama" not in atreides and "- Give a bribe (rule A-16)" in atreides
    state.faction(A).spice = 0
    broke = panel_text(view(state, A), anytime_choices(state, A))
    assert "- No card or power of yours may be played right now." in broke


def test_bt_1_the_bene_tleilaxu_are_offered_no_traitor_call_order():
    """Issue 25 item 12: the BT's panel offered the traitor-call order, though they hold no traitor cards."""
    state = ready_game()
    bt = Faction.BENE_TLEILAXU
    text = orders_text(view(state, bt), [c for c in anytime_choices(state, bt) if c.kind in ORDER_KINDS])
    assert "Traitor calls" not in text and "Spice win: " in text
    assert "Traitor calls" not in panel_text(view(state, bt), anytime_choices(state, bt))


def test_me_orders_lists_the_readers_own_orders_and_karamas_ready_and_offers_the_order_kinds():
    state = ready_game()
    holding(state, H, "karama_1", "karama_2")
    state, _ = apply(state, UseKarama(faction=H, card="karama_1", against=Faction.GUILD,
                                      advantage="half_price_shipping"))
    state, _ = apply(state, SetStormCardOrder(faction=H, never=True))
    state.faction(A).auto_traitor = True  # another faction's order: never in the Harkonnen's words
    orders = [c for c in anytime_choices(state, H) if c.kind in ORDER_KINDS]
    text = orders_text(view(state, H), orders)
    assert text.startswith("**Your standing orders** (secret: only you see them).")
    assert "- Storm cards: never play one." in text and "- Traitor calls: ask me each time." in text
    assert "- Karama: cancel the next time the Spacing Guild ships at half price." in text
    assert [c.kind for c in orders][:8] == [AnytimeKind.KARAMA, AnytimeKind.STORM_CARD_ORDER, AnytimeKind.NEXUS_ORDER,
                                            AnytimeKind.BID_ORDER, AnytimeKind.BID_LIMIT, AnytimeKind.OUTBID_ORDER,
                                            AnytimeKind.REVIVAL_ORDER, AnytimeKind.TRAITOR_ORDER]
    assert "- The Nexus: ask me each time." in text
    assert "always call" not in text


# --- the callbacks ----------------------------------------------------------------------------------------------


class PanelResponse(EditingResponse):
    """Also records the content an edit writes, a message's view, and the modal a press opens."""

    def __init__(self, log: list):
        super().__init__(log)
        self.modal = None
        self.sent_view = None

    async def edit_message(self, *, content=None, view=None, **_):
        self.log.append(("edit", content, False))
        self.edited_view = view
        self._done = True

    async def send_message(self, content=None, *, ephemeral=False, view=None, **_):
        self.sent_view = view
        await super().send_message(content, ephemeral=ephemeral)

    async def send_modal(self, modal):
        self.modal = modal
        self._done = True


class PanelInteraction(ComponentInteraction):
    def __init__(self, client, user_id: int):
        super().__init__(client, user_id)
        self.response = PanelResponse(self.log)


async def press(item_cls, view_item, bot, user: int, values=None) -> PanelInteraction:
    return await press_as(PanelInteraction, item_cls, view_item, bot, user, values)


async def submit_modal(bot, user: int, modal: TypedModal, **typed: str) -> PanelInteraction:
    """Submit a modal as Discord does: its custom id and what was typed into each input, to the bot's
    `on_interaction` (the modal object is not asked: after a restart the bot has none)."""
    interaction = PanelInteraction(bot, user)
    interaction.type = discord.InteractionType.modal_submit
    interaction.data = {"custom_id": modal.custom_id, "components": [
        {"type": 1, "components": [{"type": 4, "custom_id": modal.inputs[name].custom_id, "value": text}]}
        for name, text in typed.items()]}
    await bot.on_interaction(interaction)
    return interaction


@pytest.fixture
async def table():
    """A running game of the Atreides, the Harkonnen (holding a Karama and a Truthtrance) and the BT."""
    bot = MentatBot(GameService(MemoryGameStore()))
    state = ready_game(factions=(A, H, BT), seed=3)
    holding(state, H, "karama_1", "truthtrance_1")
    game_id = await store_running_game(bot.service.store, state, USERS, channel_id=55)
    return bot, game_id


def item_labelled(view_: discord.ui.View, label: str):
    return next(item for item in view_.children if getattr(item.item, "label", None) == label)


async def test_the_open_button_shows_the_clickers_own_panel(table):
    bot, game_id = table
    opened = await press(OpenPanel, OpenPanel(game_id), bot, USERS[H])
    [(text, ephemeral)] = opened.answers
    assert ephemeral and "Karama: tax the Bene Tleilaxu 10 spice" in text
    menu = opened.response.sent_view.children[0]
    assert [o.value for o in menu.item.options] == ["karama", "karama_tax_bt", "karama_destroy_trap", "truthtrance",
                                                    "bribe", "storm_card_order", "nexus_order", "bid_order",
                                                    "bid_limit", "outbid_order", "revival_order", "traitor_order"]
    theirs = await press(OpenPanel, OpenPanel(game_id), bot, USERS[A])  # the same button, the Atreides' own panel
    assert "Karama" not in theirs.answers[0][0]
    stranger = await press(OpenPanel, OpenPanel(game_id), bot, 999)
    assert stranger.answers == [("You have no seat in that game.", True)]


async def test_choosing_an_action_shows_its_form_and_a_click_plays_it(table):
    bot, game_id = table
    state = await bot.service.state_of(game_id)
    menu = PanelMenu.of(game_id, anytime_choices(state, H))
    chosen = await press(PanelMenu, menu, bot, USERS[H], values=["karama_tax_bt"])
    [(kind, content, _)] = chosen.log
    assert kind == "edit" and content.startswith("**Karama: tax the Bene Tleilaxu 10 spice** (rule BT-51")
    button = item_labelled(chosen.response.edited_view, "Karama")
    done = await press(AnyButton, button, bot, USERS[H])
    assert done.answers[-1][0].startswith("Done: Karama: tax the Bene Tleilaxu 10 spice: Karama (game version 1)")
    after = await bot.service.state_of(game_id)
    assert "karama_1" in after.treachery_discard and after.faction(BT).spice == max(0, state.faction(BT).spice - 10)
    again = await press(AnyButton, button, bot, USERS[H])  # the card is gone: the panel as it is now
    assert again.log[0][0] == "edit" and again.log[0][1].startswith(NOT_NOW)
    assert len(await bot.service.store.actions(game_id)) == 1


async def test_menus_then_submit_ready_a_karama_in_secret(table):
    bot, game_id = table
    state = await bot.service.state_of(game_id)
    [karama] = [c for c in anytime_choices(state, H) if c.kind == AnytimeKind.KARAMA]
    form_view = choice_view(game_id, karama, H)
    card, advantage = [item for item in form_view.children if isinstance(item, AnySelect)][:2]
    assert card.item.disabled and card.item.placeholder == "Card: Karama"  # their one Karama: nothing to ask
    assert not advantage.item.disabled
    submit = next(item for item in form_view.children if isinstance(item, AnySubmit))
    missing = await press(AnySubmit, submit, bot, USERS[H])  # the advantage is not chosen yet
    assert missing.answers == [("Not yet: choose your advantage first.", True)]
    index = karama.part("advantage").options.index("prescience")
    picked = await press(AnySelect, advantage, bot, USERS[H], values=[str(index)])
    submit = next(item for item in picked.response.edited_view.children if isinstance(item, AnySubmit))
    done = await press(AnySubmit, submit, bot, USERS[H])
    assert done.answers[-1][0].startswith("Done: Karama: cancel another faction's advantage: Card: Karama; "
                                          "Advantage: Atreides: ask the prescience question")
    after = await bot.service.state_of(game_id)
    assert [(o.faction, o.card, o.advantage) for o in after.karama_orders] == [(H, "karama_1", "prescience")]


async def test_a_truthtrance_question_is_typed_into_a_modal(table):
    bot, game_id = table
    state = await bot.service.state_of(game_id)
    [truthtrance] = [c for c in anytime_choices(state, H) if c.kind == AnytimeKind.TRUTHTRANCE]
    button = item_labelled(choice_view(game_id, truthtrance, H), "Atreides…")
    shown = await press(AnyButton, button, bot, USERS[H])
    modal = shown.response.modal
    assert isinstance(modal, TypedModal) and modal.inputs["question"].max_length == 300
    blank = await submit_modal(bot, USERS[H], modal, question="   ")
    assert blank.answers == [("Not yet: Question: 1 to 300 characters.", True)]
    asked = await submit_modal(bot, USERS[H], modal, question="Do you hold a traitor?")
    assert asked.answers[-1][0].startswith("Done: Truthtrance: ask a yes/no question: Atreides; Question: Do you")
    after = await bot.service.state_of(game_id)
    assert [(p.faction, p.detail["question"]) for p in after.prompts if p.kind.value == "truthtrance"] == [
        (A, "Do you hold a traitor?")]


async def test_a_bribe_amount_is_checked_against_the_spice_held(table):
    bot, game_id = table
    state = await bot.service.state_of(game_id)
    [bribe] = [c for c in anytime_choices(state, H) if c.kind == AnytimeKind.BRIBE]
    spice = state.faction(H).spice
    shown = await press(AnyButton, item_labelled(choice_view(game_id, bribe, H), "Atreides…"), bot, USERS[H])
    modal = shown.response.modal
    assert modal.inputs["amount"].placeholder == f"a number from 1 to {spice}"
    too_much = await submit_modal(bot, USERS[H], modal, amount=str(spice + 1))
    assert too_much.answers[0][0].startswith(f"Not yet: Spice: a whole number from 1 to {spice}")
    superscript = await submit_modal(bot, USERS[H], modal, amount="²")
    assert superscript.answers == [(f"Not yet: Spice: a whole number from 1 to {spice}, written with the digits "
                                    "0-9, not '²'.", True)]
    assert (await bot.service.state_of(game_id)).faction(A).bribes == 0
    paid = await submit_modal(bot, USERS[H], modal, amount="2")
    assert paid.answers[-1][0].startswith("Done: Give a bribe: Atreides; Spice: 2")
    after = await bot.service.state_of(game_id)
    assert after.faction(A).bribes == 2 and after.faction(H).spice == spice - 2


async def test_a_bribe_typed_into_a_modal_opened_before_a_restart_is_given(table):
    """The modal is answered from its custom id and what was typed: a new bot, which never saw it, gives the bribe."""
    bot, game_id = table
    state = await bot.service.state_of(game_id)
    [bribe] = [c for c in anytime_choices(state, H) if c.kind == AnytimeKind.BRIBE]
    shown = await press(AnyButton, item_labelled(choice_view(game_id, bribe, H), "Atreides…"), bot, USERS[H])
    restarted = MentatBot(bot.service)
    paid = await submit_modal(restarted, USERS[H], shown.response.modal, amount="2")
    assert paid.answers[-1][0].startswith("Done: Give a bribe: Atreides; Spice: 2")
    assert (await bot.service.state_of(game_id)).faction(A).bribes == 2


async def test_a_question_typed_after_the_truthtrance_was_played_shows_the_panel_as_it_is_now(table):
    bot, game_id = table
    state = await bot.service.state_of(game_id)
    [truthtrance] = [c for c in anytime_choices(state, H) if c.kind == AnytimeKind.TRUTHTRANCE]
    button = item_labelled(choice_view(game_id, truthtrance, H), "Atreides…")
    first = await press(AnyButton, button, bot, USERS[H])
    second = await press(AnyButton, button, bot, USERS[H])  # the same question's modal, opened twice
    await submit_modal(bot, USERS[H], first.response.modal, question="Do you hold a traitor?")
    late = await submit_modal(bot, USERS[H], second.response.modal, question="Will you attack?")
    assert late.answers[0][0].startswith(NOT_NOW) and "Truthtrance" not in late.answers[0][0]
    assert len(await bot.service.store.actions(game_id)) == 1  # the second question was not asked


async def test_a_modal_the_bot_cannot_read_is_answered_that_it_closed(table):
    """A modal sent before modals carried what they need in their custom ids (a random one) is still answered."""
    bot, _ = table
    interaction = PanelInteraction(bot, USERS[H])
    interaction.type = discord.InteractionType.modal_submit
    interaction.data = {"custom_id": "5f2b8e1c9a7d4e3f8b6a1c2d3e4f5a6b", "components": []}
    await bot.on_interaction(interaction)
    assert interaction.answers == [(FORM_CLOSED, True)]


async def test_a_standing_bid_limit_is_set_through_its_modal_and_back_shows_the_list(table):
    bot, game_id = table
    state = await bot.service.state_of(game_id)
    [limit] = [c for c in anytime_choices(state, A) if c.kind == AnytimeKind.BID_LIMIT]
    form_view = choice_view(game_id, limit, A)
    submit = next(item for item in form_view.children if isinstance(item, AnySubmit))
    shown = await press(AnySubmit, submit, bot, USERS[A])
    await submit_modal(bot, USERS[A], shown.response.modal, max_bid="6")
    assert (await bot.service.state_of(game_id)).faction(A).bid_order.max_bid == 6
    back = await press(PanelBack, next(i for i in form_view.children if isinstance(i, PanelBack)), bot, USERS[A])
    assert "- Bidding: outbid the high bid by 1, up to 6 spice, else pass." in back.log[0][1]


async def test_a_panel_form_pressed_by_another_seat_acts_for_that_seat_only(table):
    """Custom ids name no faction: the Atreides pressing the Harkonnen's Karama form get their own panel."""
    bot, game_id = table
    state = await bot.service.state_of(game_id)
    [tax] = [c for c in anytime_choices(state, H) if c.kind == AnytimeKind.KARAMA_TAX_BT]
    pressed = await press(AnyButton, choice_view(game_id, tax, H).children[0], bot, USERS[A])
    assert pressed.log[0][1].startswith(NOT_NOW)
    assert await bot.service.store.actions(game_id) == []
    assert Draft.decode("", choice_form(tax, H)) is None  # one part: a draft of none does not fit
