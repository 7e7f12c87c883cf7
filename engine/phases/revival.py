"""Revival (A-7, BT-10, R-3): at the start of the movement round, before anyone ships, every faction with
something in the tanks may bring back up to 3 tokens (its free revivals first, then 2 spice each) and,
once all five of its leaders are dead, one leader for his strength in spice. Revival is public.

The movement round (engine/phases/movement.py) opens the prompts and goes on when all are answered.

BT-60: an ally of the BT with tokens or leaders in the tanks revives free only when the BT grant it, each turn. The
BT decide in secret (a BT_ALLY_REVIVAL decision, opened on public facts: the alliance and the ally's tanks, so its
being asked tells nothing), and only then is the ally's revival decision opened, with the grant or without it
(BT-10: the ally then pays the BT). The ally learns the answer from that decision, the table from the revival. The
BT's secret standing order (`SetAllyRevivalOrder`: grant, refuse, or ask) answers as the decision opens, as a click
would. A decision with an order rather than an order alone: the choice is the BT's each turn (BT-60), and being
asked tells nobody anything.

A faction's secret standing order "free tokens" (`SetRevivalOrder`) answers its revival decision as soon as it
opens, as a click on the decision's default would (the free tokens, which cost nothing): the decision is still
opened, and the table reads the same answer. A decision that offers a leader or the Kwisatz Haderach is asked as
usual.
"""

from __future__ import annotations

from typing import Any

from engine.actions import BtAllyRevive, GrantAllyRevival, Revive, SetAllyRevivalOrder, SetRevivalOrder
from engine.data import load_game_data
from engine.errors import RuleViolation, ViolationCode
from engine.events import BY_STANDING_ORDER, EventLog, EventType
from engine.factions.bene_tleilaxu import bt_alliance_revival, is_bt_ally, revival_payee
from engine.factions.bt_traitors import offer_mark
from engine.factions.elites import elite_name, revivable_tokens
from engine.flow import (
    AskedAgainDetails,
    Details,
    ask_again,
    default_for,
    details_for,
    handles,
    open_prompt,
    sampler_for,
    take_prompt,
)
from engine.ids import Faction
from engine.model import GameState, Prompt, PromptKind
from engine.names import counted, faction_does, faction_name, leader_name, option_name
from engine.rng import Rng
from engine.rules.economy import pay
from engine.rules.forces import revive_tokens
from engine.rules.order import storm_order

RULE = "A-7"
BT = Faction.BENE_TLEILAXU
GRANT, REFUSE = "grant", "refuse"  # the BT's answers about an ally's free revival (BT-60)
MAX_TOKENS = 3  # up to 3 tokens a turn
TOKEN_COST = 2  # 2 spice for each token beyond the free ones
KH_COST = 2  # the Kwisatz Haderach's strength


def token_limit(state: GameState, faction: Faction) -> int:
    """A-7: up to 3 tokens a turn; BT-60, R-14: up to 6 for an ally of the BT."""
    grant = bt_alliance_revival(state, faction)
    return grant[0] if grant else MAX_TOKENS


def free_revivals(state: GameState, faction: Faction) -> int:
    """The faction's free token revivals this turn (A-7): its sheet's number, capped by the tanks and by 3;
    BT-60, R-14: every token an ally of the BT may revive is free."""
    tanks = revivable_tokens(state, faction)  # one elite token a turn
    if bt_alliance_revival(state, faction):
        return min(token_limit(state, faction), tanks)
    return min(load_game_data().factions[faction].free_revival, tanks, MAX_TOKENS)


def revivable_leaders(state: GameState, faction: Faction) -> list[str]:
    """A-7: a leader may be revived only when all five of the faction's leaders are in the tanks; R-14: an
    ally of the BT may revive any of its leaders in the tanks."""
    leaders = [leader.id for leader in load_game_data().factions[faction].leaders]
    in_tanks = state.faction(faction).leaders_in_tanks
    if bt_alliance_revival(state, faction):
        return [leader for leader in leaders if leader in in_tanks]
    if not leaders or any(leader not in in_tanks for leader in leaders):
        return []
    return leaders


def kwisatz_haderach_revivable(state: GameState, faction: Faction) -> bool:
    """A-15 (factions.json): the dead Kwisatz Haderach is revived like a leader: when all five Atreides leaders
    are in the tanks (A-7), as the turn's one leader revival."""
    leaders = [leader.id for leader in load_game_data().factions[faction].leaders]
    in_tanks = state.faction(faction).leaders_in_tanks
    return (faction == Faction.ATREIDES and state.kwisatz_haderach.dead
            and all(leader in in_tanks for leader in leaders))


def revival_cost(state: GameState, faction: Faction, tokens: int, leader: str | None,
                 kwisatz_haderach: bool = False) -> int:
    """A-7: 2 spice per token beyond the free ones (R-3: free ones cost nothing) plus the leader's strength;
    the Kwisatz Haderach costs his strength, 2 (our reading: A-7's "cost = strength"; GF9 also says 2)."""
    paid_tokens = max(0, tokens - free_revivals(state, faction))
    free_leader = bt_alliance_revival(state, faction) is not None
    leader_cost = load_game_data().leader(leader).strength if leader and not free_leader else 0
    return paid_tokens * TOKEN_COST + leader_cost + (KH_COST if kwisatz_haderach else 0)


@details_for(PromptKind.REVIVAL)
class RevivalDetails(AskedAgainDetails):
    """`revival_prompt_detail`."""

    max_tokens: int
    free_tokens: int
    token_cost: int
    token_costs: list[int]
    leader_costs: dict[str, int]
    max_leaders: int
    bt_alliance: bool
    bt_refused: bool
    kwisatz_haderach_cost: int | None
    spice: int


@details_for(PromptKind.BT_ALLY_REVIVAL)
class BtAllyRevivalDetails(Details):
    """BT-60: the ally's public tanks and what it may revive as usual (A-7)."""

    ally: Faction
    tanks: int
    leaders: list[str]
    usual_tokens: int
    usual_free: int
    usual_leaders: list[str]


def revival_prompt_detail(state: GameState, faction: Faction) -> dict[str, Any]:
    """The shape of a REVIVAL prompt: token limit, free tokens, and the cost of each choice as `revival_cost`
    reckons it (`token_costs[n]`: n tokens; `leader_costs`; `kwisatz_haderach_cost`, None when he cannot be
    revived), a revival costing the sum of its parts; the reviver's `spice`. `max_leaders` 2 and `bt_alliance` for
    an ally of the BT granted free revival (BT-60, answered with `Revive` or, for two leaders, `BtAllyRevive`);
    `bt_refused` for one refused it this turn."""
    grant = bt_alliance_revival(state, faction)
    most = min(token_limit(state, faction), revivable_tokens(state, faction))
    return dict(
        max_tokens=most, free_tokens=free_revivals(state, faction), token_cost=TOKEN_COST,
        token_costs=[revival_cost(state, faction, n, None) for n in range(most + 1)],
        leader_costs={leader: revival_cost(state, faction, 0, leader) for leader in revivable_leaders(state, faction)},
        max_leaders=grant[1] if grant else 1, bt_alliance=grant is not None,
        bt_refused=grant is None and is_bt_ally(state, faction),
        kwisatz_haderach_cost=(revival_cost(state, faction, 0, None, kwisatz_haderach=True)
                               if kwisatz_haderach_revivable(state, faction) else None),
        spice=state.faction(faction).spice,
    )


def open_revival_prompts(state: GameState, log: EventLog) -> None:
    """One public REVIVAL prompt per faction with tokens (or, all five dead, leaders) in the tanks, but an ally of
    the BT's, which waits for the BT's grant (BT-60); then the standing orders answer theirs, once every prompt is
    open (the table sees every faction asked, as without orders)."""
    if state.bt is not None:
        state.bt.revival_grants = {}
    for faction in storm_order(state):
        fs = state.faction(faction)
        if grant_asked(state, faction):
            continue
        if fs.tanks or revivable_leaders(state, faction) or kwisatz_haderach_revivable(state, faction):
            _open_revival_prompt(state, faction)
    _ask_next_grant(state, log)
    for faction in storm_order(state):
        _answer_by_order(state, faction, log)


def _open_revival_prompt(state: GameState, faction: Faction) -> None:
    open_prompt(state, PromptKind.REVIVAL, faction, secret=False, options=revivable_leaders(state, faction),
                **revival_prompt_detail(state, faction))


def reopen_revival_prompt(state: GameState, faction: Faction, log: EventLog) -> None:
    """What is left to revive changed while the faction's revival decision was open (a Tleilaxu Ghola played,
    engine/rules/cards.py): the decision is asked again, with its new choices and costs (and answered by the faction's
    standing order if it now may be)."""
    for prompt in state.prompts_for(faction):
        if prompt.kind == PromptKind.REVIVAL:
            ask_again(state, prompt, lambda: _open_revival_prompt(state, faction))
    _answer_by_order(state, faction, log)


# --- BT-60: the BT grant an ally free revival, or not ---------------------------------------------------


def grant_asked(state: GameState, faction: Faction) -> bool:
    """BT-60: the BT are asked about an ally that has tokens or leaders in the tanks (public facts)."""
    fs = state.faction(faction)
    return is_bt_ally(state, faction) and bool(fs.tanks or fs.leaders_in_tanks)


def _ask_next_grant(state: GameState, log: EventLog) -> None:
    """The BT's secret decision about the first ally, in storm order, not yet decided this turn; its facts are the
    ally's tanks and what its revival as usual would be (A-7), all public."""
    ally = next((f for f in storm_order(state)
                 if grant_asked(state, f) and f not in state.bt_state().revival_grants), None)
    if ally is None:
        return
    fs = state.faction(ally)
    open_prompt(state, PromptKind.BT_ALLY_REVIVAL, BT, secret=True, options=[GRANT, REFUSE], ally=ally.value,
                tanks=fs.tanks, leaders=list(fs.leaders_in_tanks),
                usual_tokens=min(MAX_TOKENS, revivable_tokens(state, ally)), usual_free=free_revivals(state, ally),
                usual_leaders=revivable_leaders(state, ally))
    _answer_grant_by_order(state, log)


@handles(GrantAllyRevival)
def grant_ally_revival(state: GameState, action: GrantAllyRevival, log: EventLog) -> None:
    prompt = take_prompt(state, action.faction, PromptKind.BT_ALLY_REVIVAL, "BT-60")
    _record_grant(state, prompt, action.grant, log)


@handles(SetAllyRevivalOrder)
def set_ally_revival_order(state: GameState, action: SetAllyRevivalOrder, log: EventLog) -> None:
    """A secret standing order of the BT, changed at any time: always grant, or never, answered as each decision
    opens (this one too, if it is open); "ask" clears it."""
    if action.faction != BT or state.bt is None:
        raise RuleViolation(ViolationCode.NOT_ALLOWED, "BT-60", "Only the Bene Tleilaxu grant their allies free "
                            "revival.")
    state.bt.ally_revival_order = action.order
    words = {GRANT: "Your standing order: each turn you grant your allies free revival (BT-60), until you change it.",
             REFUSE: "Your standing order: you grant your allies no free revival; they revive as usual and pay you "
                     "(BT-10), until you change it.",
             "ask": "Your standing order is cleared: you will be asked each turn about your allies' free revival."}
    log.private(EventType.ALLY_REVIVAL_ORDER_SET, BT, words[action.order], order=action.order)
    _answer_grant_by_order(state, log)


def _answer_grant_by_order(state: GameState, log: EventLog) -> None:
    """The standing order answers the BT's open decision as a click on "grant" or "refuse" would: the same public
    words; only the BT read that the order answered."""
    prompt = state.prompt_of(BT, PromptKind.BT_ALLY_REVIVAL)
    if prompt is None or state.bt_state().ally_revival_order == "ask":
        return
    take_prompt(state, BT, PromptKind.BT_ALLY_REVIVAL, "BT-60")
    _record_grant(state, prompt, state.bt_state().ally_revival_order == GRANT, log, by_order=True)


def _record_grant(state: GameState, prompt: Prompt, grant: bool, log: EventLog, by_order: bool = False) -> None:
    """The BT's answer, secret until the ally revives. The ally's revival decision opens now, whatever the answer
    (so that whether it opens tells nothing); then the BT are asked about their next ally."""
    ally = Faction(prompt.detail["ally"])
    state.bt_state().revival_grants[ally] = grant
    who = f"{BY_STANDING_ORDER}, you" if by_order else "You"
    log.private(EventType.BT_ALLY_REVIVAL_ANSWER,
                BT, f"{who} grant the {faction_name(ally)} free revival this turn (BT-60)."
                if grant else f"{who} grant the {faction_name(ally)} no free revival this turn: they revive as "
                "usual, and pay you for it (BT-10).", ally=ally.value, grant=grant)
    log.public(EventType.DECISION_MADE,
               "The Bene Tleilaxu decided about their ally's revival (BT-60).", faction=BT.value,
               kind=PromptKind.BT_ALLY_REVIVAL.value)
    _open_revival_prompt(state, ally)
    _answer_by_order(state, ally, log)
    _ask_next_grant(state, log)


@default_for(PromptKind.BT_ALLY_REVIVAL)
def _default_grant(state: GameState, prompt: Prompt) -> GrantAllyRevival:
    """Grant: a BT who does not answer does not hold back their ally's revival (the game's way before BT-60's
    grant was asked)."""
    return GrantAllyRevival(faction=prompt.faction, grant=True)


@sampler_for(PromptKind.BT_ALLY_REVIVAL)
def _sample_grant(state: GameState, prompt: Prompt, rng: Rng) -> GrantAllyRevival:
    return GrantAllyRevival(faction=prompt.faction, grant=rng.below(2) == 0)


def revives_anything(faction: Faction) -> bool:
    """BT-1: the BT have no tokens and no leaders, so nothing of theirs is ever revived."""
    data = load_game_data().factions[faction]
    return bool(data.tokens_total or data.leaders)


def answered_by_order(prompt: Prompt) -> bool:
    """Whether the standing order "free tokens" answers this revival decision: only one that offers no leader
    and no Kwisatz Haderach (A-7, A-15; BT-60's leaders for an ally of the BT too), whose one answer is then how
    many tokens."""
    return not prompt.options and prompt.detail["kwisatz_haderach_cost"] is None


def _answer_by_order(state: GameState, faction: Faction, log: EventLog) -> None:
    """The standing order "free tokens" answers the faction's open revival decision as a click on its default
    would: the same public words; only the owner reads that the order answered."""
    prompt = state.prompt_of(faction, PromptKind.REVIVAL)
    if not state.faction(faction).revive_free_tokens or prompt is None or not answered_by_order(prompt):
        return
    action = _default_revival(state, prompt)
    take_prompt(state, faction, PromptKind.REVIVAL, RULE)
    what = (f"{counted(action.tokens, 'token')}, free" if action.tokens
            else "nothing: no token of yours is free this turn")
    log.private(EventType.REVIVAL_BY_ORDER, faction, f"{BY_STANDING_ORDER}, you revive {what}.", tokens=action.tokens)
    _carry_out(state, action, log)


@handles(SetRevivalOrder)
def set_revival_order(state: GameState, action: SetRevivalOrder, log: EventLog) -> None:
    """A secret standing order, changed at any time: "free tokens" answers every revival decision of its owner
    that offers no leader as soon as it opens (this one too, if it is open); otherwise the owner is asked."""
    faction = action.faction
    if not revives_anything(faction):
        raise RuleViolation(ViolationCode.NOT_ALLOWED, "BT-1", "The Bene Tleilaxu have no tokens and no leaders: "
                            "nothing of theirs is ever revived.")
    state.faction(faction).revive_free_tokens = action.free_tokens
    log.private(EventType.REVIVAL_ORDER_SET, faction,
                "Your standing order: at each revival you revive your free tokens, at no cost, unless a leader or "
                "the Kwisatz Haderach could be revived (then you are asked), until you change it."
                if action.free_tokens else "Your standing order is cleared: you will be asked about each revival.",
                free_tokens=action.free_tokens)
    _answer_by_order(state, faction, log)


@handles(Revive)
def revive(state: GameState, action: Revive, log: EventLog) -> None:
    take_prompt(state, action.faction, PromptKind.REVIVAL, RULE)
    _carry_out(state, action, log)


def _carry_out(state: GameState, action: Revive, log: EventLog) -> None:
    """A-7: the revival of an answered decision, checked, paid and announced."""
    faction = action.faction
    fs = state.faction(faction)
    fs.revived_turn = state.turn  # one revival a turn (engine/rules/refusals.py)
    limit = token_limit(state, faction)
    if action.tokens > limit:
        raise RuleViolation(ViolationCode.ILLEGAL_CHOICE, "BT-60" if limit != MAX_TOKENS else RULE,
                            f"At most {limit} tokens may be revived in a turn, not {action.tokens}.")
    if action.tokens > fs.tanks:
        raise RuleViolation(ViolationCode.ILLEGAL_CHOICE, RULE,
                            f"You have {fs.tanks} tokens in the tanks; you cannot revive {action.tokens}.")
    if action.tokens > revivable_tokens(state, faction):
        raise RuleViolation(ViolationCode.ILLEGAL_CHOICE, "A-15", f"Only one elite token may be revived a turn: "
                            f"at most {revivable_tokens(state, faction)} of your tokens this turn.")
    if action.leader is not None:
        _check_leader(state, faction, action.leader)
    if action.kwisatz_haderach:
        _check_kwisatz_haderach(state, faction, action.leader)
    free = min(action.tokens, free_revivals(state, faction))
    cost = revival_cost(state, faction, action.tokens, action.leader, action.kwisatz_haderach)
    payee = revival_payee(state)
    if cost:
        pay(state, faction, cost, payee, RULE, "This revival")
    elites_before = fs.elite_tanks
    if action.tokens:
        revive_tokens(state, faction, action.tokens)
    if action.leader is not None:
        revive_leader(state, faction, action.leader, log, "revival")
    if action.kwisatz_haderach:
        state.kwisatz_haderach.dead = False
    elites = elites_before - fs.elite_tanks
    log.public(EventType.REVIVED, _describe(state, faction, action, free, cost, payee, elites), faction=faction.value,
               tokens=action.tokens, free=free, leader=action.leader, cost=cost,
               paid_to=(payee.value if payee else "bank") if cost else None,
               kwisatz_haderach=action.kwisatz_haderach, elites=elites)


def _check_kwisatz_haderach(state: GameState, faction: Faction, leader: str | None) -> None:
    if not kwisatz_haderach_revivable(state, faction):
        raise RuleViolation(ViolationCode.NOT_ALLOWED, "A-15", "Only the Atreides revive the Kwisatz Haderach, once "
                            "he died in an explosion, and like a leader: when all five of their leaders are in the "
                            "tanks.")
    if leader is not None:
        raise RuleViolation(ViolationCode.NOT_ALLOWED, "A-7", "One leader revival a turn: the Kwisatz Haderach or "
                            "a leader, not both.")


def _check_leader(state: GameState, faction: Faction, leader: str) -> None:
    own = [lead.id for lead in load_game_data().factions[faction].leaders]
    in_tanks = state.faction(faction).leaders_in_tanks
    if leader not in own:
        raise RuleViolation(ViolationCode.ILLEGAL_CHOICE, RULE, f"{leader!r} is not one of your leaders.", own)
    if leader not in in_tanks:
        raise RuleViolation(ViolationCode.ILLEGAL_CHOICE, RULE, f"{leader_name(leader)} is not in the tanks.",
                            list(in_tanks))
    if not revivable_leaders(state, faction):
        raise RuleViolation(ViolationCode.NOT_ALLOWED, RULE,
                            "A leader may be revived only when all five of your leaders are in the tanks; "
                            f"{len(in_tanks)} are.")


def _describe(state: GameState, faction: Faction, action: Revive, free: int, cost: int, payee: Faction | None,
              elites: int = 0) -> str:
    granted = bt_alliance_revival(state, faction) is not None  # BT-60, R-14: every token and leader free
    parts = []
    if action.tokens:
        paid = action.tokens - free
        detail = [f"{free} free"] if free and not granted else []
        if paid:
            detail.append(f"{paid} for {paid * TOKEN_COST} spice")
        if elites:
            detail.append(f"{elites} of them {elite_name(faction)}")
        parts.append(counted(action.tokens, "token") + (f" ({', '.join(detail)})" if detail else ""))
    if action.leader is not None:
        price = revival_cost(state, faction, 0, action.leader)
        parts.append(leader_name(action.leader) + ("" if granted else f" for {price} spice" if price else " free"))
    if action.kwisatz_haderach:
        parts.append(f"the Kwisatz Haderach for {KH_COST} spice")
    if not parts:
        return f"{faction_does(faction, 'revive', start=True)} nothing this turn."
    text = f"{faction_does(faction, 'revive', start=True)} " + " and ".join(parts)
    if granted:
        text += ", free by the alliance with the Bene Tleilaxu (BT-60)"
    if cost:
        # BT-10: revival payments go to the BT and are shown on the table.
        text += f"; {cost} spice paid to " + (f"the {faction_name(payee)} (BT-10)" if payee else "the bank")
    return text + "."


@handles(BtAllyRevive)
def bt_ally_revive(state: GameState, action: BtAllyRevive, log: EventLog) -> None:
    """BT-60: the ally's revival, free: up to 6 tokens and up to 2 leaders; one mark window for both."""
    faction = action.faction
    take_prompt(state, faction, PromptKind.REVIVAL, "BT-60")
    state.faction(faction).revived_turn = state.turn  # one revival a turn
    grant = bt_alliance_revival(state, faction)
    if grant is None:
        raise RuleViolation(ViolationCode.NOT_ALLOWED, "BT-60",
                            "The Bene Tleilaxu did not grant you free revival this turn; revive as usual (A-7)."
                            if is_bt_ally(state, faction) else
                            "Only an ally of the Bene Tleilaxu revives this way; revive normally (A-7).")
    max_tokens, max_leaders = grant
    fs = state.faction(faction)
    if action.tokens > min(max_tokens, fs.tanks):
        raise RuleViolation(ViolationCode.ILLEGAL_CHOICE, "BT-60",
                            f"You may revive up to {max_tokens} tokens and you have {fs.tanks} in the tanks; "
                            f"not {action.tokens}.")
    own = [lead.id for lead in load_game_data().factions[faction].leaders]
    if len(action.leaders) > max_leaders or len(set(action.leaders)) != len(action.leaders):
        raise RuleViolation(ViolationCode.ILLEGAL_CHOICE, "BT-60", f"Name up to {max_leaders} different leaders.")
    for leader in action.leaders:
        if leader not in own or leader not in fs.leaders_in_tanks:
            raise RuleViolation(ViolationCode.ILLEGAL_CHOICE, "BT-60", f"{option_name(leader)} is not one of your "
                                "leaders in the tanks.", list(fs.leaders_in_tanks))
    if action.tokens:
        revive_tokens(state, faction, action.tokens)
    for leader in action.leaders:
        revive_leader(state, faction, leader, log, "bt_alliance", mark_window=False)
    if action.leaders:
        offer_mark(state, faction, list(action.leaders), log)
    parts = [counted(action.tokens, "token")] if action.tokens else []
    parts += [leader_name(leader) for leader in action.leaders]
    what = " and ".join(parts) if parts else "nothing"
    log.public(EventType.REVIVED, f"{faction_does(faction, 'revive', start=True)}"
                          f" {what}, free by the alliance with the Bene Tleilaxu "
               "(BT-60).", faction=faction.value, tokens=action.tokens, free=action.tokens,
               leaders=list(action.leaders), leader=action.leaders[0] if action.leaders else None, cost=0,
               paid_to=None)


@default_for(PromptKind.REVIVAL)
def _default_revival(state: GameState, prompt: Prompt) -> Revive:
    """Only the free tokens: it costs nothing, so it is always legal."""
    return Revive(faction=prompt.faction, tokens=prompt.detail["free_tokens"])


@sampler_for(PromptKind.REVIVAL)
def _sample_revival(state: GameState, prompt: Prompt, rng: Rng) -> Revive | BtAllyRevive:
    """Half the time as many tokens as allowed (players mostly revive all they can), else a random number."""
    most = prompt.detail["max_tokens"]
    tokens = most if rng.below(2) else rng.below(most + 1)
    if prompt.detail.get("max_leaders", 1) > 1 and len(prompt.options) > 1 and rng.below(3) == 0:  # BT-60
        leaders = list(prompt.options)
        rng.shuffle(leaders)
        return BtAllyRevive(faction=prompt.faction, tokens=tokens, leaders=leaders[:prompt.detail["max_leaders"]])
    leader = rng.choice(prompt.options) if prompt.options and rng.below(2) else None
    kwisatz_haderach = bool(leader is None and prompt.detail.get("kwisatz_haderach_cost") and rng.below(2))
    return Revive(faction=prompt.faction, tokens=tokens, leader=leader, kwisatz_haderach=kwisatz_haderach)


def revive_leader(state: GameState, faction: Faction, leader: str, log: EventLog, how: str,
                  mark_window: bool = True) -> None:
    """A leader leaves the tanks: paid revival (A-7, `how` "revival"), the Tleilaxu Ghola card (`how`
    "ghola", engine/rules/cards.py) or the BT alliance revival (`how` "bt_alliance"). Every leader revival comes
    through here, so that the BT can offer to mark the revived leader as a traitor (BT-20, BT-21); leaders
    revived together pass `mark_window=False` and the caller opens one window for all of them. The caller
    announces the revival."""
    state.faction(faction).leaders_in_tanks.remove(leader)
    if mark_window:
        offer_mark(state, faction, [leader], log)
