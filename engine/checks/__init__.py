"""Checks run over random games: invariants after every action, the prompt machinery, automatic players."""
