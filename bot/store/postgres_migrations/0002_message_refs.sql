-- Where the platform put a message that has a name (OutgoingMessage.key: "card:p12" for a decision card), so
-- that a later message can change it in place (its decision closed). One reference a name: the newest wins.

CREATE TABLE message_refs (
    game_id TEXT NOT NULL REFERENCES games (game_id) ON DELETE CASCADE,
    key TEXT NOT NULL,
    ref TEXT NOT NULL,
    PRIMARY KEY (game_id, key)
);
