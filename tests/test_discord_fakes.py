"""The Discord fakes stand in for discord.py's classes without inventing any of their attributes: a handler that
works against a fake reads and calls only what the real object has (as python-discord/bot's `spec_set` mocks)."""

from __future__ import annotations

import inspect

import discord
import pytest

from tests.helpers.discord_fakes import (
    ComponentInteraction,
    EditingResponse,
    FakeFollowup,
    FakeInteraction,
    FakeResponse,
    fake_member,
)

RECORDS = {"log", "views", "answers"}  # what the fakes record for the tests to read, which Discord has not


def public_names(fake) -> set[str]:
    return {name for name in [*vars(fake), *dir(type(fake))] if not name.startswith("_")} - RECORDS


def interaction() -> FakeInteraction:
    return FakeInteraction(None, 7)


@pytest.mark.parametrize("fake, real", [
    (interaction(), discord.Interaction),
    (ComponentInteraction(None, 7), discord.Interaction),
    (FakeResponse([]), discord.InteractionResponse),
    (EditingResponse([]), discord.InteractionResponse),
    (FakeFollowup([]), discord.Webhook),
], ids=lambda value: getattr(value, "__name__", type(value).__name__))
def test_each_fake_has_only_attributes_of_the_class_it_stands_for(fake, real):
    assert public_names(fake) - set(dir(real)) == set()


@pytest.mark.parametrize("fake, real", [
    (FakeInteraction, discord.Interaction), (FakeResponse, discord.InteractionResponse),
    (EditingResponse, discord.InteractionResponse), (FakeFollowup, discord.Webhook),
], ids=lambda value: value.__name__)
def test_each_fake_method_takes_its_arguments_as_the_real_one_does(fake, real):
    for name, method in inspect.getmembers(fake, inspect.isfunction):
        if name.startswith("_"):
            continue
        real_parameters = inspect.signature(getattr(real, name)).parameters
        for parameter in list(inspect.signature(method).parameters.values())[1:]:
            if parameter.kind is parameter.VAR_KEYWORD:
                continue  # the fake ignores the other options
            assert parameter.name in real_parameters, f"{fake.__name__}.{name}({parameter.name})"
            assert real_parameters[parameter.name].kind == parameter.kind, f"{fake.__name__}.{name}({parameter.name})"


def test_a_fake_member_is_a_spec_set_member():
    member = fake_member(7, roles=(3,), manage_guild=True)
    assert (member.id, member.mention, str(member)) == (7, "<@7>", "user7")
    assert [role.id for role in member.roles] == [3] and member.guild_permissions.manage_guild
    assert isinstance(member, discord.Member)
    with pytest.raises(AttributeError):
        member.manage_guild = True  # a permission, not an attribute of a member
    with pytest.raises(AttributeError):
        _ = member.manage_guild


def test_an_interaction_of_a_member_without_roles_or_rights():
    fake = interaction()
    assert fake.user.roles == [] and not fake.user.guild_permissions.manage_guild and fake.command is None
