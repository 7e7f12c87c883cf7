"""Secret decisions in the decider's DMs: buttons and select menus that survive a restart.

Every decision gets a form (bot/discord/prompt_forms.py). A form of one field with at most 25 choices is a
row of buttons, `mentat:<game>:<prompt>:<index>:<fingerprint>`: a click answers. Any other form is one select
menu per part and a Submit button, `mentat:f:<game>:<prompt>:<fingerprint>:<draft>:<part | ok>`, where the
draft is the choices made so far: choosing in a menu edits the message so that every custom id carries the new
draft. The message itself is the draft store, so nothing is kept in memory or in the database, a restart loses
nothing, and two messages of one decision cannot get mixed up. An amount is typed into a modal,
`mentat:m:<game>:<prompt>:<fingerprint>:<shortcut | ->`, answered however late it comes (lasting_modal.py).

Every press reloads the game: a decision closed (or reopened as another one after an undo: the fingerprint
differs) answers "That decision is already closed." and changes nothing. The action goes through
`service.submit(..., prompt_id=...)`, which checks the seat; the clicker alone gets the receipt.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import discord

from bot.app.ports import GameRecordRow
from bot.app.seats import now_played_by
from bot.discord.common import GameBot, answer, answer_in_time, matched_label, matched_menu, refusals
from bot.discord.errors import reported
from bot.discord.form_core import (
    EARLIER,
    LATER,
    MAX_CHOICES,
    MAX_FIELDS,
    Amount,
    Draft,
    Form,
    FormIncomplete,
    Shortcut,
    after_menu_choice,
    page_count,
    page_of,
)
from bot.discord.lasting_modal import LastingModal
from bot.discord.prompt_forms import form_for
from engine.actions import Action
from engine.errors import RuleViolation
from engine.flow import asked_again_as, legal_choices
from engine.model import GameState, Prompt
from engine.names import faction_name

CLOSED = "That decision is already closed."
NOT_ON_MENU = "That choice is not on this menu now: choose one of its entries."
AMOUNT_INPUT = "amount"  # the custom id of an amount modal's one input
GAME_ID = r"(?P<game>[\w-]+)"
PROMPT_ID = r"(?P<prompt>p\d+)"
FINGERPRINT = r"(?P<fp>[0-9a-f]{6})"


def _button_labels(form: Form) -> list[str]:
    """A one-click form's choices as its buttons show them (Discord cuts a button's label at 80 characters)."""
    return [choice.label[:80] for choice in form.fields[0].choices] if form.one_click else []


async def _open_form(interaction: discord.Interaction[Any], game_id: str, prompt_id: str,
                     fingerprint: str | None, clicked: str | None = None) -> tuple[GameRecordRow, Form] | None:
    """The game and the form of the decision this component was made for, or None (the clicker has been
    answered) when it is closed, is another decision now, or the clicker does not hold its seat. A decision asked
    again since the card was made is that decision still when its choices are the same, or, for a button
    `clicked`, when the new card still offers that button (the Nexus asks everyone again after each "done")."""
    bot: GameBot = interaction.client
    row = await bot.service.game(game_id)
    form = None
    if row is not None:
        state = GameState.model_validate_json(row.state_json)
        closed = state.prompt(prompt_id) is None
        successor = asked_again_as(state, prompt_id) if closed and fingerprint is not None else None
        try:
            form = form_for(legal_choices(state, successor.id if successor is not None else prompt_id))
        except RuleViolation:  # closed
            form = None
    if (form is not None and fingerprint is not None and form.fingerprint != fingerprint
            and (successor is None or clicked is None or clicked not in _button_labels(form))):
        form = None
    if row is None or form is None:  # no row: no form either
        await answer(interaction, CLOSED)
        return None
    if row.seats.get(form.prompt.faction.value) != interaction.user.id:
        await answer(interaction, now_played_by(row, interaction.user.id, form.prompt.faction.value)
                     or f"Refused: You are not seated as {faction_name(form.prompt.faction)} in this game.")
        return None
    return row, form


async def _submit(interaction: discord.Interaction[Any], row: GameRecordRow, form: Form,
                  make: Callable[[], Action], done: Callable[[], str]) -> None:
    """Submit the action the form makes for the decision; the clicker gets the receipt (only they see it)."""
    bot: GameBot = interaction.client
    async with refusals(interaction):
        try:
            action = make()
        except FormIncomplete as missing:
            await answer(interaction, f"Not yet: {missing}")
            return
        accepted = await bot.service.submit(row.game_id, interaction.user.id, action, prompt_id=form.prompt.id,
                                            key=str(interaction.id))
        bot.wake_outbox()
        await answer(interaction, f"Done: {done()} (game version {accepted.seq}).")


# --- one click ---------------------------------------------------------------------------------------


class PromptButton(discord.ui.DynamicItem[discord.ui.Button],
                   template=rf"mentat:{GAME_ID}:{PROMPT_ID}:(?P<index>\d+)(?::{FINGERPRINT})?"):
    """One choice of a one-click decision. (Buttons sent before fingerprints existed have none; they still
    work, checked against the decision's id alone.)"""

    def __init__(self, game_id: str, prompt_id: str, index: int, label: str = "choose",
                 fingerprint: str | None = None):
        self.game_id, self.prompt_id, self.index, self.fingerprint = game_id, prompt_id, index, fingerprint
        self.label = label[:80] or "choose"
        suffix = f":{fingerprint}" if fingerprint else ""
        super().__init__(discord.ui.Button(label=self.label, style=discord.ButtonStyle.secondary,
                                           custom_id=f"mentat:{game_id}:{prompt_id}:{index}{suffix}"))

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Item[Any],
                             match: re.Match[str]) -> PromptButton:
        return cls(match["game"], match["prompt"], int(match["index"]), matched_label(item, "choose"), match["fp"])

    @reported
    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        async def work() -> None:
            opened = await _open_form(interaction, self.game_id, self.prompt_id, self.fingerprint, self.label)
            if opened is None:
                return
            row, form = opened
            # the same button on the card of the decision asked again may stand at another place
            index = (self.index if self.fingerprint in (None, form.fingerprint)
                     else _button_labels(form).index(self.label))
            if not form.one_click or index >= len(form.fields[0].choices):
                await answer(interaction, CLOSED)
                return
            await _submit(interaction, row, form, lambda: form.action([index]), lambda: self.label)

        await answer_in_time(interaction, work())


class AmountButton(discord.ui.DynamicItem[discord.ui.Button],
                   template=rf"mentat:n:{GAME_ID}:{PROMPT_ID}:{FINGERPRINT}"):
    """Beside a one-click form's buttons: any other amount, typed into a modal that states the legal range."""

    def __init__(self, game_id: str, prompt_id: str, fingerprint: str, label: str = "Other amount"):
        self.game_id, self.prompt_id, self.fingerprint = game_id, prompt_id, fingerprint
        super().__init__(discord.ui.Button(label=label[:80], style=discord.ButtonStyle.secondary,
                                           custom_id=f"mentat:n:{game_id}:{prompt_id}:{fingerprint}"))

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Item[Any],
                             match: re.Match[str]) -> AmountButton:
        return cls(match["game"], match["prompt"], match["fp"], matched_label(item, "Other amount"))

    @reported
    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        opened = await _open_form(interaction, self.game_id, self.prompt_id, self.fingerprint)
        if opened is None:
            return
        _row, form = opened
        if form.amount is None:
            await answer(interaction, CLOSED)
            return
        await interaction.response.send_modal(AmountModal(self.game_id, form))


def _amount_of(form: Form, shortcut: int | None) -> Amount | None:
    """The form's own amount (`shortcut` None), or the amount of one of its shortcuts; None if there is none."""
    if shortcut is None:
        return form.amount
    return form.shortcuts[shortcut].amount if shortcut < len(form.shortcuts) else None


class AmountModal(LastingModal):
    """The amount's question with its legal range; what is typed is checked against the range, then by the
    rules. The amount is the form's own ("Other amount", `-` in the custom id) or a shortcut's (its index).
    Answered however late it is submitted (bot/discord/lasting_modal.py): the decision as it is then."""

    template = re.compile(rf"mentat:m:{GAME_ID}:{PROMPT_ID}:{FINGERPRINT}:(?P<shortcut>-|\d+)")

    def __init__(self, game_id: str, form: Form, shortcut: int | None = None):
        amount = _amount_of(form, shortcut)
        if amount is None:  # opened only where the form or the shortcut has an amount
            raise ValueError(f"no amount to ask in the form of {form.prompt.id} (shortcut {shortcut})")
        which = "-" if shortcut is None else str(shortcut)
        super().__init__(title=amount.label,
                         custom_id=f"mentat:m:{game_id}:{form.prompt.id}:{form.fingerprint}:{which}")
        self.add_item(discord.ui.TextInput(label=f"{amount.label} ({amount.low} to {amount.high})"[:45],
                                           placeholder=f"a number from {amount.low} to {amount.high}",
                                           min_length=1, max_length=6, custom_id=AMOUNT_INPUT))

    @classmethod
    async def answer(cls, interaction: discord.Interaction[Any], match: re.Match[str], typed: dict[str, str]) -> None:
        async def work() -> None:
            opened = await _open_form(interaction, match["game"], match["prompt"], match["fp"])
            if opened is None:
                return
            row, form = opened
            amount = _amount_of(form, None if match["shortcut"] == "-" else int(match["shortcut"]))
            if amount is None or AMOUNT_INPUT not in typed:
                await answer(interaction, CLOSED)
                return
            text = typed[AMOUNT_INPUT]
            await _submit(interaction, row, form, lambda: amount.action(form.prompt.faction, text),
                          lambda: f"{amount.label}: {text.strip()}")

        await answer_in_time(interaction, work())


class ShortcutButton(discord.ui.DynamicItem[discord.ui.Button],
                     template=rf"mentat:s:{GAME_ID}:{PROMPT_ID}:{FINGERPRINT}:(?P<index>\d+)"):
    """Beside a form's controls: an order given from the decision's card, answering it in one click (or in the
    modal of its amount)."""

    def __init__(self, game_id: str, prompt_id: str, fingerprint: str, index: int, label: str = "choose",
                 row: int | None = None):
        self.game_id, self.prompt_id, self.fingerprint, self.index = game_id, prompt_id, fingerprint, index
        super().__init__(discord.ui.Button(label=label[:80] or "choose", style=discord.ButtonStyle.secondary,
                                           custom_id=f"mentat:s:{game_id}:{prompt_id}:{fingerprint}:{index}"),
                         row=row)

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Item[Any],
                             match: re.Match[str]) -> ShortcutButton:
        return cls(match["game"], match["prompt"], match["fp"], int(match["index"]), matched_label(item, "choose"))

    @reported
    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        opened = await _open_form(interaction, self.game_id, self.prompt_id, self.fingerprint)
        if opened is None:
            return
        row, form = opened
        if self.index >= len(form.shortcuts):
            await answer(interaction, CLOSED)
            return
        shortcut = form.shortcuts[self.index]
        if shortcut.amount is not None:
            await interaction.response.send_modal(AmountModal(self.game_id, form, self.index))
            return
        await answer_in_time(interaction, _submit(interaction, row, form, lambda: shortcut.action(form.prompt.faction),
                                                  lambda: shortcut.label))


def shortcut_label(shortcut: Shortcut) -> str:
    """A shortcut's button: with an amount, its range written on it ("Bid up to N for me… (3 to 12)")."""
    amount = shortcut.amount
    return f"{shortcut.label} ({amount.low} to {amount.high})" if amount is not None else shortcut.label


# --- several parts: select menus, a draft in the custom ids, and Submit ---------------------------------

FORM_PREFIX = rf"mentat:f:{GAME_ID}:{PROMPT_ID}:{FINGERPRINT}:(?P<draft>[0-9pw.\-]*)"


def _form_id(game_id: str, prompt_id: str, fingerprint: str, draft_text: str, part: str) -> str:
    return f"mentat:f:{game_id}:{prompt_id}:{fingerprint}:{draft_text}:{part}"


class FormSelect(discord.ui.DynamicItem[discord.ui.Select], template=rf"{FORM_PREFIX}:(?P<field>\d+)"):
    """The menu of one part of a form. Choosing (or turning its page) edits the message: the new draft."""

    def __init__(self, game_id: str, prompt_id: str, fingerprint: str, draft_text: str, field: int,
                 select: discord.ui.Select, row: int | None = None):
        self.game_id, self.prompt_id, self.fp, self.draft_text, self.field = (game_id, prompt_id, fingerprint,
                                                                              draft_text, field)
        super().__init__(select, row=row)

    @classmethod
    def of(cls, game_id: str, form: Form, draft: Draft, field: int, row: int) -> FormSelect:
        """The menu of part `field`, as the draft shows it, in row `row` of the message."""
        custom_id = _form_id(game_id, form.prompt.id, form.fingerprint, draft.encode(), str(field))
        return cls(game_id, form.prompt.id, form.fingerprint, draft.encode(), field,
                   form_menu(form, draft, field, custom_id), row=row)

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Item[Any],
                             match: re.Match[str]) -> FormSelect:
        return cls(match["game"], match["prompt"], match["fp"], match["draft"], int(match["field"]), matched_menu(item))

    @reported
    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        opened = await _open_form(interaction, self.game_id, self.prompt_id, self.fp)
        if opened is None:
            return
        _row, form = opened
        draft = Draft.decode(self.draft_text, form)
        values = self.item.values
        if draft is None or self.field >= len(form.fields) or len(values) != 1:
            await answer(interaction, CLOSED)
            return
        draft = after_menu_choice(form, draft, self.field, values[0])
        if draft is None:
            await answer(interaction, NOT_ON_MENU)
            return
        await interaction.response.edit_message(view=form_view(self.game_id, form, draft))


class FormWindow(discord.ui.DynamicItem[discord.ui.Button], template=rf"{FORM_PREFIX}:w(?P<window>\d)"):
    """"More choices" and "Back": a form of more parts than fit one message shows them MAX_FIELDS at a time."""

    def __init__(self, game_id: str, prompt_id: str, fingerprint: str, draft_text: str, window: int, label: str,
                 row: int | None = None):
        self.game_id, self.prompt_id, self.fp, self.draft_text, self.window = (game_id, prompt_id, fingerprint,
                                                                               draft_text, window)
        super().__init__(discord.ui.Button(label=label, style=discord.ButtonStyle.secondary,
                                           custom_id=_form_id(game_id, prompt_id, fingerprint, draft_text,
                                                              f"w{window}")), row=row)

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Item[Any],
                             match: re.Match[str]) -> FormWindow:
        return cls(match["game"], match["prompt"], match["fp"], match["draft"], int(match["window"]),
                   matched_label(item, "More"))

    @reported
    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        opened = await _open_form(interaction, self.game_id, self.prompt_id, self.fp)
        if opened is None:
            return
        _row, form = opened
        draft = Draft.decode(self.draft_text, form)
        if draft is None or self.window >= form.windows:
            await answer(interaction, CLOSED)
            return
        await interaction.response.edit_message(view=form_view(self.game_id, form, draft.show_window(self.window)))


class FormSubmit(discord.ui.DynamicItem[discord.ui.Button], template=rf"{FORM_PREFIX}:ok"):
    def __init__(self, game_id: str, prompt_id: str, fingerprint: str, draft_text: str, row: int | None = None):
        self.game_id, self.prompt_id, self.fp, self.draft_text = game_id, prompt_id, fingerprint, draft_text
        super().__init__(discord.ui.Button(label="Submit", style=discord.ButtonStyle.primary,
                                           custom_id=_form_id(game_id, prompt_id, fingerprint, draft_text, "ok")),
                         row=row)

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Item[Any],
                             match: re.Match[str]) -> FormSubmit:
        return cls(match["game"], match["prompt"], match["fp"], match["draft"])

    @reported
    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        async def work() -> None:
            opened = await _open_form(interaction, self.game_id, self.prompt_id, self.fp)
            if opened is None:
                return
            row, form = opened
            draft = Draft.decode(self.draft_text, form)
            if draft is None:
                await answer(interaction, CLOSED)
                return
            await _submit(interaction, row, form, lambda: form.action(draft.chosen), lambda: form.summary(draft.chosen))

        await answer_in_time(interaction, work())


def form_menu(form: Form, draft: Draft, field_index: int, custom_id: str) -> discord.ui.Select:
    """One part's menu: this page of its choices (the chosen one marked), with entries to turn the page."""
    field = form.fields_for(draft.chosen)[field_index]
    chosen = form.picks(draft.chosen)[field_index]
    shown, earlier, later = page_of(field, draft.pages[field_index])
    page = draft.pages[field_index]
    options = [discord.SelectOption(label=f"◀ earlier choices (page {page} of {page_count(field)})",
                                    value=f"{EARLIER}:{page - 1}")] if earlier else []
    options += [discord.SelectOption(label=field.choices[i].label[:100], value=str(i), default=i == chosen)
                for i in shown]
    if later:
        options.append(discord.SelectOption(label=f"later choices ▶ (page {page + 2} of {page_count(field)})",
                                            value=f"{LATER}:{page + 1}"))
    placeholder = field.name if chosen is None else f"{field.name}: {field.choices[chosen].label}"
    # a part with one entry is shown but not asked: taken as it is, or waiting for the part before it
    return discord.ui.Select(custom_id=custom_id, placeholder=placeholder[:150], options=options[:MAX_CHOICES],
                             disabled=len(field.choices) == 1)


def form_view(game_id: str, form: Form, draft: Draft) -> discord.ui.View:
    view = discord.ui.View(timeout=None)
    if form.one_click:
        for index, choice in enumerate(form.fields[0].choices):
            view.add_item(PromptButton(game_id, form.prompt.id, index, choice.label, form.fingerprint))
        if form.amount is not None:
            view.add_item(AmountButton(game_id, form.prompt.id, form.fingerprint,
                                       f"Other amount ({form.amount.low} to {form.amount.high})"))
        for index, shortcut in enumerate(form.shortcuts):
            view.add_item(ShortcutButton(game_id, form.prompt.id, form.fingerprint, index, shortcut_label(shortcut)))
        return view
    first = draft.window * MAX_FIELDS
    shown = range(first, min(first + MAX_FIELDS, len(form.fields)))
    for row, index in enumerate(shown):
        view.add_item(FormSelect.of(game_id, form, draft, index, row))
    text = draft.encode()
    buttons_row = len(shown)
    if draft.window > 0:
        view.add_item(FormWindow(game_id, form.prompt.id, form.fingerprint, text, draft.window - 1, "◀ Back",
                                 row=buttons_row))
    if draft.window + 1 < form.windows:
        view.add_item(FormWindow(game_id, form.prompt.id, form.fingerprint, text, draft.window + 1,
                                 "More choices ▶", row=buttons_row))
    view.add_item(FormSubmit(game_id, form.prompt.id, form.fingerprint, text, row=buttons_row))
    for index, shortcut in enumerate(form.shortcuts):
        view.add_item(ShortcutButton(game_id, form.prompt.id, form.fingerprint, index, shortcut_label(shortcut),
                                     row=buttons_row))
    return view


def prompt_view(game_id: str, prompt: Prompt, recipient: str | None) -> discord.ui.View | None:
    """The buttons or menus of a decision, for a message to `recipient` (a faction value; None: the channel).
    Only the deciding faction's DM ever gets them: the choices may name its secrets."""
    if recipient != prompt.faction.value:
        return None
    form = form_for(prompt)
    return form_view(game_id, form, Draft.empty(form)) if form is not None else None


DYNAMIC_ITEMS = (PromptButton, AmountButton, ShortcutButton, FormSelect, FormWindow, FormSubmit)
MODALS = (AmountModal,)
