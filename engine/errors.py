"""Refusals. Every refusal names the rule that forbids the input and what is allowed instead, in words."""

from __future__ import annotations

from enum import StrEnum

from engine.names import choice_words


class ViolationCode(StrEnum):
    GAME_OVER = "game_over"
    NOT_IN_GAME = "not_in_game"
    NO_OPEN_DECISION = "no_open_decision"
    ILLEGAL_CHOICE = "illegal_choice"
    WRONG_PHASE = "wrong_phase"
    NOT_ALLOWED = "not_allowed"


class EngineError(Exception):
    """Base of everything the engine raises on purpose."""


class InvalidSetup(EngineError, ValueError):
    """A game cannot be created with these factions, options or fixed values."""


class RuleViolation(EngineError):
    """An action the rules forbid. The state it was applied to is unchanged."""

    def __init__(self, code: ViolationCode, rule: str, message: str, allowed: list[str] | None = None):
        self.code = code
        self.rule = rule
        self.message = message
        self.allowed = list(allowed or [])
        super().__init__(str(self))

    def __str__(self) -> str:
        text = f"[{self.rule}] {self.message}"
        if self.allowed:
            shown = ", ".join(choice_words(option) for option in self.allowed[:12])
            more = f" (and {len(self.allowed) - 12} more)" if len(self.allowed) > 12 else ""
            text += f" Allowed: {shown}{more}."
        return text


class ReplayMismatch(EngineError):
    """A replayed game does not reach the state recorded with it."""
