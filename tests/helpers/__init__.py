"""What several test files share: a test file imports its builders, fixtures and fakes from here (or from
tests/conftest.py), never from another test file (tests/test_architecture.py checks it). One module per kind:
positions/ the builders of game positions, one module per subject; discord_tables, discord_dms and discord_turn
the SimCord tables and what they show; clock_tables the service on a fake clock; gateways a recording gateway;
handler_calls the Discord handlers called directly; discord_fakes the spec'd stand-ins for discord.py objects."""
