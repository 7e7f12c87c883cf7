"""The decision card: what a decider reads in the DM that asks for a decision (bot/discord/components.py adds its
controls). It says what is decided and why now (the rule, as /rules finds it), the facts that matter for it,
what happens if nobody answers and when; once the decision closes, how it closed.

Built from the decider's own view of the game (engine.secrecy.views.view) and the open prompt
(engine.flow.legal_choices):
never from the raw state, so a card can only say what its reader may know. Discord-free: the console prints
the same cards.
"""

from __future__ import annotations

from datetime import datetime

from pydantic import BaseModel

from bot.app.battle_facts import BATTLE_FACTS
from bot.app.turn_facts import TURN_FACTS
from bot.app.words import Facts
from engine.flow import details_of
from engine.ids import Faction
from engine.model import Prompt, PromptKind
from engine.names import decision_name, option_name
from engine.phases.battle import BattlePlanDetails
from engine.secrecy.views import PlayerView

# The rule a decision is asked under, as /rules finds it.
KIND_RULES: dict[PromptKind, str] = {
    PromptKind.TRAITOR_PICK: "Setup: traitors",
    PromptKind.BG_PREDICTION: "A-25",
    PromptKind.BT_TRAPS: "BT-5",
    PromptKind.STARTING_PLACEMENT: "Setup: starting tokens",
    PromptKind.STORM_DIAL: "A-1",
    PromptKind.NEXUS: "A-8",
    PromptKind.WORM_RIDE: "A-28",
    PromptKind.BID: "A-6",
    PromptKind.REVIVAL: "A-7",
    PromptKind.SHIPMENT: "A-23",
    PromptKind.MOVEMENT: "A-22",
    PromptKind.SPIRITUAL_ADVISOR: "A-15",
    PromptKind.BATTLE_CHOICE: "A-13",
    PromptKind.PRESCIENCE: "A-26",
    PromptKind.PRESCIENCE_ANSWER: "A-26",
    PromptKind.VOICE: "A-26",
    PromptKind.BATTLE_PLAN: "A-13",
    PromptKind.TRAITOR_CALL: "A-13",
    PromptKind.STORM_CARDS: "A-2",
    PromptKind.TRUTHTRANCE: "Treachery: Truthtrance",
    PromptKind.BT_ATTACK: "BT-11",
    PromptKind.BT_MARK: "BT-20",
    PromptKind.BT_REVEAL_WINDOW: "R-7",
    PromptKind.BT_TRAPS_AND_GIFTS: "R-21",
    PromptKind.WORM_PLACEMENT: "A-21",
    PromptKind.GUILD_TIMING: "A-15",
    PromptKind.HAND_SWAP: "A-14",
    PromptKind.LEADER_CAPTURE: "A-15",
    PromptKind.BT_IMPAIRMENT: "BT-16",
    PromptKind.BT_REVEAL_KARAMA: "BT-51",
    PromptKind.BT_ALLY_REVIVAL: "BT-60",
}

CARD_HEADING = "**Your decision: "  # every card starts so (the console and the tests find cards by it)
# The lines a card of each kind shows beyond the standard ones: (the decider's view, the prompt) -> lines. Each
# area of the game keeps its own in a module of bot/app (turn_facts, battle_facts...), merged here.
FACTS: dict[PromptKind, Facts] = {**TURN_FACTS, **BATTLE_FACTS}


class DecisionCard(BaseModel):
    """A card's words, as the service queues them and a front renders them."""

    title: str
    rule: str
    facts: list[str]
    default: str | None = None  # the declared default, in words
    deadline: datetime | None = None

    def text(self) -> str:
        lines = [f"{CARD_HEADING}{self.title}** (rule {self.rule}; `/rules {self.rule}`)"]
        lines += [f"- {fact}" for fact in self.facts]
        if self.deadline is not None:
            lines.append(f"Answer by {timestamp(self.deadline)} ({timestamp(self.deadline, 'R')}).")
        if self.default is not None:
            lines.append(f"If nobody answers (the deadline passes, or a moderator forces it): {self.default}")
        return "\n".join(lines)


def timestamp(moment: datetime, style: str = "f") -> str:
    """A Discord timestamp: every reader sees it in their own time zone (the console spells it out)."""
    return f"<t:{int(moment.timestamp())}:{style}>"


# A battle plan in a BT attack (BT-11, BT-32), as its decider reads it: the BT's (True), the attacked side's.
ATTACK_TITLES = {True: "your attack on a leader", False: "your leader under attack"}


def build_card(seen: PlayerView, prompt: Prompt, default: str | None, deadline: datetime | None) -> DecisionCard:
    """The card of `prompt` for its decider, whose view of the game is `seen`."""
    facts = FACTS.get(prompt.kind, _choices_only)(seen, prompt)
    if seen.own is not None and not any("spice" in fact.lower() for fact in facts):
        facts.append(f"Your spice: {seen.own.spice}.")
    # BT-11, BT-32: a battle plan in a BT leader attack or against a trap
    attack = details_of(prompt, BattlePlanDetails).attack if prompt.kind == PromptKind.BATTLE_PLAN else None
    title = ATTACK_TITLES[seen.viewer == Faction.BENE_TLEILAXU] if attack else decision_name(prompt.kind)
    rule = ("BT-32" if attack == "trap" else "BT-11") if attack else KIND_RULES[prompt.kind]
    return DecisionCard(title=title, rule=rule, facts=facts, default=default, deadline=deadline)


def _choices_only(seen: PlayerView, prompt: Prompt) -> list[str]:
    if not prompt.options:
        return []
    shown = ", ".join(option_name(o) for o in prompt.options[:25])
    more = f" and {len(prompt.options) - 25} more" if len(prompt.options) > 25 else ""
    return [f"Your choices: {shown}{more}."]
