"""Answers to the setup's secret decisions (traitor picks, the BG prediction, the BT's traps)."""

from __future__ import annotations

from engine.actions import ChooseTraitor, LayTraps, PredictWinner
from engine.game import apply
from engine.model import PromptKind
from tests.conftest import BG, BT, A


def answer_secrets(state, traps=None):
    for prompt in list(state.prompts):
        if prompt.kind == PromptKind.TRAITOR_PICK:
            state = apply(state, ChooseTraitor(faction=prompt.faction, leader=prompt.options[0])).state
        elif prompt.kind == PromptKind.BG_PREDICTION:
            state = apply(state, PredictWinner(faction=BG, predicted=A, turn=5)).state
        elif prompt.kind == PromptKind.BT_TRAPS:
            state = apply(state, LayTraps(faction=BT, traps=traps or {})).state
    return state
