-- What the table was shown, kept as it was shown: a game's log, its readers' exports and undo read these instead of
-- replaying the actions under the rules installed now, which a rules fix may have changed since.
--
-- The version of Mentat (engine.__version__) that created a game and that applied an action. Every row stored
-- before this migration was stored by Mentat 0.1.0: the default says so for them (adding a column with a default
-- rewrites no row); every insert since names its version.
ALTER TABLE games ADD COLUMN engine_version TEXT DEFAULT '0.1.0';
ALTER TABLE actions ADD COLUMN engine_version TEXT DEFAULT '0.1.0';

-- The events of the game's opening (version 0) and of each action, as a JSON list of {type, message, audience}
-- (audience null: the whole table). NULL: not kept (stored before this migration), rebuilt by replay.
ALTER TABLE games ADD COLUMN opening_events_json TEXT;
ALTER TABLE actions ADD COLUMN events_json TEXT;

-- The snapshot the action was applied to (the game at version seq - 1), its JSON compressed with zlib (about a
-- third of its size): undo restores it. NULL: stored before this migration, or imported.
ALTER TABLE actions ADD COLUMN state_before BLOB;
