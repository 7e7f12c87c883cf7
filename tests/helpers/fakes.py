"""Fake Discord interactions for the prompt views: a response that edits, a component interaction."""

from __future__ import annotations

from tests.discord_fakes import FakeInteraction, FakeResponse

SNOWFLAKE_GAME = "g1456074443980800012"  # a game id as long as a real channel's


class EditingResponse(FakeResponse):
    """A fake response that also records a component's `edit_message` (the new view)."""

    async def edit_message(self, *, view=None, **_):
        self.log.append(("edit", view, False))
        self._done = True


class ComponentInteraction(FakeInteraction):
    def __init__(self, client, user_id: int):
        super().__init__(client, user_id, channel_id=None)
        self.response = EditingResponse(self.log)
