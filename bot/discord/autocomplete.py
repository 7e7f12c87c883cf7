"""Slash-command autocomplete that offers only what is legal for the caller now: their open decision of the
command's kind, as its DM form offers it (bot/discord/prompt_forms.py, turn_forms.py); a caller with no such
decision is offered nothing. The lookups every command shares (the caller's open decision, what they typed in
another option), and the choices of the battle round's, the Bene Tleilaxu's and the secret setup decisions
(/play choose-battle, ask, answer, voice, plan, call, traitor, predict; /bt mark, reveal-window, attack, impair,
traps-and-gifts, setup-traps; /card return-cards). The turn's are in bot/discord/cogs/play.py.
"""

from __future__ import annotations

import discord
from discord import app_commands

from bot.discord.common import game_bot
from bot.discord.prompt_forms import (
    NONE,
    battle_label,
    plan_defenses,
    plan_heads,
    plan_weapons,
    prescience_label,
    voice_label,
)
from engine.data import load_game_data
from engine.factions.bt_bidding import BtTrapsAndGiftsDetails
from engine.factions.bt_impairments import NO_MOVING, NO_SHIPPING
from engine.factions.bt_traitors import NO, PASS
from engine.factions.special_karama_powers import HandSwapDetails
from engine.flow import details_of
from engine.ids import Faction
from engine.model import Prompt, PromptKind
from engine.names import card_name, faction_name, option_name
from engine.phases.battle import CALL, NO_CALL, BattlePlanDetails, PrescienceAnswerDetails, TraitorCallDetails
from engine.phases.bt_attack import DECLINE
from engine.phases.setup import BgPredictionDetails, BtTrapsDetails
from engine.secrecy.views import view

Choice = app_commands.Choice


async def open_decision(interaction: discord.Interaction, kind: PromptKind) -> Prompt | None:
    """The caller's open decision of this kind in the channel's game, as their own view shows it."""
    service = game_bot(interaction).service
    game = await service.game_in_channel(interaction.channel_id or 0)
    seats = {user: faction for faction, user in game.seats.items()} if game else {}
    if game is None or interaction.user.id not in seats:
        return None
    seen = view(await service.state_of(game.game_id), Faction(seats[interaction.user.id]))
    return next((p for p in seen.own_prompts if p.kind == kind), None)


def typed(interaction: discord.Interaction, option: str) -> str | None:
    """What the caller already put in another option of the command (None: nothing yet)."""
    return getattr(interaction.namespace, option, None) or None


def matching(pairs: list[tuple[str, str]], current: str) -> list[Choice[str]]:
    current = current.lower()
    return [Choice(name=label[:100], value=value) for label, value in pairs if current in label.lower()][:25]


def _leader(leader_id: str) -> str:
    try:
        leader = load_game_data().leader(leader_id)
    except (KeyError, LookupError):
        return leader_id
    return f"{leader.name} (strength {leader.strength})"


# --- /play: the battle --------------------------------------------------------------------------------------


async def battle_territories(interaction: discord.Interaction, current: str) -> list[Choice[str]]:
    prompt = await open_decision(interaction, PromptKind.BATTLE_CHOICE)
    territories = dict.fromkeys(o.split("|")[0] for o in prompt.options) if prompt else {}
    return matching([(t, t) for t in territories], current)


async def battle_opponents(interaction: discord.Interaction, current: str) -> list[Choice[str]]:
    """The factions the caller may fight next, in the territory typed (anywhere before one is typed)."""
    prompt = await open_decision(interaction, PromptKind.BATTLE_CHOICE)
    territory = typed(interaction, "territory")
    options = [o for o in (prompt.options if prompt else []) if territory in (None, o.split("|")[0])]
    return matching([(battle_label(o), o.split("|")[1]) for o in options], current)


async def prescience_elements(interaction: discord.Interaction, current: str) -> list[Choice[str]]:
    prompt = await open_decision(interaction, PromptKind.PRESCIENCE)
    return matching([(prescience_label(o), o) for o in (prompt.options if prompt else [])], current)


async def prescience_answers(interaction: discord.Interaction, current: str) -> list[Choice[str]]:
    prompt = await open_decision(interaction, PromptKind.PRESCIENCE_ANSWER)
    if prompt is None:
        return []
    element = details_of(prompt, PrescienceAnswerDetails).element
    return matching([(f"No {element}" if o == NONE else o if element == "dial" else option_name(o), o)
                     for o in prompt.options], current)


async def voice_kinds(interaction: discord.Interaction, current: str) -> list[Choice[str]]:
    """The kinds of card the Voice may name with the command typed (play, or not)."""
    prompt = await open_decision(interaction, PromptKind.VOICE)
    command = typed(interaction, "command")
    options = [o for o in (prompt.options if prompt else []) if o != NONE and command in (None, o.split(":")[0])]
    return matching([(voice_label(o), o.split(":", 1)[1]) for o in dict.fromkeys(options)], current)


async def traitor_call_answers(interaction: discord.Interaction, current: str) -> list[Choice[str]]:
    """"yes" only for a caller who holds the opposing leader's traitor (engine/phases/battle.py)."""
    prompt = await open_decision(interaction, PromptKind.TRAITOR_CALL)
    leader = details_of(prompt, TraitorCallDetails).leader if prompt else None
    words = {CALL: ("Call traitor" + (f": {option_name(leader)}" if leader else ""), "yes"),
             NO_CALL: ("No traitor call", "no")}
    return matching([words[o] for o in (prompt.options if prompt else []) if o in words], current)


async def _plan(interaction: discord.Interaction) -> BattlePlanDetails | None:
    prompt = await open_decision(interaction, PromptKind.BATTLE_PLAN)
    return details_of(prompt, BattlePlanDetails) if prompt else None


async def plan_leaders(interaction: discord.Interaction, current: str) -> list[Choice[str]]:
    plan = await _plan(interaction)
    heads = plan_heads(plan) if plan else []
    return matching([(_leader(x), x) for who, x in heads if who == "leader"], current)


async def plan_cheap_heroes(interaction: discord.Interaction, current: str) -> list[Choice[str]]:
    plan = await _plan(interaction)
    heads = plan_heads(plan) if plan else []
    return matching([(card_name(x), x) for who, x in heads if who == "hero"], current)


async def plan_weapon_cards(interaction: discord.Interaction, current: str) -> list[Choice[str]]:
    plan = await _plan(interaction)
    return matching([(card_name(c), c) for c in plan_weapons(plan) if c], current) if plan else []


async def plan_defense_cards(interaction: discord.Interaction, current: str) -> list[Choice[str]]:
    """The defenses the rules allow beside the weapon typed (beside any weapon before one is typed)."""
    plan = await _plan(interaction)
    weapon = typed(interaction, "weapon")
    cards = plan_defenses(plan, weapon, decided=weapon is not None) if plan else []
    return matching([(card_name(c), c) for c in cards if c], current)


IMPAIRMENT_WORDS = {NO_SHIPPING: "No shipping next turn", NO_MOVING: "No moving next turn"}  # BT-16, R-17


async def plan_impairments(interaction: discord.Interaction, current: str) -> list[Choice[str]]:
    """BT-16: an impairment only with a worthless card in the BT attack's weapon slot (the one typed, or any)."""
    plan = await _plan(interaction)
    weapon = typed(interaction, "weapon")
    if plan is None or not plan.impairing or (weapon is not None and weapon not in plan.impairing):
        return []
    return matching([(IMPAIRMENT_WORDS.get(i, i), i) for i in plan.impairments], current)


async def plan_dials(interaction: discord.Interaction, current: int | str) -> list[Choice[int]]:
    plan = await _plan(interaction)
    if plan is None:
        return []
    dials = range(plan.min_dial, plan.max_dial + 1)
    return [Choice(name=str(n), value=n) for n in dials if str(current) in str(n)][:25]


# --- /play: the secret setup choices --------------------------------------------------------------------------


async def traitor_candidates(interaction: discord.Interaction, current: str) -> list[Choice[str]]:
    prompt = await open_decision(interaction, PromptKind.TRAITOR_PICK)
    return matching([(_leader(x), x) for x in (prompt.options if prompt else [])], current)


async def predicted_factions(interaction: discord.Interaction, current: str) -> list[Choice[str]]:
    prompt = await open_decision(interaction, PromptKind.BG_PREDICTION)
    return matching([(faction_name(Faction(o)), o) for o in (prompt.options if prompt else [])], current)


async def predicted_turns(interaction: discord.Interaction, current: int | str) -> list[Choice[int]]:
    prompt = await open_decision(interaction, PromptKind.BG_PREDICTION)
    turns = range(1, details_of(prompt, BgPredictionDetails).turns + 1) if prompt else range(0)
    return [Choice(name=f"Turn {n}", value=n) for n in turns if str(current) in str(n)][:25]


# --- /bt ------------------------------------------------------------------------------------------------------


def _leaders_of(prompt: Prompt | None, leave_out: str) -> list[tuple[str, str]]:
    return [(option_name(o), o) for o in (prompt.options if prompt else []) if o != leave_out]


async def mark_leaders(interaction: discord.Interaction, current: str) -> list[Choice[str]]:
    return matching(_leaders_of(await open_decision(interaction, PromptKind.BT_MARK), NO), current)


async def reveal_window_leaders(interaction: discord.Interaction, current: str) -> list[Choice[str]]:
    return matching(_leaders_of(await open_decision(interaction, PromptKind.BT_REVEAL_WINDOW), PASS), current)


async def attack_leaders(interaction: discord.Interaction, current: str) -> list[Choice[str]]:
    return matching(_leaders_of(await open_decision(interaction, PromptKind.BT_ATTACK), DECLINE), current)


async def impairments(interaction: discord.Interaction, current: str) -> list[Choice[str]]:
    prompt = await open_decision(interaction, PromptKind.BT_IMPAIRMENT)
    return matching([(IMPAIRMENT_WORDS.get(o, o), o) for o in (prompt.options if prompt else [])], current)


def _assignments(text: str) -> tuple[str, list[tuple[str, str]], str]:
    """"Carthag=Kulon, Arr": the parts written ("Carthag=Kulon, "), each as (left, right), and the part being typed."""
    *done, typing = text.split(",")
    pairs = [(left.strip(), right.strip()) for left, _, right in (part.partition("=") for part in done)]
    return "".join(f"{part}," for part in done) + (" " if done else ""), pairs, typing.strip()


def _extend(text: str, offers: list[str]) -> list[Choice[str]]:
    """The text written so far with one more assignment each: the caller picks the next one."""
    written, _, typing = _assignments(text)
    return [Choice(name=(written + offer)[:100], value=(written + offer)[:100]) for offer in offers
            if typing.lower() in offer.lower()][:25]


def _names_in(hand: list[str], used: set[str]) -> list[str]:
    return [card_name(c) for c in hand if card_name(c).lower() not in used]


def _trap_hand(prompt: Prompt | None) -> list[str] | None:
    """The hand a trap may be laid from (BT-5, R-11), or None when no trap may be laid now."""
    if prompt is None:
        return None
    if prompt.kind == PromptKind.BT_TRAPS:
        return details_of(prompt, BtTrapsDetails).hand
    d = details_of(prompt, BtTrapsAndGiftsDetails)
    return d.hand if d.traps else None


async def _traps(interaction: discord.Interaction, current: str, kind: PromptKind) -> list[Choice[str]]:
    prompt = await open_decision(interaction, kind)
    hand = _trap_hand(prompt)
    if prompt is None or hand is None:
        return []
    _, done, _ = _assignments(current)
    trapped = {left.lower() for left, _ in done}
    used = {right.lower() for _, right in done}
    return _extend(current, [f"{s}={name}" for s in prompt.options if s.lower() not in trapped
                             for name in _names_in(hand, used)])


async def setup_traps(interaction: discord.Interaction, current: str) -> list[Choice[str]]:
    """/bt setup-traps: "stronghold=card" assignments, one trap a stronghold, one card a trap (BT-5, BT-30)."""
    return await _traps(interaction, current, PromptKind.BT_TRAPS)


async def bidding_traps(interaction: discord.Interaction, current: str) -> list[Choice[str]]:
    """/bt traps-and-gifts traps: the strongholds a trap may go on now (R-11)."""
    return await _traps(interaction, current, PromptKind.BT_TRAPS_AND_GIFTS)


async def gifts(interaction: discord.Interaction, current: str) -> list[Choice[str]]:
    """/bt traps-and-gifts gifts: "card=faction", never above a receiver's hand room, no card laid as a trap
    (BT-40)."""
    prompt = await open_decision(interaction, PromptKind.BT_TRAPS_AND_GIFTS)
    d = details_of(prompt, BtTrapsAndGiftsDetails) if prompt else None
    if d is None or not d.gifts:
        return []
    _, done, _ = _assignments(current)
    trapped = {right.lower() for _, right in _assignments((typed(interaction, "traps") or "") + ",")[1]}
    used = {left.lower() for left, _ in done} | trapped
    given = [right.lower() for _, right in done]
    room = {faction_name(r): n for r, n in d.receivers.items()}
    return _extend(current, [f"{name}={receiver}" for name in _names_in(d.hand, used)
                             for receiver, n in room.items() if given.count(receiver.lower()) < n])


async def cards_given_back(interaction: discord.Interaction, current: str) -> list[Choice[str]]:
    """/card return-cards: the cards of the hand not yet listed, while fewer than owed are listed (A-14)."""
    prompt = await open_decision(interaction, PromptKind.HAND_SWAP)
    if prompt is None:
        return []
    *done, typing = current.split(",")
    listed = [part.strip().lower() for part in done]
    if len(listed) >= details_of(prompt, HandSwapDetails).count:
        return []
    written = "".join(f"{part.strip()}, " for part in done)
    names = [card_name(c) for c in prompt.options]
    left = [name for name in names if listed.count(name.lower()) < names.count(name)]
    return [Choice(name=(written + name)[:100], value=(written + name)[:100]) for name in dict.fromkeys(left)
            if typing.strip().lower() in name.lower()][:25]
