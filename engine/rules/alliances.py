"""Alliances (A-8, BT-60), formed and broken only during a Nexus; bribes (A-16); the Emperor's spice for an ally
(A-26).

The Nexus follows a spice blow in which Shai-Hulud appeared after turn 1 (A-21); engine/phases/spice_blow.py
opens it with `open_nexus` and closes it with `close_nexus` once every faction is done.

During a Nexus each faction has a public NEXUS prompt that stays open while it talks:
- ProposeAlliance(partner): a public offer; a faction has at most one offer standing (a new one replaces it).
- AcceptAlliance(partner): forms the alliance when `partner` has an offer standing to this faction.
- BreakAlliance: the faction leaves its alliance (an alliance left with one member is dissolved).
- EndNexus: the faction is done with this Nexus (its prompt closes; it cannot act again in this Nexus, but an
  offer it made still stands and may be accepted). The Nexus ends when every faction is done.
A faction's secret standing order "done at once" (`SetNexusOrder`) ends its part as the Nexus opens, as a click on
"Done" would: the table reads the same words; only its owner reads that the order answered.

Size (A-8, option `max_alliance_size`, default 2): accepting an offer merges the two sides (each a lone faction or
an alliance) if the merged alliance is not larger than the limit. Kept simple on purpose: with a limit above 2, the
faction that proposes or accepts speaks for its whole alliance; the other members are not asked.
"""

from __future__ import annotations

from functools import partial
from typing import Any

from engine.actions import (
    AcceptAlliance,
    BreakAlliance,
    EndNexus,
    GiveAllySpice,
    GiveBribe,
    ProposeAlliance,
    SetNexusOrder,
)
from engine.errors import RuleViolation, ViolationCode
from engine.events import BY_STANDING_ORDER, EventLog, EventType
from engine.flow import (
    AskedAgainDetails,
    ask_again,
    default_for,
    details_for,
    handles,
    open_prompt,
    sampler_for,
    take_prompt,
)
from engine.ids import Faction
from engine.model import GameState, NexusState, Prompt, PromptKind
from engine.names import faction_does, faction_name, factions_list, listed, the_faction
from engine.rng import Rng
from engine.rules.economy import pay, require_spare_spice
from engine.rules.order import storm_order

NEXUS_RULE = "A-8"
BRIBE_RULE = "A-16"
ALLY_SPICE_RULE = "A-26"


# --- queries ---------------------------------------------------------------------------------


def alliance_of(state: GameState, faction: Faction) -> list[Faction]:
    """The faction's alliance, itself included; a lone faction is a team of one."""
    for alliance in state.alliances:
        if faction in alliance:
            return list(alliance)
    return [faction]


def _members(factions: list[Faction]) -> str:
    """ "Atreides, Fremen and Emperor": an alliance's members, bare names."""
    return listed([faction_name(f) for f in factions])


def alliances_text(state: GameState) -> str:
    if not state.alliances:
        return "There are no alliances."
    return "Alliances: " + "; ".join(_members(a) for a in state.alliances) + "."


# --- the Nexus -------------------------------------------------------------------------------


def open_nexus(state: GameState, log: EventLog) -> None:
    """A-8, A-21: every faction may talk; each has a public NEXUS prompt, all opened together."""
    state.nexus = NexusState()
    for faction in storm_order(state):
        open_prompt(state, PromptKind.NEXUS, faction, secret=False, options=_others(state, faction),
                    max_alliance_size=state.setup.options.max_alliance_size)
    for prompt in state.prompts:  # once every faction is talking: what each may do
        if prompt.kind == PromptKind.NEXUS:
            prompt.detail.update(nexus_choices(state, prompt.faction))
    log.public(
        EventType.NEXUS_OPENED,
        "A Nexus: alliances may now be formed and broken (A-8). " + alliances_text(state),
        alliances=[[f.value for f in a] for a in state.alliances],
    )
    for faction in storm_order(state):  # as clicks on "Done" in storm order would, the others asked again each time
        if _done_by_order(state, faction, log):
            _ask_again_where_changed(state)


def _talking(state: GameState, faction: Faction) -> bool:
    return state.prompt_of(faction, PromptKind.NEXUS) is not None


def _partner_problem(state: GameState, faction: Faction, partner: Faction) -> RuleViolation | None:
    try:
        _check_partner(state, faction, partner)
    except RuleViolation as problem:
        return problem
    return None


@details_for(PromptKind.NEXUS)
class NexusDetails(AskedAgainDetails):
    """`nexus_choices` (written once every faction is talking, as the Nexus opens)."""

    max_alliance_size: int
    propose_to: list[Faction]
    offers: list[Faction]
    allies: list[Faction]
    may_break: bool


def nexus_choices(state: GameState, faction: Faction) -> dict[str, Any]:
    """What the faction may do in the Nexus now (all of it public): propose to whom (`propose_to`: factions still
    talking that an alliance with it may take in), accept whose standing offer (`offers`), break its alliance
    with `allies` (`may_break`); ending its part is always open."""
    others = [f for f in state.factions if f != faction]
    proposals = state.nexus.proposals if state.nexus else {}
    offers = [p for p, to in proposals.items() if to == faction]
    return dict(
        propose_to=[f.value for f in others if _talking(state, f) and _partner_problem(state, faction, f) is None
                    and proposals.get(faction) != f],  # an offer already standing is not made again
        offers=[f.value for f in others if f in offers and _partner_problem(state, faction, f) is None],
        allies=[f.value for f in state.ally_of(faction)], may_break=bool(state.ally_of(faction)),
    )


def _others(state: GameState, faction: Faction) -> list[str]:
    return [f.value for f in state.factions if f != faction]


def _open_nexus_prompt(state: GameState, faction: Faction) -> None:
    open_prompt(state, PromptKind.NEXUS, faction, secret=False, options=_others(state, faction),
                max_alliance_size=state.setup.options.max_alliance_size, **nexus_choices(state, faction))


def _ask_again_where_changed(state: GameState) -> None:
    """After each Nexus action: a faction whose choices it changed (an offer made to it, an alliance formed or
    broken, a faction done talking) is asked again."""
    for prompt in [p for p in state.prompts if p.kind == PromptKind.NEXUS]:
        now = nexus_choices(state, prompt.faction)
        if any(prompt.detail.get(key) != value for key, value in now.items()):
            ask_again(state, prompt, partial(_open_nexus_prompt, state, prompt.faction))


def close_nexus(state: GameState, log: EventLog) -> None:
    state.nexus = None
    state.prompts = [p for p in state.prompts if p.kind != PromptKind.NEXUS]
    log.public(EventType.NEXUS_CLOSED, "The Nexus ends. " + alliances_text(state),
               alliances=[[f.value for f in a] for a in state.alliances])


def not_talking(state: GameState, faction: Faction) -> RuleViolation | None:
    """A-8: alliance actions need an open Nexus in which this faction has not yet ended its part; the refusal
    when it has none (also why an EndNexus finds no open decision, engine/flow.py take_prompt)."""
    if state.nexus is None:
        return RuleViolation(
            ViolationCode.WRONG_PHASE, NEXUS_RULE,
            "Alliances are formed and broken only during a Nexus, which follows a spice blow in which "
            "Shai-Hulud appeared (after turn 1).",
        )
    if not _talking(state, faction):
        return RuleViolation(ViolationCode.NOT_ALLOWED, NEXUS_RULE,
                             f"{faction_does(faction, 'have', start=True)} already ended their part in this Nexus.")
    return None


def _require_talking(state: GameState, faction: Faction) -> None:
    refusal = not_talking(state, faction)
    if refusal is not None:
        raise refusal


def _check_partner(state: GameState, faction: Faction, partner: Faction) -> None:
    if partner == faction:
        raise RuleViolation(ViolationCode.ILLEGAL_CHOICE, NEXUS_RULE, "A faction cannot ally with itself.",
                            [f.value for f in state.factions if f != faction])
    if not state.in_game(partner):
        raise RuleViolation(ViolationCode.NOT_IN_GAME, NEXUS_RULE,
                            f"{faction_does(partner, 'are', start=True)} not in this game.",
                            [f.value for f in state.factions if f != faction])
    if partner in state.ally_of(faction):
        raise RuleViolation(ViolationCode.NOT_ALLOWED, NEXUS_RULE,
                            f"{factions_list([faction, partner], start=True)} are already allies.")
    limit = state.setup.options.max_alliance_size
    merged = len(alliance_of(state, faction)) + len(alliance_of(state, partner))
    if merged > limit:
        raise RuleViolation(
            ViolationCode.NOT_ALLOWED, NEXUS_RULE,
            f"An alliance has at most {limit} members; {_members(alliance_of(state, faction))} with "
            f"{_members(alliance_of(state, partner))} would make {merged}.",
        )


@handles(ProposeAlliance)
def propose_alliance(state: GameState, action: ProposeAlliance, log: EventLog) -> None:
    _require_talking(state, action.faction)
    _check_partner(state, action.faction, action.partner)
    if not _talking(state, action.partner):
        raise RuleViolation(ViolationCode.NOT_ALLOWED, NEXUS_RULE,
                            f"{faction_does(action.partner, 'have', start=True)} already ended their part in this "
                            "Nexus.")
    assert state.nexus is not None
    if state.nexus.proposals.get(action.faction) == action.partner:  # a second click, a retried command
        raise RuleViolation(ViolationCode.NOT_ALLOWED, NEXUS_RULE, f"Your offer to {faction_name(action.partner)} "
                            "already stands; they may accept it.")
    state.nexus.proposals[action.faction] = action.partner
    log.public(
        EventType.ALLIANCE_PROPOSED,
        f"{faction_does(action.faction, 'propose', start=True)} an alliance to {the_faction(action.partner)} (A-8).",
        faction=action.faction.value, partner=action.partner.value,
    )
    _ask_again_where_changed(state)


@handles(AcceptAlliance)
def accept_alliance(state: GameState, action: AcceptAlliance, log: EventLog) -> None:
    _require_talking(state, action.faction)
    assert state.nexus is not None
    offers = [p.value for p, to in state.nexus.proposals.items() if to == action.faction]
    if state.nexus.proposals.get(action.partner) != action.faction:
        raise RuleViolation(
            ViolationCode.ILLEGAL_CHOICE, NEXUS_RULE,
            f"{faction_name(action.partner) if state.in_game(action.partner) else action.partner.value} "
            f"have no alliance offer standing to {faction_name(action.faction)}.",
            offers,
        )
    _check_partner(state, action.faction, action.partner)
    first, second = alliance_of(state, action.partner), alliance_of(state, action.faction)
    members = set(first) | set(second)
    merged = [f for f in state.factions if f in members]
    state.alliances = [a for a in state.alliances if not members & set(a)] + [merged]
    # Offers between members of the new alliance have been answered.
    state.nexus.proposals = {p: to for p, to in state.nexus.proposals.items() if not {p, to} <= members}
    log.public(
        EventType.ALLIANCE_FORMED,
        f"{faction_does(action.faction, 'accept', start=True)}: {factions_list(merged)} are now allies (A-8).",
        members=[f.value for f in merged],
    )
    _ask_again_where_changed(state)


@handles(BreakAlliance)
def break_alliance(state: GameState, action: BreakAlliance, log: EventLog) -> None:
    _require_talking(state, action.faction)
    allies = state.ally_of(action.faction)
    if not allies:
        raise RuleViolation(ViolationCode.NOT_ALLOWED, NEXUS_RULE,
                            f"{faction_does(action.faction, 'have', start=True)} no alliance to break.")
    state.alliances = [a for a in state.alliances if action.faction not in a]
    if len(allies) > 1:
        state.alliances.append(allies)
    log.public(
        EventType.ALLIANCE_BROKEN,
        f"{faction_does(action.faction, 'leave', start=True)} their alliance with {factions_list(allies)} (A-8).",
        faction=action.faction.value, former_allies=[f.value for f in allies],
    )
    _ask_again_where_changed(state)


@handles(EndNexus)
def end_nexus(state: GameState, action: EndNexus, log: EventLog) -> None:
    take_prompt(state, action.faction, PromptKind.NEXUS, NEXUS_RULE)
    _record_done(state, action.faction, log)
    _ask_again_where_changed(state)


@handles(SetNexusOrder)
def set_nexus_order(state: GameState, action: SetNexusOrder, log: EventLog) -> None:
    """A secret standing order, changed at any time: "done at once" ends the faction's part in every Nexus as it
    opens (in this one too, if it is talking now); otherwise it is asked."""
    state.faction(action.faction).nexus_done_at_once = action.done_at_once
    log.private(EventType.NEXUS_ORDER_SET, action.faction,
                "Your standing order: at each Nexus you make no offer, accept none and end your part at once; "
                "your alliance stays as it is, until you change this order." if action.done_at_once
                else "Your standing order is cleared: you will be asked at each Nexus.",
                done_at_once=action.done_at_once)
    if _done_by_order(state, action.faction, log):
        _ask_again_where_changed(state)


def _done_by_order(state: GameState, faction: Faction, log: EventLog) -> bool:
    """The order "done at once" ends the faction's open part in the Nexus as a click on "Done" would: the same
    public words; only the faction reads that its order answered. Whether it did."""
    if not state.faction(faction).nexus_done_at_once or not _talking(state, faction):
        return False
    take_prompt(state, faction, PromptKind.NEXUS, NEXUS_RULE)
    log.private(EventType.NEXUS_BY_ORDER, faction, f"{BY_STANDING_ORDER}, you end your part in this Nexus at once: no "
                "offer made, none accepted.")
    _record_done(state, faction, log)
    return True


def _record_done(state: GameState, faction: Faction, log: EventLog) -> None:
    log.public(EventType.NEXUS_DONE,
               f"{faction_does(faction, 'are', start=True)} done with the Nexus.", faction=faction.value)


@default_for(PromptKind.NEXUS)
def _default_nexus(state: GameState, prompt: Prompt) -> EndNexus:
    return EndNexus(faction=prompt.faction)


@sampler_for(PromptKind.NEXUS)
def _sample_nexus(
    state: GameState, prompt: Prompt, rng: Rng
) -> ProposeAlliance | AcceptAlliance | BreakAlliance | EndNexus:
    """Mostly done; sometimes accept an offer, propose to someone, or leave an alliance."""
    faction = prompt.faction
    roll = rng.below(10)
    if state.nexus is None or roll < 6:
        return EndNexus(faction=faction)
    offers = [p for p, to in state.nexus.proposals.items() if to == faction]
    if offers and roll < 8:
        return AcceptAlliance(faction=faction, partner=rng.choice(offers))
    if state.ally_of(faction) and roll == 9:
        return BreakAlliance(faction=faction)
    return ProposeAlliance(faction=faction, partner=Faction(rng.choice(prompt.options)))


# --- bribes and the Emperor's gift to an ally (A-26) --------------------------------------


@handles(GiveBribe)
def give_bribe(state: GameState, action: GiveBribe, log: EventLog) -> None:
    """A-16: at any time; the spice is set in the open before the receiver's shield until the end of the turn."""
    if action.to == action.faction:
        raise RuleViolation(ViolationCode.ILLEGAL_CHOICE, BRIBE_RULE, "A faction cannot bribe itself.",
                            [f.value for f in state.factions if f != action.faction])
    if not state.in_game(action.to):
        raise RuleViolation(ViolationCode.NOT_IN_GAME, BRIBE_RULE, f"{action.to.value} is not in this game.",
                            [f.value for f in state.factions if f != action.faction])
    require_spare_spice(state, action.faction, action.amount, BRIBE_RULE, "This bribe")
    # Both piles count in the ledger (economy.total_spice_outside_bank), so it stays right.
    state.faction(action.faction).spice -= action.amount
    state.faction(action.to).bribes += action.amount
    log.public(
        EventType.BRIBE_GIVEN,
        f"{faction_does(action.faction, 'give', start=True)}"
        f" {the_faction(action.to)} a bribe of {action.amount} spice; it lies "
        "before their shield until the end of the turn (A-16).",
        faction=action.faction.value, to=action.to.value, amount=action.amount,
    )


def release_bribes(state: GameState, log: EventLog) -> None:
    """A-16, called at the end of the turn: bribe spice goes behind its receiver's shield, usable from now on."""
    for faction, fs in state.factions.items():
        if not fs.bribes:
            continue
        amount, fs.bribes = fs.bribes, 0
        fs.spice += amount
        log.public(EventType.BRIBES_RELEASED,
                   f"{faction_does(faction, 'take', start=True)}"
                   f" the {amount} spice of bribes before their shield behind it (A-16).",
                   faction=faction.value, amount=amount)


@handles(GiveAllySpice)
def give_ally_spice(state: GameState, action: GiveAllySpice, log: EventLog) -> None:
    """A-26: only the Emperor, only to an ally, at any time; usable at once. The amount stays between the two."""
    if action.faction != Faction.EMPEROR:
        raise RuleViolation(ViolationCode.NOT_ALLOWED, ALLY_SPICE_RULE,
                            "Only the Emperor may give spice to an ally; other spice changes hands as a bribe (A-16).")
    allies = state.ally_of(action.faction)
    if action.to not in allies:
        raise RuleViolation(ViolationCode.ILLEGAL_CHOICE, ALLY_SPICE_RULE,
                            f"The Emperor may give spice only to an ally; {faction_does(action.to, 'are')} not one.",
                            [f.value for f in allies])
    require_spare_spice(state, action.faction, action.amount, ALLY_SPICE_RULE, "This gift")
    pay(state, action.faction, action.amount, action.to, ALLY_SPICE_RULE, "This gift")
    log.private(
        EventType.ALLY_SPICE_GIVEN, (action.faction, action.to),
        f"{faction_does(action.faction, 'give', start=True)} {action.amount} spice to {the_faction(action.to)}, "
        "usable at once (A-26).",
        faction=action.faction.value, to=action.to.value, amount=action.amount,
    )
    log.public(EventType.ALLY_SPICE_GIVEN,
               f"{faction_does(action.faction, 'give', start=True)}"
               f" spice to their ally, {the_faction(action.to)} (A-26).",
               faction=action.faction.value, to=action.to.value)
