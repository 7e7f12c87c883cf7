"""Modals answered however late they are submitted, and after a restart of the bot.

Discord keeps a modal open as long as the player likes; discord.py answers a submit only while it holds the modal
in memory (until its timeout, and never after a restart), and otherwise drops it: the player reads "This
interaction failed" and what they typed is lost. So the bot's modals are never held: a `LastingModal` carries in
its custom id all that its answer needs (the game, the decision, the fingerprint of the form, the draft), as the
buttons' custom ids do, and is stopped before it is sent, so that discord.py keeps no copy. Every submit comes to
`answer_modal` (the bot's `on_interaction`), which rebuilds the request from the custom id and what was typed: the
game is read as it is then, and a decision that has closed since is answered as closed, never with silence.

Every modal of the bot is a LastingModal: a submit that matches none of them (a modal sent before this was so) is
answered that the form has closed.
"""

from __future__ import annotations

import re
from typing import Any, ClassVar

import discord

from bot.discord.common import answer
from bot.discord.errors import report

FORM_CLOSED = "That form has closed: open it again from its message."


class LastingModal(discord.ui.Modal):
    """A modal whose submit is answered from its custom id (`template`) and the values typed, by `answer`."""

    template: ClassVar[re.Pattern[str]]

    def __init__(self, *, title: str, custom_id: str):
        super().__init__(title=title[:45], custom_id=custom_id, timeout=None)
        self.stop()  # discord.py keeps no copy: answer_modal answers the submit, however late it comes

    @classmethod
    async def answer(cls, interaction: discord.Interaction[Any], match: re.Match[str], typed: dict[str, str]) -> None:
        """Answer the submit of the modal of this custom id, with the text typed into each input (by custom id)."""
        raise NotImplementedError


def typed_values(components: list[dict[str, Any]]) -> dict[str, str]:
    """The value of each text input of a modal's submit, by custom id: in action rows (type 1) or labels (18)."""
    values: dict[str, str] = {}
    for component in components:
        inner = component.get("components") or ([component["component"]] if "component" in component else [])
        values |= typed_values(inner)
        if "value" in component and "custom_id" in component:
            values[component["custom_id"]] = str(component["value"])
    return values


async def answer_modal(interaction: discord.Interaction[Any], kinds: tuple[type[LastingModal], ...]) -> None:
    """Answer a modal's submit (any other interaction is not ours here): by the kind its custom id matches;
    an unexpected failure is answered with an error id, as every control's is."""
    if interaction.type is not discord.InteractionType.modal_submit:
        return
    data: dict[str, Any] = dict(interaction.data or {})
    custom_id = str(data.get("custom_id", ""))
    for kind in kinds:
        match = kind.template.fullmatch(custom_id)
        if match is None:
            continue
        try:
            await kind.answer(interaction, match, typed_values(list(data.get("components", []))))
        except Exception as error:  # noqa: BLE001 - every failure is answered; report() logs its traceback
            await report(interaction, error, where=f"the form {kind.__name__}")
        return
    await answer(interaction, FORM_CLOSED)
