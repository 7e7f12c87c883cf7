"""Delivers the outbox through Discord: table messages to the game's channel, secrets by DM to the seated
player. A DM the player does not accept (discord.Forbidden, code 50007) raises DeliveryFailed, and the
service tells the table and keeps the message for /me prompts; any other failure is retried later."""

from __future__ import annotations

import logging

import discord

from bot.app.ports import DeliveryFailed, GameRecordRow, OutgoingMessage
from bot.discord.components import prompt_view
from bot.discord.text import split_message
from engine.model import GameState

log = logging.getLogger(__name__)
NO_MENTIONS = discord.AllowedMentions.none()


class DiscordGateway:
    def __init__(self, client: discord.Client):
        self.client = client

    async def deliver(self, game: GameRecordRow, message: OutgoingMessage) -> None:
        faction = message.recipient.faction
        if faction is None:
            channel = self.client.get_channel(game.channel_id) or await self.client.fetch_channel(game.channel_id)
            await self._send(channel, split_message(message.text), self._buttons(game, message))
            return
        user_id = game.seats.get(faction)
        if user_id is None:
            raise DeliveryFailed(f"nobody is seated as {faction}")
        try:
            user = self.client.get_user(user_id) or await self.client.fetch_user(user_id)
            # A player may sit in several games: each DM says which one it is about.
            chunks = split_message(f"**Dune in <#{game.channel_id}>**\n{message.text}")
            await self._send(user, chunks, self._buttons(game, message))
        except (discord.Forbidden, discord.NotFound) as error:
            log.info("DM to the %s player of %s refused: %s", faction, game.game_id, error)
            raise DeliveryFailed(faction) from error

    @staticmethod
    async def _send(target: discord.abc.Messageable, chunks: list[str], view: discord.ui.View | None) -> None:
        for number, chunk in enumerate(chunks, start=1):
            if view is not None and number == len(chunks):
                await target.send(chunk, view=view, allowed_mentions=NO_MENTIONS)
            else:
                await target.send(chunk, allowed_mentions=NO_MENTIONS)

    @staticmethod
    def _buttons(game: GameRecordRow, message: OutgoingMessage) -> discord.ui.View | None:
        """Buttons for the decision the message calls for, while it is still open."""
        if message.prompt_id is None:
            return None
        prompt = GameState.model_validate_json(game.state_json).prompt(message.prompt_id)
        return prompt_view(game.game_id, prompt) if prompt is not None else None
