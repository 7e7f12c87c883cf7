"""Harkonnen leader capture, option `character_advantages` (A-15, 1979 optional rule XV; factions.json).

After winning a battle the Harkonnen take one leader at random from the loser's available leaders — alive,
not held captive, and (our reading of "available") not one who fought this turn: those are still on the
battlefield until the battle round ends. The capture is public (a leader disc changes hands). The Harkonnen
then keep him, to lead their own tokens, or kill him for 2 spice from the bank, or let him go.

A captured leader is no longer his faction's: he leads for the Harkonnen (`state.captured`: leader ->
captor), and whoever holds his traitor card may still call it against him. He dies into his own faction's
tanks. The GF9 details the digest gives (AH says nothing more): a captive who survives a battle goes home
when the battle round ends, and every captive goes home when all the Harkonnen's own leaders are dead.
A BT mark on him stays until he dies (BT-22; issue 8 item 7).
"""

from __future__ import annotations

from engine.actions import CaptureLeader
from engine.data import load_game_data
from engine.errors import RuleViolation, ViolationCode
from engine.events import EventLog, EventType
from engine.flow import Details, default_for, details_for, handles, open_prompt, sampler_for, take_prompt
from engine.ids import Faction
from engine.model import GameState, Prompt, PromptKind
from engine.names import faction_name, leader_name, pronouns
from engine.rng import Rng
from engine.rules.economy import bank_pays
from engine.rules.karama import Advantage, karama_cancels

RULE = "A-15"
H = Faction.HARKONNEN
KILL_REWARD = 2
KEEP, KILL, RELEASE = "keep", "kill", "release"
CHOICES = (KEEP, KILL, RELEASE)
CAPTURED_LEADER_DRAW = "captured_leader"  # the leader the Harkonnen take (a scenario may fix it: engine/rng.py draw)


@details_for(PromptKind.LEADER_CAPTURE)
class LeaderCaptureDetails(Details):
    leader: str


def owner(leader: str) -> Faction:
    return load_game_data().leader(leader).faction


def holder(state: GameState, leader: str) -> Faction:
    """Who the leader fights for now: his captor, or his own faction."""
    return state.captured.get(leader, owner(leader))


def leaders_held(state: GameState, faction: Faction) -> list[str]:
    """The leaders alive that fight for the faction: its own not held captive, and its captives."""
    data = load_game_data()
    own = [leader.id for leader in data.factions[faction].leaders] if faction in data.factions else []
    mine = [leader for leader in own if leader not in state.captured] + [
        leader for leader, captor in state.captured.items() if captor == faction]
    return [leader for leader in mine if leader not in state.faction(owner(leader)).leaders_in_tanks]


def kill_leader(state: GameState, leader: str) -> None:
    """A leader dies: into his own faction's tanks, captive or not."""
    state.captured.pop(leader, None)
    state.faction(owner(leader)).leaders_in_tanks.append(leader)


def offer_capture(state: GameState, loser: Faction, log: EventLog) -> None:
    """After a Harkonnen win: draw one of the loser's available leaders at random and ask what to do."""
    if not state.setup.options.character_advantages or loser == H:
        return
    if karama_cancels(state, Advantage.LEADER_CAPTURE, log):  # "leader capture (optional)"
        return
    used = state.battle.leader_territory if state.battle else {}
    available = [leader for leader in leaders_held(state, loser) if leader not in used]
    if not available:
        return
    leader = state.rng.draw(CAPTURED_LEADER_DRAW, available)
    state.captured[leader] = H
    log.public(EventType.LEADER_CAPTURED, f"The Harkonnen capture {leader_name(leader)} of the {faction_name(loser)}, "
               "drawn at random from their available leaders (A-15); the Harkonnen keep that leader, kill them for 2 "
               "spice, or let them go.", leader=leader, faction=loser.value)
    open_prompt(state, PromptKind.LEADER_CAPTURE, H, secret=False, options=list(CHOICES), leader=leader)


@handles(CaptureLeader)
def capture_leader(state: GameState, action: CaptureLeader, log: EventLog) -> None:
    if action.faction != H:
        raise RuleViolation(ViolationCode.NOT_ALLOWED, RULE, "Only the Harkonnen capture leaders.")
    prompt = take_prompt(state, action.faction, PromptKind.LEADER_CAPTURE, RULE)
    leader = prompt.detail["leader"]
    if action.choice == KILL:
        kill_leader(state, leader)
        bank_pays(state, H, KILL_REWARD)
        log.public(EventType.CAPTURED_LEADER_KILLED,
                   f"The Harkonnen kill {leader_name(leader)} and receive {KILL_REWARD} "
                   "spice (A-15).", leader=leader, faction=owner(leader).value)
    elif action.choice == RELEASE:
        release(state, leader, log, f"the Harkonnen let {pronouns(leader).object} go")
    else:
        log.public(EventType.CAPTURED_LEADER_KEPT, f"The Harkonnen keep {leader_name(leader)}: "
                   f"{pronouns(leader).subject} leads for them now (A-15).", leader=leader, faction=owner(leader).value)


def release(state: GameState, leader: str, log: EventLog, why: str) -> None:
    state.captured.pop(leader)
    log.public(EventType.CAPTIVE_RETURNED,
               f"{leader_name(leader)} returns to the {faction_name(owner(leader))}: {why}.",
               leader=leader, faction=owner(leader).value)


def captives_go_home(state: GameState, log: EventLog) -> None:
    """The end of the battle round: captives who fought go home; all of them if the Harkonnen's own leaders
    are all dead (GF9 details in the digest)."""
    if not state.captured:
        return
    own = [leader.id for leader in load_game_data().factions[H].leaders]
    leaderless = all(leader in state.faction(H).leaders_in_tanks for leader in own)
    fought = state.battle.leader_territory if state.battle else {}
    for leader in sorted(state.captured):
        if leaderless:
            release(state, leader, log, "all the Harkonnen's own leaders are dead")
        elif leader in fought:
            release(state, leader, log, f"{pronouns(leader).subject} survived a battle for the Harkonnen")


@default_for(PromptKind.LEADER_CAPTURE)
def _default_capture(state: GameState, prompt: Prompt) -> CaptureLeader:
    return CaptureLeader(faction=prompt.faction, choice=KEEP)


@sampler_for(PromptKind.LEADER_CAPTURE)
def _sample_capture(state: GameState, prompt: Prompt, rng: Rng) -> CaptureLeader:
    return CaptureLeader(faction=prompt.faction, choice=rng.choice(CHOICES))
