-- When each game next has something to do on its own (a reminder or a default of an open decision; NULL: nothing
-- until something changes): the deadline tick reads only the games whose time has come, through the index, instead
-- of every game stored. The games running when it came in are due at once (bot/store/common.py DUE_AT_ONCE): the
-- first tick works their due times out. The text sorts as the time (fixed-width ISO 8601 in UTC, as every time
-- this store keeps).
ALTER TABLE games ADD COLUMN due_at TEXT;
UPDATE games SET due_at = '1970-01-01T00:00:00.000000+00:00' WHERE status = 'running';
CREATE INDEX games_due_at ON games (due_at) WHERE due_at IS NOT NULL;
