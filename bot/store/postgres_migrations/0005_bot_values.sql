-- Values the bot keeps about itself rather than about a game, by name: "commands_synced:<application id>" holds the
-- hash of the command tree last synced to Discord, so that a restart with an unchanged tree makes no sync (Discord
-- limits them).

CREATE TABLE bot_values (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
