-- When a delivery of the row began (the row is "being sent" until it is marked sent). A row found pending with
-- this set was caught between its send and its mark (a crash): it is looked for on the platform before it is
-- sent again.

ALTER TABLE outbox ADD COLUMN sending_since TEXT;
