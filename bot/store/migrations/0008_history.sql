-- What the table was shown, kept as it was shown: a game's log, its readers' exports and undo read these instead of
-- replaying the actions under the rules installed now, which a rules fix may have changed since.
--
-- The version of Mentat (engine.__version__) that created a game and that applied an action. Every row stored
-- before this migration was stored by Mentat 0.1.0: the default says so for them (adding a column with a default
-- rewrites no row); every insert since names its version.
ALTER TABLE games ADD COLUMN engine_version TEXT DEFAULT '0.1.0';
ALTER TABLE actions ADD COLUMN engine_version TEXT DEFAULT '0.1.0';

-- The events of each action and of the game's opening (version 0), as a JSON list of {type, message, audience}
-- (audience null: the whole table). NULL, or no opening row: not kept (stored before this migration), rebuilt by
-- replay. The opening has a table of its own because the games row is rewritten by every action, whole: its
-- events there (some 2 KiB) would be written again with each one.
ALTER TABLE actions ADD COLUMN events_json TEXT;
CREATE TABLE game_openings (
    game_id TEXT PRIMARY KEY REFERENCES games (game_id) ON DELETE CASCADE,
    events_json TEXT NOT NULL
);

-- The snapshot the action was applied to (the game at version seq - 1): undo restores it. Its JSON compressed by
-- zlib with the snapshot the action made as the dictionary (bot/store/common.py, pack_snapshot): some 130 bytes
-- for 7 KiB. NULL: stored before this migration, or imported.
ALTER TABLE actions ADD COLUMN state_before BLOB;
