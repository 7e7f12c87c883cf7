"""The any-time panel: what a player may do now outside their open decisions (engine/rules/anytime.py), for them alone.

Where a player finds it: the button "Play a card or act now…" under the welcome DM that opens their DMs for the
game, and the command `/me act` (both named there). Each opens the panel as an ephemeral message: the legal
actions of the clicker's own seat, and their standing orders. Choosing one edits the panel into that action's form
(form_core, rendered like a decision card's: buttons for one choice of at most 24 values, else menus and Submit);
an amount or a question is typed into a modal that states its range.

Everything is worked out anew at every press, from the game as it is and the clicker's seat (never a faction named
in a custom id), so a panel can show nobody anything but their own, and an old panel cannot act on what has
changed: a form whose choices differ now (its fingerprint) answers with the panel as it is now. The custom ids
carry the game, the kind, the fingerprint and the draft, so the panel survives a restart of the bot:

- `mentat:act:<game>`: open a new panel (the welcome DM's button).
- `mentat:any:<game>:menu` (the menu of actions), `mentat:any:<game>:list` (back to it).
- `mentat:any:<game>:<kind>:<fingerprint>:b<index>`: one click (or the modal, with the value clicked).
- `mentat:any:<game>:<kind>:<fingerprint>:<draft>:<part | ok>`: the menus and Submit of a form of several parts.
- `mentat:anym:<game>:<kind>:<fingerprint>:<draft>`: the modal of its amount or question, answered however late
  it comes (bot/discord/lasting_modal.py).

The standing orders (issue 14) are kinds of any-time action like the others; `/me orders` opens a panel of those
alone (`orders_panel_for`), whose forms are the same.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import discord

from bot.app.anytime_words import ORDER_KINDS, choice_text, orders_text, panel_text, part_name, title, value_label
from bot.app.ports import GameRecordRow
from bot.app.seats import now_played_by
from bot.app.words import number_in_range
from bot.discord.common import GameBot, answer, matched_label, matched_menu, refusals
from bot.discord.components import NOT_ON_MENU, form_menu
from bot.discord.errors import reported
from bot.discord.form_core import MAX_CHOICES, Choice, Draft, Field, Form, FormIncomplete, after_menu_choice
from bot.discord.lasting_modal import FORM_CLOSED, LastingModal
from engine.actions import Action
from engine.ids import Faction
from engine.model import GameState
from engine.rules.anytime import (
    Amount,
    AnytimeChoice,
    AnytimeKind,
    Pick,
    Text,
    anytime_action,
    anytime_choice,
    anytime_choices,
)
from engine.secrecy.views import view

OPEN_LABEL = "Play a card or act now…"
BACK_LABEL = "◀ All you may do now"
NOT_NOW = "That is not possible now as it was offered. What you may do now:"
GAME_ID = r"(?P<game>[\w-]+)"
KIND = r"(?P<kind>[a-z_]+)"
FINGERPRINT = r"(?P<fp>[0-9a-f]{6})"
DRAFT = r"(?P<draft>[0-9pw.\-]*)"


@dataclass(frozen=True)
class Occasion:
    """What a panel form answers, as form_core.Asked: a kind of any-time action of one faction."""

    kind: AnytimeKind
    faction: Faction

    @property
    def id(self) -> str:
        return self.kind.value


def typed_parts(choice: AnytimeChoice) -> list[Amount | Text]:
    return [p for p in choice.parts if not isinstance(p, Pick)]


def choice_form(choice: AnytimeChoice, faction: Faction, typed: dict[str, str | int] | None = None) -> Form:
    """The form of one any-time action: a part per Pick (labels in the player's words); the typed parts come from
    the modal (`typed`). An action of no parts at all (Hajr) is one button that plays it."""
    picks = [p for p in choice.parts if isinstance(p, Pick)]
    names = [p.name for p in picks]

    def build(who: Faction, values: list[Any]) -> Action:
        return anytime_action(who, choice.kind, {**dict(zip(names, values, strict=True)), **(typed or {})})

    if not choice.parts:
        confirm = Field(title(choice.kind), (Choice(f"Play it: {title(choice.kind)}", None),))
        return Form(Occasion(choice.kind, faction), (confirm,), lambda who, _: anytime_action(who, choice.kind, {}))
    fields = tuple(Field(part_name(p.name), tuple(Choice(value_label(choice.kind, p.name, o), o) for o in p.options))
                   for p in picks)
    return Form(Occasion(choice.kind, faction), fields, build)


def _buttons_answer(form: Form) -> bool:
    """One part of few enough values to be buttons, with room for the Back button."""
    return len(form.fields) == 1 and len(form.fields[0].choices) < MAX_CHOICES


# --- the views -------------------------------------------------------------------------------------------


def panel_view(game_id: str, choices: list[AnytimeChoice]) -> discord.ui.View:
    view_ = discord.ui.View(timeout=None)
    if choices:  # Discord refuses a menu of no options (the game is over: nothing is left to choose)
        view_.add_item(PanelMenu.of(game_id, choices))
    return view_


def choice_view(game_id: str, choice: AnytimeChoice, faction: Faction, draft: Draft | None = None) -> discord.ui.View:
    form = choice_form(choice, faction)
    view_ = discord.ui.View(timeout=None)
    ellipsis = "…" if typed_parts(choice) else ""
    if _buttons_answer(form):
        for index, option in enumerate(form.fields[0].choices):
            view_.add_item(AnyButton(game_id, choice.kind.value, form.fingerprint, index, option.label + ellipsis))
        view_.add_item(PanelBack(game_id))
        return view_
    draft = draft or Draft.empty(form)
    for row, index in enumerate(range(len(form.fields))):
        custom_id = f"mentat:any:{game_id}:{choice.kind.value}:{form.fingerprint}:{draft.encode()}:{index}"
        view_.add_item(AnySelect(game_id, choice.kind.value, form.fingerprint, draft.encode(), index,
                                 form_menu(form, draft, index, custom_id), row=row))
    label = "Submit" if not typed_parts(choice) else ("Continue…" if form.fields else f"{title(choice.kind)}…")
    view_.add_item(AnySubmit(game_id, choice.kind.value, form.fingerprint, draft.encode(), label,
                             row=len(form.fields)))
    view_.add_item(PanelBack(game_id, row=len(form.fields)))
    return view_


def welcome_view(game_id: str) -> discord.ui.View:
    view_ = discord.ui.View(timeout=None)
    view_.add_item(OpenPanel(game_id))
    return view_


# --- who presses, and what they may do now ------------------------------------------------------------


@dataclass(frozen=True)
class Seat:
    row: GameRecordRow
    state: GameState
    faction: Faction

    def choices(self) -> list[AnytimeChoice]:
        return anytime_choices(self.state, self.faction)

    def text(self) -> str:
        return panel_text(view(self.state, self.faction), self.choices())


async def _seat(interaction: discord.Interaction[Any], game_id: str) -> Seat | None:
    """The game and the clicker's own seat in it, or None (the clicker has been answered)."""
    bot: GameBot = interaction.client
    row = await bot.service.game(game_id)
    if row is None:
        await answer(interaction, "That game is gone.")
        return None
    faction = next((Faction(f) for f, user in row.seats.items() if user == interaction.user.id), None)
    if faction is None:
        await answer(interaction, now_played_by(row, interaction.user.id) or "You have no seat in that game.")
        return None
    return Seat(row, GameState.model_validate_json(row.state_json), faction)


async def _seat_of_user(bot: GameBot, game_id: str, user_id: int) -> Seat | None:
    row = await bot.service.game(game_id)
    if row is None:
        return None
    faction = next((Faction(f) for f, user in row.seats.items() if user == user_id), None)
    return Seat(row, GameState.model_validate_json(row.state_json), faction) if faction is not None else None


async def panel_for(bot: GameBot, game_id: str, user_id: int) -> tuple[str, discord.ui.View] | None:
    """The panel of the user's seat in the game (None: no seat), for /me act."""
    seat = await _seat_of_user(bot, game_id, user_id)
    return (seat.text(), panel_view(game_id, seat.choices())) if seat is not None else None


async def orders_panel_for(bot: GameBot, game_id: str, user_id: int) -> tuple[str, discord.ui.View] | None:
    """The panel of the user's standing orders (None: no seat), for /me orders: the orders as they stand and a
    menu of those that may be changed now (the Karama orders while a card may be readied); each opens its form
    as in the any-time panel."""
    seat = await _seat_of_user(bot, game_id, user_id)
    if seat is None:
        return None
    orders = [c for c in seat.choices() if c.kind in ORDER_KINDS]
    return orders_text(view(seat.state, seat.faction), orders), panel_view(game_id, orders)


async def _choice_now(interaction: discord.Interaction[Any], seat: Seat, kind: str,
                      fingerprint: str | None) -> tuple[AnytimeChoice, Form] | None:
    """The action as the seat may take it now, if it is still what the pressed control was made for; else the
    panel is shown as it is now (the message edited when it can be) and None."""
    known = {k.value for k in AnytimeKind}
    choice = anytime_choice(seat.state, seat.faction, AnytimeKind(kind)) if kind in known else None
    form = choice_form(choice, seat.faction) if choice is not None else None
    if choice is not None and form is not None and (fingerprint is None or form.fingerprint == fingerprint):
        return choice, form
    text = f"{NOT_NOW}\n{seat.text()}"
    if interaction.response.is_done():
        await answer(interaction, text[:2000])
    else:
        await interaction.response.edit_message(content=text[:2000], view=panel_view(seat.row.game_id,
                                                                                      seat.choices()))
    return None


async def _submit(interaction: discord.Interaction[Any], seat: Seat, make, summary: str) -> None:
    """Carry out the action; once done, the panel it came from shows what the player may do now under the line
    saying what was done (the next order or action is one choice away, no "back" needed). A refusal comes as its
    own message and leaves the panel as it was."""
    bot: GameBot = interaction.client
    async with refusals(interaction):
        try:
            action = make()
        except FormIncomplete as missing:
            await answer(interaction, f"Not yet: {missing}")
            return
        accepted = await bot.service.submit(seat.row.game_id, interaction.user.id, action)
        bot.wake_outbox()
        now = await _seat_of_user(bot, seat.row.game_id, interaction.user.id) or seat
        text = f"Done: {summary} (game version {accepted.seq}).\n\n{now.text()}"
        await interaction.edit_original_response(content=text[:2000], view=panel_view(seat.row.game_id,
                                                                                        now.choices()))


# --- the controls ------------------------------------------------------------------------------------------


class OpenPanel(discord.ui.DynamicItem[discord.ui.Button], template=rf"mentat:act:{GAME_ID}"):
    """Opens the clicker's panel as a new message only they see."""

    def __init__(self, game_id: str):
        self.game_id = game_id
        super().__init__(discord.ui.Button(label=OPEN_LABEL, style=discord.ButtonStyle.primary,
                                           custom_id=f"mentat:act:{game_id}"))

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Item[Any],
                             match: re.Match[str]) -> OpenPanel:
        return cls(match["game"])

    @reported
    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        seat = await _seat(interaction, self.game_id)
        if seat is None:
            return
        await interaction.response.send_message(seat.text(), view=panel_view(self.game_id, seat.choices()),
                                                ephemeral=True, allowed_mentions=discord.AllowedMentions.none())


class PanelMenu(discord.ui.DynamicItem[discord.ui.Select], template=rf"mentat:any:{GAME_ID}:menu"):
    """The menu of the actions the panel offers; choosing one shows its form in place."""

    def __init__(self, game_id: str, select: discord.ui.Select):
        self.game_id = game_id
        super().__init__(select)

    @classmethod
    def of(cls, game_id: str, choices: list[AnytimeChoice]) -> PanelMenu:
        options = [discord.SelectOption(label=title(c.kind)[:100], value=c.kind.value) for c in choices]
        return cls(game_id, discord.ui.Select(custom_id=f"mentat:any:{game_id}:menu",
                                              placeholder="Choose what to do…", options=options[:MAX_CHOICES]))

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Item[Any],
                             match: re.Match[str]) -> PanelMenu:
        return cls(match["game"], matched_menu(item))

    @reported
    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        seat = await _seat(interaction, self.game_id)
        if seat is None or len(self.item.values) != 1:
            return
        found = await _choice_now(interaction, seat, self.item.values[0], None)
        if found is not None:
            choice, _form = found
            await interaction.response.edit_message(content=choice_text(choice),
                                                    view=choice_view(self.game_id, choice, seat.faction))


class PanelBack(discord.ui.DynamicItem[discord.ui.Button], template=rf"mentat:any:{GAME_ID}:list"):
    """Back to the list of what the clicker may do now (read anew)."""

    def __init__(self, game_id: str, row: int | None = None):
        self.game_id = game_id
        super().__init__(discord.ui.Button(label=BACK_LABEL, style=discord.ButtonStyle.secondary,
                                           custom_id=f"mentat:any:{game_id}:list"), row=row)

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Item[Any],
                             match: re.Match[str]) -> PanelBack:
        return cls(match["game"])

    @reported
    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        seat = await _seat(interaction, self.game_id)
        if seat is not None:
            await interaction.response.edit_message(content=seat.text(),
                                                    view=panel_view(self.game_id, seat.choices()))


class AnyButton(discord.ui.DynamicItem[discord.ui.Button],
                template=rf"mentat:any:{GAME_ID}:{KIND}:{FINGERPRINT}:b(?P<index>\d+)"):
    """One value of a one-part action: a click takes it, or opens the modal for its amount or question."""

    def __init__(self, game_id: str, kind: str, fingerprint: str, index: int, label: str = "choose"):
        self.game_id, self.kind, self.fingerprint, self.index = game_id, kind, fingerprint, index
        super().__init__(discord.ui.Button(label=label[:80] or "choose", style=discord.ButtonStyle.secondary,
                                           custom_id=f"mentat:any:{game_id}:{kind}:{fingerprint}:b{index}"))

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Item[Any],
                             match: re.Match[str]) -> AnyButton:
        return cls(match["game"], match["kind"], match["fp"], int(match["index"]), matched_label(item, "choose"))

    @reported
    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        seat = await _seat(interaction, self.game_id)
        found = await _choice_now(interaction, seat, self.kind, self.fingerprint) if seat else None
        if seat is None or found is None:
            return
        choice, form = found
        if self.index >= len(form.fields[0].choices):
            return
        if typed_parts(choice):
            await interaction.response.send_modal(TypedModal(self.game_id, choice, form, [self.index]))
            return
        await interaction.response.defer()  # the panel is edited once the action is done
        await _submit(interaction, seat, lambda: form.action([self.index]),
                      f"{title(choice.kind)}: {form.summary([self.index])}")


class AnySelect(discord.ui.DynamicItem[discord.ui.Select],
                template=rf"mentat:any:{GAME_ID}:{KIND}:{FINGERPRINT}:{DRAFT}:(?P<field>\d+)"):
    """The menu of one part of an action's form; choosing edits the panel with the new draft."""

    def __init__(self, game_id: str, kind: str, fingerprint: str, draft_text: str, field: int,
                 select: discord.ui.Select, row: int | None = None):
        self.game_id, self.kind, self.fingerprint, self.draft_text, self.field = (game_id, kind, fingerprint,
                                                                                  draft_text, field)
        super().__init__(select, row=row)

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Item[Any],
                             match: re.Match[str]) -> AnySelect:
        return cls(match["game"], match["kind"], match["fp"], match["draft"], int(match["field"]), matched_menu(item))

    @reported
    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        seat = await _seat(interaction, self.game_id)
        found = await _choice_now(interaction, seat, self.kind, self.fingerprint) if seat else None
        if seat is None or found is None:
            return
        choice, form = found
        draft = Draft.decode(self.draft_text, form)
        values = self.item.values
        if draft is None or self.field >= len(form.fields) or len(values) != 1:
            return
        draft = after_menu_choice(form, draft, self.field, values[0])
        if draft is None:
            await answer(interaction, NOT_ON_MENU)
            return
        await interaction.response.edit_message(view=choice_view(self.game_id, choice, seat.faction, draft))


class AnySubmit(discord.ui.DynamicItem[discord.ui.Button],
                template=rf"mentat:any:{GAME_ID}:{KIND}:{FINGERPRINT}:{DRAFT}:ok"):
    """Submit the form's choices; with an amount or a question to type, the modal first."""

    def __init__(self, game_id: str, kind: str, fingerprint: str, draft_text: str, label: str = "Submit",
                 row: int | None = None):
        self.game_id, self.kind, self.fingerprint, self.draft_text = game_id, kind, fingerprint, draft_text
        super().__init__(discord.ui.Button(label=label[:80], style=discord.ButtonStyle.primary,
                                           custom_id=f"mentat:any:{game_id}:{kind}:{fingerprint}:{draft_text}:ok"),
                         row=row)

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Item[Any],
                             match: re.Match[str]) -> AnySubmit:
        return cls(match["game"], match["kind"], match["fp"], match["draft"], matched_label(item, "Submit"))

    @reported
    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        seat = await _seat(interaction, self.game_id)
        found = await _choice_now(interaction, seat, self.kind, self.fingerprint) if seat else None
        if seat is None or found is None:
            return
        choice, form = found
        draft = Draft.decode(self.draft_text, form)
        if draft is None:
            return
        missing = [f.name.lower() for f, p in zip(form.fields_for(draft.chosen), form.picks(draft.chosen),
                                                  strict=True) if p is None]
        if missing:
            await answer(interaction, f"Not yet: choose your {', '.join(missing)} first.")
            return
        if typed_parts(choice):
            await interaction.response.send_modal(TypedModal(self.game_id, choice, form, list(draft.chosen)))
            return
        await interaction.response.defer()  # the panel is edited once the action is done
        await _submit(interaction, seat, lambda: form.action(draft.chosen),
                      f"{title(choice.kind)}: {form.summary(draft.chosen)}")


class TypedModal(LastingModal):
    """The amount (its legal range written on it) or the question of an action, after its other parts were
    chosen (`chosen`, the draft in the custom id). Answered however late it is submitted
    (bot/discord/lasting_modal.py): everything is checked against the game as it is then. Each input's custom id
    is its part's name."""

    template = re.compile(rf"mentat:anym:{GAME_ID}:{KIND}:{FINGERPRINT}:{DRAFT}")

    def __init__(self, game_id: str, choice: AnytimeChoice, form: Form, chosen: list[int | None]):
        draft = Draft(tuple(chosen), (0,) * len(chosen)).encode()
        super().__init__(title=title(choice.kind),
                         custom_id=f"mentat:anym:{game_id}:{choice.kind.value}:{form.fingerprint}:{draft}")
        self.inputs: dict[str, discord.ui.TextInput] = {}
        for part in typed_parts(choice):
            field: discord.ui.TextInput
            if isinstance(part, Amount):
                field = discord.ui.TextInput(label=f"{part_name(part.name)} ({part.low} to {part.high})"[:45],
                                             placeholder=f"a number from {part.low} to {part.high}",
                                             min_length=1, max_length=6, custom_id=part.name)
            else:
                field = discord.ui.TextInput(label=part_name(part.name)[:45], style=discord.TextStyle.paragraph,
                                             min_length=1, max_length=part.max_length, custom_id=part.name)
            self.inputs[part.name] = field
            self.add_item(field)

    @classmethod
    async def answer(cls, interaction: discord.Interaction[Any], match: re.Match[str], typed: dict[str, str]) -> None:
        await interaction.response.defer()  # the panel the modal came from is edited once the action is done
        seat = await _seat(interaction, match["game"])
        found = await _choice_now(interaction, seat, match["kind"], match["fp"]) if seat else None
        if seat is None or found is None:
            return
        choice, form = found
        draft = Draft.decode(match["draft"], form)
        if draft is None or any(part.name not in typed for part in typed_parts(choice)):
            await answer(interaction, FORM_CLOSED)
            return
        chosen = list(draft.chosen)
        try:
            values = {part.name: _typed_value(part, typed[part.name]) for part in typed_parts(choice)}
        except FormIncomplete as wrong:
            await answer(interaction, f"Not yet: {wrong}")
            return
        filled = choice_form(choice, seat.faction, values)
        said = "; ".join(f"{part_name(name)}: {value}" for name, value in values.items())
        await _submit(interaction, seat, lambda: filled.action(chosen),
                      f"{title(choice.kind)}: " + "; ".join(s for s in (filled.summary(chosen), said) if s))


def _typed_value(part: Amount | Text, typed: str) -> str | int:
    text = typed.strip()
    if isinstance(part, Text):
        if not text or len(text) > part.max_length:
            raise FormIncomplete(f"{part_name(part.name)}: 1 to {part.max_length} characters.")
        return text
    try:
        return number_in_range(text, part.low, part.high, part_name(part.name))
    except ValueError as error:
        raise FormIncomplete(str(error)) from None


DYNAMIC_ITEMS = (OpenPanel, PanelMenu, PanelBack, AnyButton, AnySelect, AnySubmit)
MODALS = (TypedModal,)
