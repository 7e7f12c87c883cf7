-- A server's settings: its moderator role (besides Manage Server).
-- A channel holds one game at a time, but a game that has ended leaves its channel to a new one: the UNIQUE on
-- games.channel_id becomes a unique index over the games that have not ended. SQLite cannot drop a constraint,
-- so the table is rebuilt (https://www.sqlite.org/lang_altertable.html, "Making Other Kinds Of Table Schema
-- Changes"): the runner turns foreign keys off around this transaction, so that dropping the old table deletes
-- no seat, action, outbox row or message reference, and checks them before the commit. The per-game
-- moderator_role_id, never set, goes: the moderator role is the server's.

CREATE TABLE server_settings (
    guild_id INTEGER PRIMARY KEY,
    moderator_role_id INTEGER
);

CREATE TABLE new_games (
    game_id TEXT PRIMARY KEY,
    guild_id INTEGER NOT NULL,
    channel_id INTEGER NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('open', 'running', 'paused', 'ended')),
    setup_json TEXT NOT NULL,
    state_json TEXT NOT NULL,  -- a cache: replaying setup_json and the actions gives the same state
    seq INTEGER NOT NULL CHECK (seq >= 0),
    created_at TEXT NOT NULL,
    settings_json TEXT NOT NULL DEFAULT '{}',
    started_at TEXT
);

-- in rowid order, which breaks ties of created_at (creation order)
INSERT INTO new_games (game_id, guild_id, channel_id, status, setup_json, state_json, seq, created_at,
                       settings_json, started_at)
SELECT game_id, guild_id, channel_id, status, setup_json, state_json, seq, created_at, settings_json, started_at
FROM games ORDER BY rowid;

DROP TABLE games;
ALTER TABLE new_games RENAME TO games;

CREATE INDEX games_by_guild ON games (guild_id, created_at);
CREATE INDEX games_by_channel ON games (channel_id, created_at);
CREATE UNIQUE INDEX games_live_in_channel ON games (channel_id) WHERE status <> 'ended';
