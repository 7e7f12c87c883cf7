"""A player's action in words, for the decision card's default and for the card's closing line ("You
answered: ship 5 tokens from your reserves to Arrakeen."). Discord-free.

The words can name the decider's secrets (a battle plan, a traitor): they are written only into the decider's
own card.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from bot.app.anytime_words import advisor_order_words, ally_revival_order_words, bid_order_words
from bot.app.words import where
from engine.actions import (
    AcceptAlliance,
    AnswerPrescience,
    AnswerRevealKarama,
    AnswerRevealWindow,
    AnswerTruthtrance,
    AskPrescience,
    Bid,
    BreakAlliance,
    BtAllyRevive,
    CallTraitor,
    CaptureLeader,
    ChooseBattle,
    ChooseBtAttack,
    ChooseBtImpairment,
    ChooseTraitor,
    DialStorm,
    EndNexus,
    GrantAllyRevival,
    GuildTiming,
    LayTraps,
    MarkBtTraitor,
    Move,
    PassBid,
    PlaceStartingTokens,
    PlaceWorm,
    PlayStormCards,
    PredictWinner,
    ProposeAlliance,
    ReturnCards,
    Revive,
    RideWorm,
    SendAdvisor,
    SetAdvisorOrder,
    SetAllyRevivalOrder,
    SetBidOrder,
    SetCoexistence,
    SetGuildTimingOrder,
    SetNexusOrder,
    SetOutbidOrder,
    SetRevivalOrder,
    SetStormCardOrder,
    SetTraitorOrder,
    Ship,
    ShipToReserves,
    SkipMove,
    SkipShipment,
    SubmitBattlePlan,
    TrapsAndGifts,
    UseVoice,
)
from engine.flow import details_of
from engine.ids import Faction
from engine.model import BidOrder, Prompt, PromptKind
from engine.names import counted, faction_does, faction_name, option_name, option_names
from engine.phases.battle import BattlePlanDetails


def _where(location: str | None) -> str:
    return where(location) if location is not None else "nowhere"


def revival_words(count: int, leaders: list[str], kwisatz_haderach: bool = False) -> str:
    """"revive 2 tokens", "revive Bashar", "revive 1 token and Bashar"; "revive nothing" for nothing at all."""
    parts = (([counted(count, "token")] if count else []) + leaders
             + (["the Kwisatz Haderach"] if kwisatz_haderach else []))
    return "revive " + (" and ".join(parts) or "nothing")


def _plan(plan: SubmitBattlePlan) -> str:
    who = option_name(plan.leader) if plan.leader else (f"{option_name(plan.cheap_hero)} (cheap hero)"
                                                        if plan.cheap_hero else "no leader")
    parts = [who + (" with the Kwisatz Haderach" if plan.kwisatz_haderach else ""), f"dial {plan.dial}"]
    if plan.spice:
        parts.append(f"{plan.spice} spice backing the dial")
    parts.append(f"weapon {option_name(plan.weapon)}" if plan.weapon else "no weapon")
    parts.append(f"defense {option_name(plan.defense)}" if plan.defense else "no defense")
    if plan.impair:
        parts.append(_impairing(plan.impair))
    return "the battle plan: " + ", ".join(parts)


def _impairing(impair: str) -> str:
    return "impairing: " + ("no shipping" if impair == "no_shipping" else "no moving") + " next turn"


def _attack_plan(plan: SubmitBattlePlan) -> str:
    """A plan in a BT attack (BT-11, BT-12, BT-32): no dial; the BT fill the weapon slot, the attacked side names
    the leader attacked and a defense."""
    parts = [f"weapon {option_name(plan.weapon)}" if plan.weapon else "no weapon"] if plan.faction == \
        Faction.BENE_TLEILAXU else [option_name(plan.leader)] if plan.leader else []
    parts.append(f"defense {option_name(plan.defense)}" if plan.defense else "no defense")
    if plan.impair:
        parts.append(_impairing(plan.impair))
    what = "the attack" if plan.faction == Faction.BENE_TLEILAXU else "against the attack"
    return f"{what}: " + ", ".join(parts)


def _storm_cards(action: PlayStormCards) -> str:
    played = []
    if action.weather_control is not None:
        played.append(f"Weather Control (the storm moves {counted(action.weather_control, 'sector')})")
    if action.family_atomics:
        played.append("Family Atomics")
    return "play " + " and ".join(played) if played else "play no storm card"


def _traps_and_gifts(traps: dict[str, str], gifts: dict[str, Faction]) -> str:
    parts = [f"a trap of {option_name(card)} on {stronghold}" for stronghold, card in traps.items()]
    parts += [f"give {option_name(card)} to the {faction_name(to)}" for card, to in gifts.items()]
    return "; ".join(parts) or "no trap and no gift"


def _traps(traps: dict[str, str]) -> str:
    """The setup's traps (BT-5): no gift is possible then."""
    return "; ".join(f"a trap of {option_name(card)} on {stronghold}" for stronghold, card in traps.items()) or \
        "no trap"


WORDS: dict[type, Callable[[Any], str]] = {
    ChooseTraitor: lambda a: f"keep {option_name(a.leader)} as your traitor",
    PredictWinner: lambda a: f"predict that {faction_does(a.predicted, 'win')} on turn {a.turn}",
    LayTraps: lambda a: _traps(a.traps),
    PlaceStartingTokens: lambda a: "place " + ", ".join(f"{counted(n, 'token')} in {_where(loc)}"
                                                       for loc, n in a.placement.items()),
    DialStorm: lambda a: f"dial {a.value}",
    ProposeAlliance: lambda a: f"propose an alliance to the {faction_name(a.partner)}",
    AcceptAlliance: lambda a: f"accept the alliance of the {faction_name(a.partner)}",
    EndNexus: lambda a: "done talking: no alliance change",
    BreakAlliance: lambda a: "break your alliance",
    RideWorm: lambda a: f"ride Shai-Hulud to {_where(a.to_location)}" if a.to_location else "stay: no ride",
    PlaceWorm: lambda a: f"place Shai-Hulud in {a.territory}" if a.territory else "place Shai-Hulud nowhere",
    Bid: lambda a: f"bid {a.amount}" + (f" ({a.ally_pays} paid by your ally)" if a.ally_pays else ""),
    PassBid: lambda a: "pass",
    Revive: lambda a: revival_words(a.tokens, [option_name(a.leader)] if a.leader else [], a.kwisatz_haderach),
    BtAllyRevive: lambda a: revival_words(a.tokens, [option_names(a.leaders)] if a.leaders else []),
    GrantAllyRevival: lambda a: ("grant your ally free revival this turn" if a.grant
                                 else "refuse: your ally revives as usual and pays you"),
    Ship: lambda a: f"ship {counted(a.tokens, 'token')} from "
                    f"{_where(a.from_location) if a.from_location else 'your reserves'} to {_where(a.to_location)}",
    ShipToReserves: lambda a: f"ship {counted(a.tokens, 'token')} from {_where(a.from_location)} back to your reserves",
    SkipShipment: lambda a: "ship nothing and move nothing this turn" if a.no_move else "ship nothing",
    Move: lambda a: f"move {counted(a.tokens, 'token')} from {_where(a.from_location)} to {_where(a.to_location)}",
    SkipMove: lambda a: "move nothing",
    SetCoexistence: lambda a: (f"your tokens in {a.territory} become co-existing advisors" if a.advisors
                               else f"your advisors in {a.territory} become fighters"),
    SendAdvisor: lambda a: ("send no advisor" if not a.accept else "send the advisor with the shipment"
                            if a.with_shipment else "send the advisor to the Polar Sink"),
    GuildTiming: lambda a: "take the Guild's turn now" if a.now else "wait: take the Guild's turn later",
    ChooseBattle: lambda a: f"fight the {faction_name(a.opponent)} in {a.territory}",
    AskPrescience: lambda a: f"ask for their {a.element}" if a.element else "ask nothing",
    AnswerPrescience: lambda a: f"answer: {option_name(a.answer)}",
    UseVoice: lambda a: (f"Voice: they must {'play' if a.command == 'play' else 'not play'} "
                         f"{(a.category or '').replace('_', ' ')}") if a.command else "no Voice",
    SubmitBattlePlan: _plan,
    CallTraitor: lambda a: "call the traitor" if a.call else "no traitor call",
    CaptureLeader: lambda a: {"keep": "keep the captured leader", "kill": "kill the captured leader for 2 spice",
                              "release": "let the captured leader go"}[a.choice],
    ChooseBtAttack: lambda a: f"attack {option_name(a.leader)}" if a.leader else "attack no leader",
    ChooseBtImpairment: lambda a: "impair them: " + ("no shipping" if a.impair == "no_shipping" else "no moving")
                                  + " next turn",
    AnswerTruthtrance: lambda a: f"answer {a.answer}",
    AnswerRevealWindow: lambda a: f"reveal {option_name(a.leader)}" if a.leader else "let the moment pass",
    AnswerRevealKarama: lambda a: "play Karama to cancel the reveal" if a.cancel else "let the reveal stand",
    MarkBtTraitor: lambda a: f"mark {option_name(a.leader)} as your traitor" if a.leader else "mark no one",
    TrapsAndGifts: lambda a: _traps_and_gifts(a.traps, a.gifts),
    PlayStormCards: _storm_cards,
    SetStormCardOrder: lambda a: ("a standing order: never play a storm card" if a.never
                                  else "a standing order: ask me about storm cards"),
    SetOutbidOrder: lambda a: ("a standing order: pass on bids you cannot outbid" if a.pass_when_outbid
                               else "a standing order: ask me about bids I cannot outbid"),
    SetRevivalOrder: lambda a: ("a standing order: revive your free tokens" if a.free_tokens
                                else "a standing order: ask me about revival"),
    SetGuildTimingOrder: lambda a: ("a standing order: take your turn in storm order" if a.storm_order
                                    else "a standing order: ask me when to take your turn"),
    SetNexusOrder: lambda a: ("a standing order: end your part in each Nexus at once" if a.done_at_once
                              else "a standing order: ask me at each Nexus"),
    SetAdvisorOrder: lambda a: f"a standing order for spiritual advisors: {advisor_order_words(a.order)}",
    SetAllyRevivalOrder: lambda a: f"a standing order for your allies' revival: {ally_revival_order_words(a.order)}",
    SetTraitorOrder: lambda a: ("a standing order: always call a traitor when you can" if a.auto
                                else "a standing order: ask me about traitors"),
    SetBidOrder: lambda a: "a standing bid order: " + bid_order_words(BidOrder(auto_pass=a.auto_pass,
                                                                               max_bid=a.max_bid, lasts=a.lasts)),
    ReturnCards: lambda a: f"give back {option_names(a.cards)}",
}


# The actions that answer each kind of decision (a closed card says "You answered" only for one of these).
ANSWERS: dict[PromptKind, tuple[type, ...]] = {
    PromptKind.TRAITOR_PICK: (ChooseTraitor,),
    PromptKind.BG_PREDICTION: (PredictWinner,),
    PromptKind.BT_TRAPS: (LayTraps,),
    PromptKind.STARTING_PLACEMENT: (PlaceStartingTokens,),
    PromptKind.STORM_DIAL: (DialStorm,),
    PromptKind.NEXUS: (ProposeAlliance, AcceptAlliance, BreakAlliance, EndNexus, SetNexusOrder),
    PromptKind.WORM_RIDE: (RideWorm,),
    PromptKind.BID: (Bid, PassBid, SetBidOrder, SetOutbidOrder),
    PromptKind.REVIVAL: (Revive, BtAllyRevive, SetRevivalOrder),
    PromptKind.SHIPMENT: (Ship, ShipToReserves, SkipShipment),
    PromptKind.MOVEMENT: (Move, SkipMove, SetCoexistence),
    PromptKind.SPIRITUAL_ADVISOR: (SendAdvisor, SetAdvisorOrder),
    PromptKind.BATTLE_CHOICE: (ChooseBattle,),
    PromptKind.PRESCIENCE: (AskPrescience,),
    PromptKind.PRESCIENCE_ANSWER: (AnswerPrescience,),
    PromptKind.VOICE: (UseVoice,),
    PromptKind.BATTLE_PLAN: (SubmitBattlePlan,),
    PromptKind.TRAITOR_CALL: (CallTraitor, SetTraitorOrder),
    PromptKind.STORM_CARDS: (PlayStormCards, SetStormCardOrder),
    PromptKind.TRUTHTRANCE: (AnswerTruthtrance,),
    PromptKind.BT_ATTACK: (ChooseBtAttack,),
    PromptKind.BT_MARK: (MarkBtTraitor,),
    PromptKind.BT_REVEAL_WINDOW: (AnswerRevealWindow,),
    PromptKind.BT_REVEAL_KARAMA: (AnswerRevealKarama,),
    PromptKind.BT_TRAPS_AND_GIFTS: (TrapsAndGifts,),
    PromptKind.WORM_PLACEMENT: (PlaceWorm,),
    PromptKind.GUILD_TIMING: (GuildTiming, SetGuildTimingOrder),
    PromptKind.HAND_SWAP: (ReturnCards,),
    PromptKind.LEADER_CAPTURE: (CaptureLeader,),
    PromptKind.BT_IMPAIRMENT: (ChooseBtImpairment,),
    PromptKind.BT_ALLY_REVIVAL: (GrantAllyRevival, SetAllyRevivalOrder),
}


def answers(action: Any, kind: PromptKind) -> bool:
    return isinstance(action, ANSWERS.get(kind, ()))


def describe(action: Any, prompt: Prompt | None = None) -> str:
    """The action as its decider would say it, lower case, no full stop; `prompt`, the decision it answers, tells
    a plan in a BT attack from a battle plan."""
    if (isinstance(action, SubmitBattlePlan) and prompt is not None and prompt.kind == PromptKind.BATTLE_PLAN
            and details_of(prompt, BattlePlanDetails).attack):
        return _attack_plan(action)
    words = WORDS.get(type(action))
    if words is not None:
        return words(action)
    fields = action.model_dump(exclude={"type", "faction"}, exclude_defaults=True)
    return str(getattr(action, "type", "answer")).replace("_", " ") + "".join(
        f", {name.replace('_', ' ')} {value}" for name, value in fields.items())
