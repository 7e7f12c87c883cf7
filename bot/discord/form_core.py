"""A decision as a form, whatever kind it is: its parts (fields), the legal choices of each, the action they make,
and the draft of the choices made so far as it travels in the components' custom ids. Discord-free
(components.py renders a form; prompt_forms.py and turn_forms.py build the form of each kind of decision).

A form with one field of at most 25 choices is answered with one click (buttons); any other is a set of select
menus and a Submit button. The choices made so far (a draft) live in the message's custom ids, so they survive a
restart of the bot with nothing stored.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from bot.app.words import number_in_range, whole_number
from engine.actions import Action
from engine.ids import Faction

MAX_CHOICES = 25  # Discord: options in one select menu, buttons in one message
MAX_FIELDS = 4  # 5 rows in a message: a select per row, the last row for the buttons (Back, More, Submit)


class FormIncomplete(ValueError):
    """Submit was pressed before a required part was chosen, or with parts that contradict each other."""


@dataclass(frozen=True)
class Choice:
    label: str
    value: Any  # what the form's builder receives for this choice


@dataclass(frozen=True)
class Field:
    name: str  # shown in the select's placeholder and the receipt: "Leader", "Weapon", "Dial"...
    choices: tuple[Choice, ...]
    default: int | None = None  # the choice preselected, or None: it must be chosen
    waiting: bool = False  # its one entry only says which part to choose first: nothing to take yet


@dataclass(frozen=True)
class Amount:
    """Any number in a legal range, typed into a modal that writes the range on it: beside a one-click form's
    buttons when the useful choices are a few of many (a bid)."""

    label: str  # the modal's question, e.g. "Your bid"
    low: int
    high: int
    build: Callable[[Faction, int], Action]

    def action(self, faction: Faction, typed: str) -> Action:
        try:
            return self.build(faction, number_in_range(typed, self.low, self.high, self.label))
        except ValueError as error:
            raise FormIncomplete(str(error)) from None


@dataclass(frozen=True)
class Shortcut:
    """A one-click answer beside a form's own controls: an order given from the decision's own card ("Pass on
    every card this turn", "Ship nothing, move nothing this turn"). With `amount`, the click opens its modal."""

    label: str
    build: Callable[[Faction], Action] | None = None
    amount: Amount | None = None

    def action(self, faction: Faction) -> Action:
        if self.build is None:
            raise FormIncomplete(f"{self.label}: type the amount.")
        return self.build(faction)


Refine = Callable[[list[Any]], tuple[Field, ...]]


class Asked(Protocol):
    """What a form answers: an open decision (engine.model.Prompt), or an action its faction may take at any time
    (bot/discord/anytime_panel.py). `kind` is an enum: its value names the form in fingerprints."""

    @property
    def id(self) -> str: ...

    @property
    def kind(self) -> Any: ...

    @property
    def faction(self) -> Faction: ...


@dataclass(frozen=True)
class Form:
    """A decision's parts. `fields` are the parts as first offered; where a rule ties parts together (the
    tokens that may ship depend on the source, a card played as a weapon is no longer a defense), `refine`
    gives the parts again for the values chosen so far (None where nothing is chosen): the same number of
    parts, later ones re-offered."""

    prompt: Asked
    fields: tuple[Field, ...]
    build: Callable[[Faction, list[Any]], Action]  # the chosen values, one per field, in field order
    refine: Refine | None = None
    amount: Amount | None = None
    shortcuts: tuple[Shortcut, ...] = ()  # buttons beside the form's controls (not part of its fingerprint)

    @property
    def one_click(self) -> bool:
        """One field with few enough choices to be a row of buttons: a click answers."""
        room = MAX_CHOICES - (self.amount is not None) - len(self.shortcuts)
        return len(self.fields) == 1 and len(self.fields[0].choices) <= room

    @property
    def windows(self) -> int:
        """How many messages' worth of menus the form needs (MAX_FIELDS a window)."""
        return max(1, -(-len(self.fields) // MAX_FIELDS))

    @property
    def fingerprint(self) -> str:
        """Six hex digits naming this exact decision: a button made for another form (a decision reopened under
        the same id after an undo, another faction's, other choices) does not match."""
        shape = [self.prompt.kind.value, self.prompt.faction.value,
                 [[f.name, [[c.label, repr(c.value)] for c in f.choices]] for f in self.fields]]
        return hashlib.sha1(json.dumps(shape).encode()).hexdigest()[:6]

    def fields_for(self, chosen: Sequence[int | None]) -> tuple[Field, ...]:
        """The parts as offered after these choices (an index per part, None: not chosen). A choice that a
        refined part no longer offers counts as not chosen."""
        if self.refine is None:
            return self.fields
        fields = self.fields
        for _ in range(len(fields)):  # each pass settles at least one more part
            values = [_value(field, index) for field, index in zip(fields, chosen, strict=True)]
            refined = self.refine(values)
            if refined == fields:
                break
            fields = refined
        return fields

    def picks(self, chosen: Sequence[int | None]) -> list[int | None]:
        """The chosen index of every field, its default where nothing (or nothing still offered) was chosen; a
        part with a single choice is that choice (nothing to ask)."""
        fields = self.fields_for(chosen)
        return [c if c is not None and c < len(f.choices) else 0 if len(f.choices) == 1 and not f.waiting
                else f.default for f, c in zip(fields, chosen, strict=True)]

    def action(self, chosen: Sequence[int | None]) -> Action:
        fields = self.fields_for(chosen)
        picks = self.picks(chosen)
        missing = [f.name for f, p in zip(fields, picks, strict=True) if p is None]
        if missing:
            raise FormIncomplete(f"Choose your {', '.join(m.lower() for m in missing)} first.")
        values = [f.choices[p].value for f, p in zip(fields, picks, strict=True) if p is not None]  # all (above)
        return self.build(self.prompt.faction, values)

    def summary(self, chosen: Sequence[int | None]) -> str:
        """What was chosen, for the decider's receipt (it may name secrets: it goes only to them)."""
        fields = self.fields_for(chosen)
        picks = self.picks(chosen)
        if self.one_click and picks[0] is not None:
            return fields[0].choices[picks[0]].label
        return "; ".join(f"{f.name}: {f.choices[p].label}" for f, p in zip(fields, picks, strict=True)
                         if p is not None)


def _value(field: Field, index: int | None) -> Any:
    """The value chosen in a part; a part with one choice has it without asking (see Form.picks)."""
    if index is None and len(field.choices) == 1 and not field.waiting:
        index = 0
    return field.choices[index].value if index is not None and index < len(field.choices) else None


# --- drafts: the choices made so far, as they travel in custom ids -------------------------------------


@dataclass(frozen=True)
class Draft:
    """Per field: the chosen index (None: not chosen) and the page of its menu shown (menus of more than 25);
    and which window of MAX_FIELDS menus the message shows (forms of more parts than fit one message)."""

    chosen: tuple[int | None, ...]
    pages: tuple[int, ...]
    window: int = 0

    @classmethod
    def empty(cls, form: Form) -> Draft:
        return cls((None,) * len(form.fields), (0,) * len(form.fields))

    def encode(self) -> str:
        """"3.-p1.0": field 0 chose 3, field 1 nothing yet and shows page 1, field 2 chose 0; "w1.3.-p1.0" the
        same draft showing the second window."""
        parts = [("-" if c is None else str(c)) + (f"p{p}" if p else "")
                 for c, p in zip(self.chosen, self.pages, strict=True)]
        return ".".join(([f"w{self.window}"] if self.window else []) + parts)

    @classmethod
    def decode(cls, text: str, form: Form) -> Draft | None:
        """The draft, or None when the text does not fit the form (a forged or foreign custom id)."""
        tokens = text.split(".") if text else []
        window = 0
        if tokens and tokens[0].startswith("w"):
            window = whole_number(tokens.pop(0)[1:]) or 0
            if not 0 < window < form.windows:
                return None
        if len(tokens) != len(form.fields):
            return None
        chosen: list[int | None] = []
        pages = []
        for token in tokens:
            head, _, page = token.partition("p")
            index, page_number = whole_number(head), whole_number(page) if page else 0
            if (head != "-" and index is None) or page_number is None:
                return None
            chosen.append(index)
            pages.append(page_number)
        fields = form.fields_for(chosen)
        for index, number, field in zip(chosen, pages, fields, strict=True):
            if (index is not None and index >= len(field.choices)) or number >= page_count(field):
                return None
        return cls(tuple(chosen), tuple(pages), window)

    def choose(self, form: Form, field: int, index: int) -> Draft:
        """Choose in one part; a later part that the choice re-offers differently is cleared."""
        before = form.fields_for(self.chosen)
        chosen, pages = list(self.chosen), list(self.pages)
        chosen[field] = index
        after = form.fields_for(chosen)
        for later in range(field + 1, len(chosen)):
            if after[later] != before[later]:
                chosen[later], pages[later] = None, 0
        return Draft(tuple(chosen), tuple(pages), self.window)

    def turn_page(self, field: int, page: int) -> Draft:
        pages = list(self.pages)
        pages[field] = page
        return Draft(self.chosen, tuple(pages), self.window)

    def show_window(self, window: int) -> Draft:
        return Draft(self.chosen, self.pages, window)


# --- menus of more than 25 choices: pages of 23 with "earlier" and "later" entries ---------------------

PAGE_SIZE = MAX_CHOICES - 2
EARLIER, LATER = "earlier", "later"  # the page-turning entries of a long menu, valued "earlier:<page>"


def after_menu_choice(form: Form, draft: Draft, field: int, value: str) -> Draft | None:
    """The draft once the menu of part `field` sent `value`: an entry's index, or a page turn; None when the value
    is not one the menu offers (an old menu, or a forged value)."""
    shown = form.fields_for(draft.chosen)[field]
    kind, turn, number = value.partition(":")
    if turn:
        page = whole_number(number)
        if kind in (EARLIER, LATER) and page is not None and page < page_count(shown):
            return draft.turn_page(field, page)
        return None
    index = whole_number(kind)
    return draft.choose(form, field, index) if index is not None and index < len(shown.choices) else None


def page_count(field: Field) -> int:
    if len(field.choices) <= MAX_CHOICES:
        return 1
    return -(-len(field.choices) // PAGE_SIZE)


def page_of(field: Field, page: int) -> tuple[list[int], bool, bool]:
    """The choice indices shown on this page, and whether an "earlier" and a "later" entry go with them."""
    if page_count(field) == 1:
        return list(range(len(field.choices))), False, False
    start = page * PAGE_SIZE
    shown = list(range(start, min(start + PAGE_SIZE, len(field.choices))))
    return shown, page > 0, page < page_count(field) - 1
