"""Builders of game positions (docs/positions.md) and the moves that bring a game to a decision, one module per
subject: the module is named for the test file that first needed them."""
