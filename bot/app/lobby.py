"""The game before it starts, in words: the lobby post (factions, options, pace, seats), which the service posts
at /game new and edits in place as seats fill and at the start, and the welcome each player gets by DM at the
start. The fronts add the controls: the Discord lobby's buttons (bot/discord/lobby.py), the welcome's button to
the any-time panel."""

from __future__ import annotations

import re
from typing import Any

from bot.app import absence
from bot.app.anytime_words import title
from bot.app.feed import cancellation_text
from bot.app.paces import Pace, pace_text
from bot.app.settings_model import GameSettings
from bot.app.words import NO_WORDS, YES_WORDS, NotUnderstood, whole_number
from engine.data import load_game_data
from engine.ids import Faction
from engine.model import GameState
from engine.names import faction_name
from engine.options import GameOptions, GameSetup
from engine.rules.anytime import STANDING_ORDERS, anytime_choices

LOBBY_KEY = "lobby"  # the lobby post's key (OutgoingMessage.key): seats and the start edit it in place


def options_text(options: GameOptions) -> str:
    """Every option, by the name /game new takes: those switched on, then the numbers; "(the defaults)" when no
    option was changed."""
    values = {name: getattr(options, name) for name in GameOptions.model_fields}
    on = [name for name, value in values.items() if value is True]
    numbers = [f"{name}={value}" for name, value in values.items() if not isinstance(value, bool)]
    text = (", ".join(on) + " on, the others off" if on else "every option off") + "; " + ", ".join(numbers)
    return text + (" (the defaults)" if options == GameOptions() else "")


def parse_options(text: str | None) -> GameOptions:
    """Game options separated by commas or spaces: `all` (every on/off option on), a bare name (that option on)
    or `name=value` (`weather, double_spice_blow`, `all, bt_traps=off`, `turns=10, choam_charity=on`)."""
    values: dict[str, bool | int] = {}
    fields = GameOptions.model_fields
    for pair in re.split(r"[,\s]+", (text or "").strip()):
        if not pair:
            continue
        name, equals, raw = pair.partition("=")
        name = name.strip().lower().replace("-", "_")
        if name == "all" and not equals:
            values.update({n: True for n in switch_names()})
            continue
        if name not in fields or (not equals and name not in switch_names()):
            raise NotUnderstood(f"Unknown option {pair!r}; options are all, a name to switch on "
                                f"({', '.join(switch_names())}) or name=value among: {', '.join(fields)}.")
        raw = raw.strip().lower() if equals else "on"
        if fields[name].annotation in (bool, "bool"):
            if raw not in YES_WORDS | NO_WORDS:
                raise NotUnderstood(f"Option {name} is on or off, not {raw!r}.")
            values[name] = raw in YES_WORDS
        elif (number := whole_number(raw)) is not None:
            values[name] = number
        else:
            raise NotUnderstood(f"Option {name} takes a number, not {raw!r}.")
    try:
        return GameOptions(**values)
    except ValueError as error:
        raise NotUnderstood(f"Invalid options: {error}") from None


def switch_names() -> list[str]:
    """The on/off options (A-3, A-6, A-14, A-15 and the BT options)."""
    return [name for name, f in GameOptions.model_fields.items() if f.annotation in (bool, "bool")]


def lobby_text(setup: GameSetup, seats: dict[str, int], settings: dict[str, Any], *, started: bool = False) -> str:
    """The lobby: who plays what (a seated player as a Discord mention, which the gateways never ping here), the
    options and the pace; before the start, how to take a seat and who may start; once cancelled, by whom and
    why."""
    names = ", ".join(faction_name(f) for f in setup.factions)
    cancelled = cancellation_text(settings)
    state = "was cancelled" if cancelled else "has started" if started else "is open"
    lines = [f"**A game of Dune {state}: {names}.**", f"Options: {options_text(setup.options)}.",
             f"Pace: {pace_text(GameSettings.of(settings).pace)}.", f"{absence.mode_text(settings)}."]
    lines += [f"- {faction_name(f)}: " + (f"<@{seats[f.value]}>" if f.value in seats else "free")
              for f in setup.factions]
    if cancelled:
        lines.append(cancelled)
    elif not started:
        free = [f for f in setup.factions if f.value not in seats]
        lines.append("Take a free seat with its button (or /game join)." if free else
                     "Every seat is taken: the game's creator or a moderator starts it with Start (or /game start); "
                     "each player gets a welcome DM then.")
    return "\n".join(lines)


STANDING_ORDER = "Standing order: "  # the titles of the standing orders (bot/app/anytime_words.py TITLES)


def welcome_text(faction: Faction, settings: dict[str, Any], state: GameState | None = None) -> str:
    """A player's welcome at the start: their faction and its advantages (data/factions.json), how decisions
    reach them, the commands that help and, given the game's state, the standing orders this player may give."""
    data = load_game_data().factions[faction]
    typed = GameSettings.of(settings)
    named = f" (the pace: {pace_text(typed.pace)})" if typed.pace != Pace.NONE else ""
    deadlines = (f"Each has a deadline{named}; when it passes, the default the card names is applied for you."
                 if typed.deadlines else
                 "They wait for you: this game has no deadlines unless a moderator sets them.")
    return "\n".join([
        f"Welcome: you play **{faction_name(faction)}**. You start with {data.starting_spice} spice and may hold "
        f"{data.hand_limit} Treachery cards. Your advantages:",
        *(f"- {advantage}" for advantage in data.advantages),
        "Your decisions come here by DM, each as a card with its buttons; the turn's thread in the game's channel "
        "calls you by name when one opens and reminds you before its deadline. " + deadlines,
        "At any time: the button below or `/me act` to play a card, bribe or set standing orders; `/me hand` shows "
        "your spice and cards, `/me prompts` your open decisions; `/rules` finds a rule.",
        *([_orders_line(state, faction)] if state is not None else []),
    ])


def _orders_line(state: GameState, faction: Faction) -> str:
    """The routine decisions a standing order may answer for this player (those the engine offers them)."""
    topics = [title(choice.kind).removeprefix(STANDING_ORDER) for choice in anytime_choices(state, faction)
              if choice.kind in STANDING_ORDERS]
    return ("Fewer clicks: `/me orders` lets the bot answer routine decisions for you, in secret and until you "
            f"change them: {', '.join(topics)}.")
