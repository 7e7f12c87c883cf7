-- The first schema: games with their current snapshot, seats, the action log, and the outbox.
-- Discord ids are 64-bit snowflakes, which fit SQLite's INTEGER. Timestamps are UTC ISO-8601 text.

CREATE TABLE games (
    game_id TEXT PRIMARY KEY,
    guild_id INTEGER NOT NULL,
    channel_id INTEGER NOT NULL UNIQUE,
    status TEXT NOT NULL CHECK (status IN ('open', 'running', 'paused', 'ended')),
    setup_json TEXT NOT NULL,
    state_json TEXT NOT NULL,  -- a cache: replaying setup_json and the actions gives the same state
    seq INTEGER NOT NULL CHECK (seq >= 0),
    moderator_role_id INTEGER,
    created_at TEXT NOT NULL
);

CREATE INDEX games_by_guild ON games (guild_id, created_at);

CREATE TABLE seats (
    game_id TEXT NOT NULL REFERENCES games (game_id) ON DELETE CASCADE,
    faction TEXT NOT NULL,
    user_id INTEGER NOT NULL,
    PRIMARY KEY (game_id, faction)
);

-- The primary key is the second guard against applying an action twice (the first is the seq check).
CREATE TABLE actions (
    game_id TEXT NOT NULL REFERENCES games (game_id) ON DELETE CASCADE,
    seq INTEGER NOT NULL CHECK (seq >= 1),
    actor INTEGER NOT NULL,
    action_json TEXT NOT NULL,
    created_at TEXT NOT NULL,
    PRIMARY KEY (game_id, seq)
);

-- AUTOINCREMENT so an id is never reused, even after the newest rows are deleted: delivery order is id order.
CREATE TABLE outbox (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    game_id TEXT NOT NULL REFERENCES games (game_id) ON DELETE CASCADE,
    seq INTEGER NOT NULL,
    message_json TEXT NOT NULL,
    attempts INTEGER NOT NULL DEFAULT 0,
    status TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'sent', 'undeliverable')),
    created_at TEXT NOT NULL
);

-- The dispatcher polls for pending rows; delivered ones pile up and must not slow that down.
CREATE INDEX outbox_pending ON outbox (id) WHERE status = 'pending';
