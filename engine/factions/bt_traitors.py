"""The Bene Tleilaxu's traitors made from revived leaders and the territories they take with them
(bene-tleilaxu.md: BT-20..BT-26, BT-51; R-6, R-7, R-8, R-23, R-25, R-31, R-32).

- Marking (BT-20, BT-21, R-32): every leader revival (engine/phases/revival.py `revive_leader`: paid or free
  revival, the Tleilaxu Ghola, the BT alliance revival) opens a SECRET, NON-BLOCKING BT_MARK prompt to the
  BT: mark one of the leaders just revived, or no. The game never waits for it; the window closes (answer
  no) at the next leader revival or at the end of the turn. At most one mark a turn: once the BT marked a
  leader this turn the window still opens for every revival (so that nothing visible tells whether they
  marked), but it offers only "no". Marks are secret (`BtState.marked`, the BT's own view).
- A mark dies with its leader (BT-22): marks of leaders in the tanks are ignored everywhere and dropped
  whenever the BT act on them, at a revival of that leader and at the end of the turn.
- Reveal (BT-23, R-8, R-25, BT-26, R-31): `RevealBtTraitor` at any time. A leader who is not marked is
  refused (only the BT see a refusal). A marked leader with an open victory record (`GameState.victories`,
  written by engine/phases/battle.py `record_victory`) whose faction still has tokens in that territory: the
  reveal is public at once and a Karama window opens on it (BT-51, engine/factions/bt_reveal_karama.py); unless
  a Karama cancels it (the leader stays, the tokens stay, the mark is removed), he and all of those tokens go to
  the tanks and the BT take control of the territory, for no spice. Otherwise the reveal is public, the mark is
  removed, and nothing else happens.
- Waiting (BT-25, R-6, R-7, R-23): a stronghold record stays open until any tokens ship or move into that
  stronghold or the betrayed faction's tokens move or ship out of it (engine/factions/bt_control.py). Records
  outside strongholds close when the next battle starts or the BT decide on their leader attack
  (`close_open_field_betrayals`), and at the latest at the end of the turn.
- Control (BT-24, R-26, R-30): engine/factions/bt_control.py.

Reading (not settled by the rules): a leader who is the recorded winner in several territories (stronghold
records can last several turns) betrays the tokens in all of them at once; he dies only once. The Karama window
opens only on a reveal that would have an effect.
"""

from __future__ import annotations

from engine.actions import AnswerRevealWindow, MarkBtTraitor, RevealBtTraitor
from engine.data import load_game_data
from engine.errors import RuleViolation, ViolationCode
from engine.events import EventLog, EventType
from engine.factions.bt_reveal_karama import open_karama_window
from engine.flow import Details, default_for, details_for, handles, open_prompt, sampler_for, take_prompt
from engine.ids import Faction
from engine.model import BattleVictory, GameState, Prompt, PromptKind
from engine.names import faction_does, faction_name, leader_name, pronouns
from engine.rng import Rng
from engine.rules.board import tokens_in_territory

BT = Faction.BENE_TLEILAXU
NO = "no"


# --- marks ---------------------------------------------------------------------------------


@details_for(PromptKind.BT_MARK)
class BtMarkDetails(Details):
    revived: list[str]
    owner: Faction
    turn: int


@details_for(PromptKind.BT_REVEAL_WINDOW)
class BtRevealWindowDetails(Details):
    """R-7: the public victory the window follows."""

    territory: str
    leader: str
    owner: Faction


def leader_faction(leader: str) -> Faction:
    return load_game_data().leader(leader).faction


def is_alive(state: GameState, leader: str) -> bool:
    faction = leader_faction(leader)
    return state.in_game(faction) and leader not in state.faction(faction).leaders_in_tanks


def live_marks(state: GameState) -> list[str]:
    """BT-22: the leaders the BT marked who have not died since (a read: the state is not changed)."""
    if state.bt is None:
        return []
    return [leader for leader in state.bt.marked if is_alive(state, leader)]


def forget_dead_marks(state: GameState) -> None:
    """BT-22: a BT traitor stops being one when he dies."""
    if state.bt is not None:
        state.bt.marked = live_marks(state)


def marked_this_turn(state: GameState) -> bool:
    return state.bt is not None and state.bt.last_mark_turn == state.turn


def _mark_window(state: GameState) -> Prompt | None:
    return next((p for p in state.prompts if p.kind == PromptKind.BT_MARK), None)


def close_mark_window(state: GameState, log: EventLog) -> None:
    """BT-21: the window closes unanswered (the next leader revival, the end of the turn): the answer is no."""
    prompt = _mark_window(state)
    if prompt is None:
        return
    state.prompts.remove(prompt)
    names = " or ".join(leader_name(leader) for leader in prompt.detail["revived"])
    log.private(EventType.BT_MARK_WINDOW_CLOSED, BT, f"The chance to mark {names} as your traitor has passed; "
                "not marked (BT-21).", leaders=list(prompt.detail["revived"]))


def offer_mark(state: GameState, faction: Faction, leaders: list[str], log: EventLog) -> None:
    """BT-20, BT-21: leaders of `faction` were just revived (together): the window of the last revival closes
    and a new one opens. Called by engine/phases/revival.py `revive_leader` for every leader revival."""
    if state.bt is None or not state.in_game(BT):
        return
    close_mark_window(state, log)
    # BT-22: a revived leader died after any mark he had, so the mark is gone; he may be marked again.
    state.bt.marked = [leader for leader in state.bt.marked if leader not in leaders]
    choices = [] if marked_this_turn(state) else list(leaders)  # BT-20: one mark a turn
    open_prompt(state, PromptKind.BT_MARK, BT, secret=True, options=[*choices, NO], blocking=False,
                revived=list(leaders), owner=faction.value, turn=state.turn)


@handles(MarkBtTraitor)
def mark_traitor(state: GameState, action: MarkBtTraitor, log: EventLog) -> None:
    prompt = take_prompt(state, action.faction, PromptKind.BT_MARK, "BT-21")
    leader = action.leader
    names = " or ".join(leader_name(lead) for lead in prompt.detail["revived"])
    if leader is None or leader == NO:
        log.private(EventType.BT_MARK_DECLINED, BT, f"You do not mark {names} as your traitor.",
                    leaders=list(prompt.detail["revived"]))
        return
    if leader not in prompt.detail["revived"]:
        raise RuleViolation(ViolationCode.ILLEGAL_CHOICE, "BT-21",
                            f"Only a leader just revived may be marked now ({names}); you cannot go back to an "
                            "earlier one.", prompt.options)
    if marked_this_turn(state):
        raise RuleViolation(ViolationCode.NOT_ALLOWED, "BT-20",
                            "You already marked a leader as your traitor this turn; at most one a turn.", [NO])
    if not is_alive(state, leader):
        raise RuleViolation(ViolationCode.NOT_ALLOWED, "BT-22",
                            f"{leader_name(leader)} has died since being revived and cannot be marked.", [NO])
    bt = state.bt_state()
    bt.marked.append(leader)
    bt.last_mark_turn = state.turn
    them = pronouns(leader)
    log.private(EventType.BT_TRAITOR_MARKED, BT, f"You mark {leader_name(leader)} as your traitor (BT-20). Reveal "
                f"{them.object} when {them.subject} has won a territory for {them.possessive} faction (BT-23).",
                leader=leader)


@default_for(PromptKind.BT_MARK)
def _default_mark(state: GameState, prompt: Prompt) -> MarkBtTraitor:
    return MarkBtTraitor(faction=prompt.faction, leader=None)


@sampler_for(PromptKind.BT_MARK)
def _sample_mark(state: GameState, prompt: Prompt, rng: Rng) -> MarkBtTraitor:
    """A random BT marks whenever it may (a mark costs nothing but the turn's one chance), 9 times in 10."""
    choices = [o for o in prompt.options if o != NO]
    if choices and rng.below(10):
        return MarkBtTraitor(faction=prompt.faction, leader=rng.choice(choices))
    return MarkBtTraitor(faction=prompt.faction, leader=None)


# --- reveals -------------------------------------------------------------------------------


def open_betrayals(state: GameState, leader: str) -> list[BattleVictory]:
    """BT-23: the open victory records of this leader whose tokens are still in the territory; R-19: not where
    the Kwisatz Haderach fought beside him."""
    return [v for v in state.victories
            if v.leader == leader and tokens_in_territory(state, v.territory, v.faction)
            and not v.with_kwisatz_haderach]


def fighting_now(state: GameState, faction: Faction) -> bool:
    battle = state.battle.current if state.battle is not None else None
    return battle is not None and faction in (battle.aggressor, battle.defender)


def revealable(state: GameState) -> list[str]:
    """BT-23: the marks the BT may reveal now, to effect or not: a live mark, unless his faction is fighting a
    battle (the reveal waits for its end)."""
    return [leader for leader in live_marks(state)
            if not fighting_now(state, state.captured.get(leader, leader_faction(leader)))]


@handles(RevealBtTraitor)
def reveal_traitor(state: GameState, action: RevealBtTraitor, log: EventLog) -> None:
    """BT-23: the BT name a marked leader, at any time."""
    if action.faction != BT:
        raise RuleViolation(ViolationCode.NOT_ALLOWED, "BT-23", "Only the Bene Tleilaxu reveal BT traitors.")
    forget_dead_marks(state)
    leader, bt = action.leader, state.bt_state()
    if leader not in bt.marked:
        raise RuleViolation(ViolationCode.ILLEGAL_CHOICE, "R-25", f"{_name(leader)} is not one of your traitors.",
                            list(bt.marked))
    faction = state.captured.get(leader, leader_faction(leader))  # a captive fights for his captors
    if fighting_now(state, faction):
        # Our reading: his plan may be on the wheel; the reveal waits until the battle is resolved (public facts).
        raise RuleViolation(ViolationCode.WRONG_PHASE, "BT-23",
                            f"{faction_does(faction, 'are', start=True)} fighting a battle; reveal "
                            f"{leader_name(leader)} once it is resolved.")
    bt.marked.remove(leader)  # BT-22: whatever happens, the mark is used up
    betrayals = open_betrayals(state, leader)
    if not betrayals:
        beside_kh = any(v.leader == leader and v.with_kwisatz_haderach for v in state.victories)
        them = pronouns(leader)
        why = (f"the Kwisatz Haderach fought beside {them.object} there (R-19)" if beside_kh else
               f"no territory {them.subject} won is open to betrayal now (BT-23, BT-25: the tokens {them.subject} "
               "won with have left it, or tokens came in since, R-6, R-23; in the open field, the next battle began, "
               "R-7)")
        log.public(EventType.BT_TRAITOR_REVEALED, f"The Bene Tleilaxu reveal {leader_name(leader)} of the "
                   f"{faction_name(faction)} as their traitor, to no effect: {why}. "
                   f"{them.subject.capitalize()} stays with {them.possessive} faction (R-8).",
                   leader=leader, faction=faction.value, effect=False)
        return
    them = pronouns(leader)
    log.public(EventType.BT_TRAITOR_REVEALED, f"The Bene Tleilaxu reveal {leader_name(leader)} as their traitor! "
               f"{them.subject.capitalize()} won {' and '.join(v.territory for v in betrayals)} for the "
               f"{faction_name(faction)}: unless a Karama cancels the reveal, {them.subject} goes to the tanks with "
               "their tokens there and the Bene Tleilaxu take control (BT-23, BT-51).",
               leader=leader, faction=faction.value, effect=True, territories=[v.territory for v in betrayals])
    open_karama_window(state, leader, faction, betrayals, log)  # BT-51: the effect waits for the answers


def _name(leader: str) -> str:
    try:
        return leader_name(leader)
    except KeyError:
        return repr(leader)


def close_open_field_betrayals(state: GameState) -> None:
    """R-7: a betrayal outside a stronghold must be revealed before the next battle starts (or, after the
    last battle, before the BT's leader-attack decision); after that it has no effect."""
    state.victories = [v for v in state.victories if v.stronghold]


# --- the end of the turn ------------------------------------------------------------------


def bt_turn_ends(state: GameState, log: EventLog) -> None:
    """The end of the turn: the mark window closes (BT-21), marks of dead leaders are dropped (BT-22), and
    betrayals outside strongholds can no longer be revealed (R-7)."""
    close_mark_window(state, log)
    forget_dead_marks(state)
    close_open_field_betrayals(state)


# --- the reveal window after an open-field battle (R-7) --------------------------------------

PASS = "pass"


def open_reveal_window(state: GameState, territory: str) -> None:
    """R-7: a betrayal outside a stronghold must come before the next battle starts, so after a battle won there
    by a leader whose tokens remain, the BT are asked before the round goes on. The window opens whether or not
    the leader is theirs (the victory is public), so its opening tells nothing."""
    if state.bt is None:
        return
    record = next((v for v in state.victories if v.territory == territory and not v.stronghold), None)
    if record is None:
        return
    options = [record.leader] if record.leader in live_marks(state) else []
    open_prompt(state, PromptKind.BT_REVEAL_WINDOW, BT, secret=True, options=[*options, PASS], territory=territory,
                leader=record.leader, owner=record.faction.value)  # the public victory the window follows


@handles(AnswerRevealWindow)
def answer_reveal_window(state: GameState, action: AnswerRevealWindow, log: EventLog) -> None:
    prompt = take_prompt(state, action.faction, PromptKind.BT_REVEAL_WINDOW, "R-7")
    if action.leader is None:
        log.public(EventType.DECISION_MADE, "The Bene Tleilaxu let the moment pass.", faction=BT.value,
                   kind=PromptKind.BT_REVEAL_WINDOW.value)
        return
    if action.leader not in prompt.options:
        raise RuleViolation(ViolationCode.ILLEGAL_CHOICE, "R-25", f"{_name(action.leader)} is not one of your "
                            "traitors who just won here.", prompt.options)
    reveal_traitor(state, RevealBtTraitor(faction=BT, leader=action.leader), log)


@default_for(PromptKind.BT_REVEAL_WINDOW)
def _default_reveal_window(state: GameState, prompt: Prompt) -> AnswerRevealWindow:
    return AnswerRevealWindow(faction=BT)


@sampler_for(PromptKind.BT_REVEAL_WINDOW)
def _sample_reveal_window(state: GameState, prompt: Prompt, rng: Rng) -> AnswerRevealWindow:
    leaders = [o for o in prompt.options if o != PASS]
    return AnswerRevealWindow(faction=BT, leader=leaders[0] if leaders and rng.below(4) else None)
