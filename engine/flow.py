"""How actions reach the rules: a registry of handlers, prompt bookkeeping, and the step driver."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar, TypeVar

from pydantic import BaseModel, ConfigDict, Field

from engine.actions import Action
from engine.errors import RuleViolation, ViolationCode
from engine.events import EventLog
from engine.ids import Faction
from engine.model import GameState, Phase, Prompt, PromptKind
from engine.names import decision_name, the_faction
from engine.rng import Rng

Handler = Callable[[GameState, Any, EventLog], None]
StepRunner = Callable[[GameState, EventLog], bool]
DefaultMaker = Callable[[GameState, Prompt], Action]
Sampler = Callable[[GameState, Prompt, Rng], Action]
# Why a faction has no open decision of a kind now: the refusal naming the rule that forbids it, or None.
RefusalReason = Callable[[GameState, Faction, PromptKind], RuleViolation | None]

HANDLERS: dict[str, Handler] = {}
STEP_RUNNERS: dict[Phase, StepRunner] = {}
DEFAULTS: dict[PromptKind, DefaultMaker] = {}
SAMPLERS: dict[PromptKind, Sampler] = {}
REFUSAL_REASONS: list[tuple[frozenset[PromptKind], RefusalReason]] = []

A = TypeVar("A", bound=BaseModel)
# The registering decorators hand back the function as it was typed: its callers keep its own return type.
D = TypeVar("D", bound=DefaultMaker)
S = TypeVar("S", bound=Sampler)
ASKS_AGAIN = "asks_again"  # in a prompt's detail: the ids of the decisions it asks again, oldest first


class Details(BaseModel):
    """A decision's details as its kind's handler writes them (`open_prompt`'s keywords): the typed contract the
    bot reads through `details_of`. Each kind declares its model beside its handler (`details_for`). The stored
    form stays the plain dict `Prompt.detail`, so a game's JSON and hash do not depend on these models; a key the
    engine writes that its model lacks is refused (extra="forbid"), and tests/test_details_contract.py parses every
    decision of seeded games."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    kind: ClassVar[PromptKind]


class AskedAgainDetails(Details):
    """The details of a kind that `ask_again` may ask again: the ids of the decisions it continues."""

    asks_again: list[str] = Field(default_factory=list)  # ASKS_AGAIN


DETAILS: dict[PromptKind, type[Details]] = {}
KindDetails = TypeVar("KindDetails", bound=Details)  # one kind's model of details


def details_for(kind: PromptKind) -> Callable[[type[KindDetails]], type[KindDetails]]:
    """Register the model of a kind's details."""

    def register(model: type[KindDetails]) -> type[KindDetails]:
        model.kind = kind
        DETAILS[kind] = model
        return model

    return register


def details_of(prompt: Prompt, model: type[KindDetails]) -> KindDetails:
    """The prompt's details, parsed and checked by its kind's model (`model` must be that model: asking a BID
    for its battle plan is a mistake, not an empty answer)."""
    if DETAILS.get(prompt.kind) is not model:
        raise TypeError(f"a {prompt.kind.value} decision's details are not {model.__name__}")
    return model.model_validate(prompt.detail)


def handles(action_type: type[A]) -> Callable[[Callable[[GameState, A, EventLog], None]], Handler]:
    """Register the function that applies one type of action to a draft state."""
    name = action_type.model_fields["type"].default

    def register(fn: Callable[[GameState, A, EventLog], None]) -> Handler:
        HANDLERS[name] = fn
        return fn

    return register


def runs_phase(phase: Phase) -> Callable[[StepRunner], StepRunner]:
    """Register the function that moves a phase on when no blocking prompt is open."""

    def register(fn: StepRunner) -> StepRunner:
        STEP_RUNNERS[phase] = fn
        return fn

    return register


def default_for(kind: PromptKind) -> Callable[[D], D]:
    """Register the action used when a prompt of this kind is forced (admin) or expires."""

    def register(fn: D) -> D:
        DEFAULTS[kind] = fn
        return fn

    return register


def sampler_for(kind: PromptKind) -> Callable[[S], S]:
    """Register a generator of random legal answers to a prompt (automatic players, fuzzing).

    A sample may occasionally be refused (its rule is checked on submission); players then retry or
    fall back to the prompt's default, which must always be legal.
    """

    def register(fn: S) -> S:
        SAMPLERS[kind] = fn
        return fn

    return register


def explains_refusal(*kinds: PromptKind) -> Callable[[RefusalReason], RefusalReason]:
    """Register a reason why a faction may have no open decision of these kinds (engine/rules/refusals.py). Reasons
    are asked in the order registered, the first that applies names the refusal's rule."""

    def register(fn: RefusalReason) -> RefusalReason:
        REFUSAL_REASONS.append((frozenset(kinds), fn))
        return fn

    return register


def open_prompt(
    state: GameState,
    kind: PromptKind,
    faction: Faction,
    *,
    secret: bool,
    options: list[str] | None = None,
    blocking: bool = True,
    **detail: Any,
) -> Prompt:
    """Open a decision. A non-blocking one (`blocking=False`) does not stop the game: `advance` goes on while
    it is open (BT-21: the BT's mark window)."""
    prompt = Prompt(
        id=f"p{state.next_prompt_number}",
        kind=kind,
        faction=faction,
        secret=secret,
        options=list(options or []),
        detail=detail,
        opened_at=state.seq,
        blocking=blocking,
    )
    state.next_prompt_number += 1
    state.prompts.append(prompt)
    return prompt


# The decisions `ask_again` asks again (engine/phases/movement.py, revival.py, alliances.py). A decision of another
# kind opened anew for the same faction is a new question (the next card's bid), not the old one asked again.
ASKED_AGAIN_KINDS = frozenset({PromptKind.MOVEMENT, PromptKind.REVIVAL, PromptKind.NEXUS})


def ask_again(state: GameState, prompt: Prompt, open_successor: Callable[[], None]) -> None:
    """A decision whose legal choices changed while it was open is asked again: `prompt` closes and
    `open_successor` opens the same decision under a new id (a decision's choices never change under its id: a
    card's controls were made for them), in its place among the open prompts; or nothing, if nothing is left to
    decide. The successor keeps the opening of the decision it continues, so its deadline does not start again."""
    if prompt.kind not in ASKED_AGAIN_KINDS:
        raise ValueError(f"{prompt.kind.value} decisions are not asked again: add the kind to ASKED_AGAIN_KINDS")
    index = state.prompts.index(prompt)
    state.prompts.remove(prompt)
    count = len(state.prompts)
    open_successor()
    if len(state.prompts) > count:
        # The same decision still: it keeps its opening (its deadline counts from there), and it says which
        # decisions it asks again, so that a click on an old card made before its decider saw the new one answers
        # it when its choice is still offered (bot/discord/components.py).
        successor = state.prompts.pop().model_copy(update={"opened_at": prompt.opened_at})
        successor.detail[ASKS_AGAIN] = [*prompt.detail.get(ASKS_AGAIN, []), prompt.id]
        state.prompts.insert(index, successor)


def asked_again_as(state: GameState, prompt_id: str) -> Prompt | None:
    """The open decision that asks again the closed decision `prompt_id` (after one or more re-asks), if any."""
    return next((p for p in state.prompts if prompt_id in p.detail.get(ASKS_AGAIN, ())), None)


def take_prompt(state: GameState, faction: Faction, kind: PromptKind, rule: str) -> Prompt:
    """Close and return the faction's open prompt of this kind, or refuse the action (see `open_prompt_of`)."""
    prompt = open_prompt_of(state, faction, kind, rule)
    state.prompts.remove(prompt)
    return prompt


def open_prompt_of(state: GameState, faction: Faction, kind: PromptKind, rule: str) -> Prompt:
    """The faction's open prompt of this kind, left open; or refuse the action: with the rule that forbids it now
    when a registered reason knows it (the BT ship nothing, BT-1; one revival a turn, A-7...), else as "no open
    decision" under `rule`."""
    prompt = state.prompt_of(faction, kind)
    if prompt is not None:
        return prompt
    for kinds, reason in REFUSAL_REASONS:
        refusal = reason(state, faction, kind) if kind in kinds else None
        if refusal is not None:
            raise refusal
    waiting = "; ".join(decision_name(p.kind) for p in state.prompts_for(faction))
    raise RuleViolation(
        ViolationCode.NO_OPEN_DECISION,
        rule,
        f"No decision on {decision_name(kind)} is open for {the_faction(faction)} now"
        + (f"; open: {waiting}." if waiting else "."),
    )


def blocking_prompts(state: GameState) -> list[Prompt]:
    """The open decisions the game waits on (every prompt but the non-blocking ones)."""
    return [p for p in state.prompts if p.blocking]


def advance(state: GameState, log: EventLog) -> None:
    """Run the game forward until it needs a decision or ends."""
    while not blocking_prompts(state) and state.phase != Phase.ENDED:
        runner = STEP_RUNNERS.get(state.phase)
        if runner is None or not runner(state, log):
            return


def legal_choices(state: GameState, prompt_id: str) -> Prompt:
    """The open prompt with its legal options (for menus) and the shape of the rest (`detail`: amounts,
    ranges, locations). Refuses an unknown or closed prompt, which is how a stale button is caught."""
    prompt = state.prompt(prompt_id)
    if prompt is None:
        raise RuleViolation(ViolationCode.NO_OPEN_DECISION, "Engine", f"The decision {prompt_id!r} is closed.",
                            [p.id for p in state.prompts])
    return prompt.model_copy(deep=True)
