-- The idempotency key of an action (the Discord interaction that submitted it): a second submission with the
-- same key is answered with the first's result instead of being applied again.

ALTER TABLE actions ADD COLUMN idempotency_key TEXT;
CREATE UNIQUE INDEX actions_by_key ON actions (game_id, idempotency_key) WHERE idempotency_key IS NOT NULL;
