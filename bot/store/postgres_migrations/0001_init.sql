-- The PostgreSQL schema, version 1: what SQLite's migrations 0001 and 0002 hold, in PostgreSQL's types.
-- Discord ids are 64-bit snowflakes: BIGINT. Timestamps are timestamptz (UTC in, UTC out). The engine's JSON
-- is TEXT, handed back byte for byte (jsonb would reorder its keys and cost a parse per write).
-- Later changes are new numbered files (0002_...sql), each applied once in its own transaction.

CREATE TABLE games (
    game_id TEXT PRIMARY KEY,
    -- creation order, for games created at the same instant (SQLite's rowid)
    number BIGINT GENERATED ALWAYS AS IDENTITY,
    guild_id BIGINT NOT NULL,
    channel_id BIGINT NOT NULL,
    status TEXT NOT NULL,
    setup_json TEXT NOT NULL,
    state_json TEXT NOT NULL,  -- a cache: replaying setup_json and the actions gives the same state
    seq INTEGER NOT NULL,
    moderator_role_id BIGINT,
    created_at TIMESTAMPTZ NOT NULL,
    settings_json TEXT NOT NULL DEFAULT '{}',
    started_at TIMESTAMPTZ,
    CONSTRAINT games_channel_unique UNIQUE (channel_id),
    CONSTRAINT games_status CHECK (status IN ('open', 'running', 'paused', 'ended')),
    CONSTRAINT games_seq CHECK (seq >= 0)
);

CREATE INDEX games_by_guild ON games (guild_id, created_at, number);

CREATE TABLE seats (
    game_id TEXT NOT NULL REFERENCES games (game_id) ON DELETE CASCADE,
    faction TEXT NOT NULL,
    user_id BIGINT NOT NULL,
    PRIMARY KEY (game_id, faction)
);

-- The primary key is the second guard against applying an action twice (the first is the seq check).
CREATE TABLE actions (
    game_id TEXT NOT NULL REFERENCES games (game_id) ON DELETE CASCADE,
    seq INTEGER NOT NULL CHECK (seq >= 1),
    actor BIGINT NOT NULL,
    action_json TEXT NOT NULL,
    created_at TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (game_id, seq)
);

-- An identity is never reused, even after the newest rows are deleted: delivery order is id order. `logged`
-- copies the message's flag, so a game's public log is read without parsing every message. The status check
-- is named so that a migration can replace it (a new delivery status).
CREATE TABLE outbox (
    id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    game_id TEXT NOT NULL REFERENCES games (game_id) ON DELETE CASCADE,
    seq INTEGER NOT NULL,
    message_json TEXT NOT NULL,
    logged BOOLEAN NOT NULL DEFAULT false,
    attempts INTEGER NOT NULL DEFAULT 0,
    status TEXT NOT NULL DEFAULT 'pending',
    created_at TIMESTAMPTZ NOT NULL,
    CONSTRAINT outbox_status CHECK (status IN ('pending', 'sent', 'undeliverable'))
);

-- The dispatchers poll for pending rows; delivered ones pile up and must not slow that down.
CREATE INDEX outbox_pending ON outbox (id) WHERE status = 'pending';
CREATE INDEX outbox_logged ON outbox (game_id, id) WHERE logged;
