-- A server's settings: its moderator role (besides Manage Server).
-- A channel holds one game at a time, but a game that has ended leaves its channel to a new one: the unique
-- channel becomes a unique index over the games that have not ended. The per-game moderator_role_id, never
-- set, goes: the moderator role is the server's.

CREATE TABLE server_settings (
    guild_id BIGINT PRIMARY KEY,
    moderator_role_id BIGINT
);

ALTER TABLE games DROP CONSTRAINT games_channel_unique;
ALTER TABLE games DROP COLUMN moderator_role_id;
CREATE INDEX games_by_channel ON games (channel_id, created_at, number);
CREATE UNIQUE INDEX games_live_in_channel ON games (channel_id) WHERE status <> 'ended';
