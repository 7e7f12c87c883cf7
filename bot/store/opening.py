"""Which store a location names: a postgresql:// (or postgres://) URL opens the PostgreSQL store, anything
else is the path of a SQLite file (the embedded default)."""

from __future__ import annotations

from bot.app.ports import GameStore
from bot.store.common import Clock, utc_now
from bot.store.postgres import PostgresGameStore
from bot.store.sqlite import SqliteGameStore

POSTGRES_PREFIXES = ("postgresql://", "postgres://")


def is_postgres_url(location: str) -> bool:
    return location.startswith(POSTGRES_PREFIXES)


async def open_store(location: str, clock: Clock = utc_now) -> GameStore:
    if is_postgres_url(location):
        return await PostgresGameStore.open(location, clock)
    return await SqliteGameStore.open(location, clock)
