"""Reading DMs in SimCord: a game planted, a DM's components, labels and menus, a choice made, and the positions
the DM tests use."""

from __future__ import annotations

from bot.app.render import messages_for
from engine.ids import Faction
from engine.model import GameState, Phase, PromptKind
from tests.conftest import BT, A, H, prompt_of
from tests.helpers.discord_tables import deliver
from tests.helpers.positions.bt_traitors import ATREIDES, FLAT, at, drive, position


def shown(result):
    """The message an interaction answered with or edited, as it reads now (a discord.Message)."""
    return (result.followups[-1] if result.followups else result.response).message


def actor(member, message):
    """Who presses: the user in their DMs, the member in the guild's channel (where /me act answers)."""
    return member.user if message.channel.id == member.user.dm_channel.id else member


def components(message) -> list:
    return [item for row in message.components for item in row.children]


def labels(message) -> list[str]:
    return [getattr(c, "label", None) or c.placeholder for c in components(message)]


async def plant(room, state: GameState) -> str:
    """Run a game from `state` in the room's channel and deliver what its open decisions call for (the DMs
    with their buttons and menus); returns the game id."""
    game_id = await room.play_from(state)
    await room.env.bot.service.store.queue(game_id, messages_for([], None, state))
    room.env.bot.wake_outbox()
    await deliver(room.env)
    return game_id


async def open_prompt(env, game_id: str, faction: Faction, kind: PromptKind):
    return prompt_of(await env.bot.service.state_of(game_id), faction, kind)


def dm_for(member, prompt_id: str):
    """The member's DM that carries the decision's buttons or menus (as it is now: menus edit it)."""
    found = [m for m in member.user.dm_channel.history()
             if any(f":{prompt_id}:" in (c.custom_id or "") for c in components(m))]
    assert len(found) == 1, f"expected one DM for {prompt_id}, found {len(found)}"
    return found[0]


def menu(message, name: str):
    """The select menu of one part of a form, by the name its placeholder starts with."""
    [select] = [c for c in components(message) if getattr(c, "placeholder", None)
                and c.placeholder.split(":")[0] == name]
    return select


def value_of(select, label: str) -> str:
    [option] = [o for o in select.options if o.label == label]
    return option.value


async def choose(member, prompt_id: str, name: str, label: str):
    """Choose `label` in the menu `name` of the member's DM for the decision; the answer edits the DM."""
    message = dm_for(member, prompt_id)
    select = menu(message, name)
    chosen = await member.user.select(message, [value_of(select, label)], custom_id=select.custom_id)
    assert chosen.acknowledged and not chosen.followups  # the menu was updated in place, nothing said
    return chosen


def parts(message) -> list[str]:
    """The form as the DM shows it: each menu's placeholder (with the choice made), then the buttons."""
    return [getattr(c, "placeholder", None) or c.label for c in components(message)]


def revival_position() -> GameState:
    """The movement round's revival step: every Atreides leader is dead and the Atreides have spice."""
    return at(position(factions=(A, H, BT), dead={A: ATREIDES}, spice={A: 20, BT: 5}), Phase.MOVEMENT)


def attack_position() -> GameState:
    """The Atreides and the Harkonnen fought on The Great Flat and both leaders survived: the BT, holding only a
    worthless card, are asked whether to attack one of them (BT-11)."""
    state = at(position(factions=(A, H, BT), forces={FLAT: {A: 6, H: 5}}, hands={BT: ["baliset"]}), Phase.BATTLE)
    state, _ = drive(state, lambda s: any(p.kind == PromptKind.BT_ATTACK for p in s.prompts))
    return state
