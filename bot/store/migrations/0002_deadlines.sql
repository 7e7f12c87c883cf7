-- Per-game bot settings (decision deadlines, which prompts were already reminded) and when the game started:
-- the prompts open at seq 0 opened then, since no action marks their opening.

ALTER TABLE games ADD COLUMN settings_json TEXT NOT NULL DEFAULT '{}';
ALTER TABLE games ADD COLUMN started_at TEXT;
