"""Mentat's rules engine: pure, deterministic, no I/O. Its public surface is re-exported here."""

from engine.actions import Action, parse_action
from engine.errors import EngineError, InvalidSetup, ReplayMismatch, RuleViolation
from engine.flow import legal_choices
from engine.game import Transition, apply, new_game, state_hash
from engine.ids import Faction
from engine.options import FixedSetup, GameOptions, GameSetup
from engine.secrecy.views import PlayerView, view
from engine.version import __version__

__all__ = [
    "__version__",
    "Action",
    "EngineError",
    "Faction",
    "FixedSetup",
    "GameOptions",
    "GameSetup",
    "InvalidSetup",
    "PlayerView",
    "ReplayMismatch",
    "RuleViolation",
    "Transition",
    "apply",
    "legal_choices",
    "new_game",
    "parse_action",
    "state_hash",
    "view",
]
