"""Every modal of the bot is answered from its custom id (bot/discord/lasting_modal.py), so that a submit comes to
an answer however late, and after a restart: discord.py would drop the submit of a modal it does not hold."""

from __future__ import annotations

import importlib
import pkgutil

import discord

import bot.discord
from bot.discord.client import LASTING_MODALS
from bot.discord.lasting_modal import LastingModal, typed_values


def subclasses(cls: type) -> set[type]:
    found = set(cls.__subclasses__())
    return found.union(*(subclasses(sub) for sub in found))


def test_every_modal_of_the_bot_is_a_lasting_modal_that_the_bot_answers():
    for module in pkgutil.walk_packages(bot.discord.__path__, "bot.discord."):
        importlib.import_module(module.name)
    ours = {cls for cls in subclasses(discord.ui.Modal) if cls.__module__.startswith("bot.")}
    assert ours - {LastingModal} == set(LASTING_MODALS)
    assert all(issubclass(cls, LastingModal) for cls in ours)


def test_the_values_typed_are_read_from_action_rows_and_from_labels():
    submitted = [{"type": 1, "components": [{"type": 4, "custom_id": "amount", "value": "7"}]},
                 {"type": 18, "component": {"type": 4, "custom_id": "question", "value": "Do you hold a traitor?"}}]
    assert typed_values(submitted) == {"amount": "7", "question": "Do you hold a traitor?"}
