"""The words of the any-time panel (engine/rules/anytime.py): what each kind of action is called, what its parts and
their values read as, and the panel's own text with the standing orders as they stand. Discord-free: the Discord
panel (bot/discord/anytime_panel.py) and any other front read the same words.

Built from the reader's own view and its own choices only, so the panel can say nothing its reader may not know.
"""

from __future__ import annotations

from engine.factions.special_karama import FREMEN_WORM, STOP_SHIPMENT
from engine.ids import Faction
from engine.model import BidOrder, SpecialKaramaOrder
from engine.names import card_name, counted, faction_name, faction_possessive, leader_name, what_bid_order_does
from engine.phases.revival import GRANT, REFUSE
from engine.rules.anytime import (
    ADVISORS,
    ASK,
    AUTO_PASS,
    DONE_AT_ONCE,
    FREE_TOKENS,
    LEADER,
    NEVER,
    PASS_WHEN_OUTBID,
    STANDING_ORDERS,
    STORM_ORDER,
    TO_POLAR_SINK,
    YES,
    AnytimeChoice,
    AnytimeKind,
)
from engine.rules.karama import DESCRIPTIONS, OWNER, Advantage, advantage_words
from engine.secrecy.views import PlayerView

TITLES: dict[AnytimeKind, str] = {
    AnytimeKind.KARAMA: "Karama: cancel another faction's advantage",
    AnytimeKind.SPECIAL_KARAMA: "Karama: your special power",
    AnytimeKind.KARAMA_TAX_BT: "Karama: tax the Bene Tleilaxu 10 spice",
    AnytimeKind.KARAMA_DESTROY_TRAP: "Karama: destroy a Bene Tleilaxu trap",
    AnytimeKind.HAJR: "Hajr: move once more",
    AnytimeKind.GHOLA: "Tleilaxu Ghola: revive from the tanks",
    AnytimeKind.TRUTHTRANCE: "Truthtrance: ask a yes/no question",
    AnytimeKind.BT_REVEAL: "Reveal a traitor",
    AnytimeKind.COEXISTENCE: "Co-exist, or stop",
    AnytimeKind.BRIBE: "Give a bribe",
    AnytimeKind.ALLY_SPICE: "Give spice to your ally",
    AnytimeKind.BID_ORDER: "Standing order: passing on cards",
    AnytimeKind.BID_LIMIT: "Standing order: bid up to a limit",
    AnytimeKind.OUTBID_ORDER: "Standing order: bids you cannot outbid",
    AnytimeKind.TRAITOR_ORDER: "Standing order: traitor calls",
    AnytimeKind.STORM_CARD_ORDER: "Standing order: storm cards",
    AnytimeKind.REVIVAL_ORDER: "Standing order: revival",
    AnytimeKind.ALLY_REVIVAL_ORDER: "Standing order: your allies' free revival",
    AnytimeKind.GUILD_TIMING_ORDER: "Standing order: when the Guild takes its turn",
    AnytimeKind.ADVISOR_ORDER: "Standing order: spiritual advisors",
    AnytimeKind.NEXUS_ORDER: "Standing order: the Nexus",
    AnytimeKind.SPICE_WIN_ORDER: "Standing order: declaring a spice win",
}

HELP: dict[AnytimeKind, str] = {
    AnytimeKind.KARAMA: "The card stays in your hand, secretly ready: the next time that faction uses the "
                        "advantage, the card is revealed and cancels it.",
    AnytimeKind.SPECIAL_KARAMA: "Your faction's once-per-game power, spending a Karama card.",
    AnytimeKind.KARAMA_TAX_BT: "The Bene Tleilaxu pay 10 spice (all they have if less) to the bank, at once.",
    AnytimeKind.KARAMA_DESTROY_TRAP: "An untriggered trap is shown and discarded with your card.",
    AnytimeKind.HAJR: "After the move you are deciding now, you move once more.",
    AnytimeKind.GHOLA: "One leader, or up to 5 tokens, from the tanks, free, on top of normal revival.",
    AnytimeKind.TRUTHTRANCE: "The faction you name must answer yes or no, truthfully, in public.",
    AnytimeKind.BT_REVEAL: "A leader you marked who won a territory still open to betrayal: unless a Karama "
                           "cancels the reveal, the leader and the tokens there go to the tanks and you control it. "
                           "Only such reveals are offered: any other would spend your secret for no effect.",
    AnytimeKind.COEXISTENCE: "All your tokens in a territory become co-existing advisors, or advisors become "
                             "fighters.",
    AnytimeKind.BRIBE: "The spice lies before their shield, usable by them from the end of the turn. The table "
                       "sees it; deals are yours to keep.",
    AnytimeKind.ALLY_SPICE: "Usable by your ally at once; only the two of you see how much.",
    AnytimeKind.BID_ORDER: "Pass on every card without being asked, or be asked for each bid.",
    AnytimeKind.BID_LIMIT: "Outbid the high bid by 1 whenever you are asked, up to your limit and your spice; "
                           "else pass.",
    AnytimeKind.OUTBID_ORDER: "Pass at once whenever the high bid is already at or above your own spice, so that "
                              "you cannot outbid it (an ally's spice is not counted: with an ally who would pay "
                              "part, choose \u201cask me\u201d). The table reads only your pass, as after a click; "
                              "a bid order (passing on cards, bid up to a limit) answers first. Or be asked each "
                              "time.",
    AnytimeKind.TRAITOR_ORDER: "Call a traitor by yourself whenever one of yours leads against you (and only then), "
                               "or be asked.",
    AnytimeKind.STORM_CARD_ORDER: "Never play Weather Control or Family Atomics: each storm-card window is answered "
                                  "\u201cno card\u201d for you as it opens (the table reads only that you answered, "
                                  "as after a click), or be asked each time.",
    AnytimeKind.REVIVAL_ORDER: "Revive your free tokens, at no cost, as each revival opens (the table reads your "
                               "revival, as after a click); when a leader or the Kwisatz Haderach could be revived "
                               "you are asked all the same. Or be asked each time.",
    AnytimeKind.ALLY_REVIVAL_ORDER: "Each turn an ally has tokens or leaders in the tanks: grant them free revival "
                                    "(up to 6 tokens and 2 leaders), or refuse it (they revive as usual and pay you), "
                                    "answered for you as the question opens (the table reads only that you "
                                    "answered, as after a click); or be asked each time.",
    AnytimeKind.GUILD_TIMING_ORDER: "Take your turn in your storm-order place: each \u201cnow or later\u201d question "
                                    "is answered for you as it opens (the table reads only your answer, as after a "
                                    "click), or be asked each time.",
    AnytimeKind.ADVISOR_ORDER: "Whenever another faction ships from off-planet: send a spiritual advisor to the Polar "
                               "Sink, or send none, answered for you as the question opens (the table reads only your "
                               "answer, as after a click); or be asked each time.",
    AnytimeKind.NEXUS_ORDER: "At each Nexus, make no offer, accept none and end your part as it opens (the table "
                             "reads that you are done, as after a click on \u201cDone\u201d; offers made to you go "
                             "unanswered and your alliance stays as it is), or be asked each time. Change it before a "
                             "Nexus you want to talk in.",
    AnytimeKind.SPICE_WIN_ORDER: "Declare a spice win at the end of every collection round in which you hold at "
                                 "least 35 spice, or never until you change this order.",
}

PART_NAMES = {
    "card": "Card", "advantage": "Advantage", "target": "Faction", "to": "To", "stronghold": "Stronghold",
    "leader": "Leader", "revive": "Revive", "territory": "Territory", "change": "Change", "order": "Order",
    "auto": "Traitor calls", "storm": "Storm cards", "revival": "Revival", "timing": "Your turn",
    "advisor": "Spiritual advisors", "ally_revival": "Your allies' revival", "nexus": "The Nexus",
    "outbid": "Bids you cannot outbid",
    "declare": "Spice win", "amount": "Spice", "max_bid": "Bid up to", "question": "Question",
}


def title(kind: AnytimeKind) -> str:
    return TITLES[kind]


def part_name(name: str) -> str:
    return PART_NAMES.get(name, name.replace("_", " ").capitalize())


# The standing orders of one setting besides "ask me": their part, that setting and its button's words.
ORDER_OR_ASK = {
    "outbid": (PASS_WHEN_OUTBID, "Pass for me"), "auto": (YES, "Always call when I can"),
    "storm": (NEVER, "Never play one"), "revival": (FREE_TOKENS, "Free tokens"),
    "timing": (STORM_ORDER, "In storm order"), "nexus": (DONE_AT_ONCE, "Done at once"),
}


def value_label(kind: AnytimeKind, part: str, value: str) -> str:
    """A value of a Pick as the player reads it."""
    if part == "card":
        return card_name(value)
    if part == "advantage":
        advantage = Advantage(value)
        return f"{faction_name(OWNER[advantage])}: {DESCRIPTIONS[advantage]}"
    if part in ("target", "to"):
        return faction_name(Faction(value))
    if part == "leader":
        return leader_name(value)
    if part == "revive":
        what, _, detail = value.partition(":")
        return leader_name(detail) if what == LEADER else counted(int(detail), "token")
    if part == "change":
        way, _, territory = value.partition(":")
        return f"{territory}: fighters become advisors" if way == ADVISORS else f"{territory}: advisors fight again"
    if part == "order":
        return {AUTO_PASS: "Pass on every card", ASK: "Ask me for each bid"}[value]
    if part in ORDER_OR_ASK:
        setting, label = ORDER_OR_ASK[part]
        return label if value == setting else "Ask me each time"
    if part in ("advisor", "ally_revival"):
        words = advisor_order_words(value) if part == "advisor" else ally_revival_order_words(value)
        return words[0].upper() + words[1:]
    if part == "declare":
        return "Declare at 35 spice" if value == YES else "Never declare"
    return value


SPANS = {"until_changed": "", "this_card": " (this card only)", "this_turn": " (this turn's auction only)"}


def bid_order_words(order: BidOrder | None) -> str:
    """A bidding order (A-6) as its owner reads it, with how long it lasts when it was given from a bid's card."""
    if order is None or not (order.auto_pass or order.max_bid):
        return "ask me for each bid"
    return what_bid_order_does(order) + SPANS[order.lasts]


ADVISOR_ORDER_WORDS = {TO_POLAR_SINK: "always to the Polar Sink", NEVER: "never send one", ASK: "ask me each time"}


def advisor_order_words(order: str) -> str:
    """The Bene Gesserit's spiritual advisor order as they read it."""
    return ADVISOR_ORDER_WORDS[order]


ALLY_REVIVAL_ORDER_WORDS = {GRANT: "always grant it", REFUSE: "never grant it", ASK: "ask me each time"}


def ally_revival_order_words(order: str) -> str:
    """The BT's standing order for their allies' free revival (BT-60) as they read it."""
    return ALLY_REVIVAL_ORDER_WORDS[order]


def orders_now(seen: PlayerView) -> list[str]:
    """The reader's standing orders as they stand, and the Karama cards they hold ready (A-14)."""
    own = seen.own
    if own is None:
        return []
    lines = [f"Storm cards: {'never play one' if own.never_storm_cards else 'ask me each time'}.",
             f"The Nexus: {'done at once' if own.nexus_done_at_once else 'ask me each time'}.",
             f"Bidding: {bid_order_words(own.bid_order)}.",
             f"Bids you cannot outbid: {'pass for me' if own.pass_when_outbid else 'ask me each time'}."]
    if own.revive_free_tokens is not None:
        lines.append(f"Revival: {'free tokens' if own.revive_free_tokens else 'ask me each time'}.")
    if own.guild_timing_in_storm_order is not None:
        lines.append(f"Your turn: {'in storm order' if own.guild_timing_in_storm_order else 'ask me each time'}.")
    if own.advisor_order is not None:
        lines.append(f"Spiritual advisors: {advisor_order_words(own.advisor_order)}.")
    if seen.viewer != Faction.BENE_TLEILAXU:  # BT-1: no traitor cards to call
        lines.append(f"Traitor calls: {'always call when I can' if own.traitor_order else 'ask me each time'}.")
    if own.spice_win_order is not None:
        lines.append(f"Spice win: {'declare at 35 spice' if own.spice_win_order else 'never declare'}.")
    if own.ally_revival_order is not None:
        lines.append(f"Your allies' free revival: {ally_revival_order_words(own.ally_revival_order)}.")
    for order in own.karama_orders:
        advantage = Advantage(order.advantage)
        lines.append(f"Karama: cancel the next time {advantage_words(advantage)}.")
    for special in own.special_karama_orders:
        lines.append(f"Karama: your special power, when its moment comes: {special_order_words(special)}.")
    return lines


def panel_text(seen: PlayerView, choices: list[AnytimeChoice]) -> str:
    """The panel's words: what the reader may do now, then the standing orders. Only the reader sees it."""
    acts = [c for c in choices if c.kind not in STANDING_ORDERS]
    lines = ["**What you may do now** (only you see this; your decisions come as their own messages)"]
    lines += [f"- {title(c.kind)} (rule {c.rule})" for c in acts] or ["- No card or power of yours may be played "
                                                                       "right now."]
    lines.append("**Your standing orders** (secret; change them any time)")
    lines += [f"- {line}" for line in orders_now(seen)]
    lines.append("Choose below.")
    return "\n".join(lines)


# What /me orders offers to change: the standing orders, and readying a Karama (A-14's secret standing order).
ORDER_KINDS = (*STANDING_ORDERS, AnytimeKind.KARAMA, AnytimeKind.SPECIAL_KARAMA)


def orders_text(seen: PlayerView, choices: list[AnytimeChoice]) -> str:
    """The reader's standing orders, and which of them may be changed now. Only the reader sees it."""
    lines = ["**Your standing orders** (secret: only you see them). Each answers its decisions for you at once; "
             "the table reads only the answer, as after a click."]
    lines += [f"- {line}" for line in orders_now(seen)]
    lines.append("Choose an order to change below." if choices else "No order may be changed right now.")
    return "\n".join(lines)


def choice_text(choice: AnytimeChoice) -> str:
    """The heading of one action's form: its name, its rule and what it does."""
    return f"**{title(choice.kind)}** (rule {choice.rule}; `/rules {choice.rule}`)\n{HELP[choice.kind]}"


def special_order_words(order: SpecialKaramaOrder) -> str:
    """A readied special Karama power (A-14, engine/factions/special_karama.py) as its owner reads it."""
    if order.power == FREMEN_WORM:
        return f"Shai-Hulud in {order.territory} at the end of the next spice blow (A-14)"
    if order.power == STOP_SHIPMENT and order.target is not None:
        return (f"{faction_possessive(order.target)} next shipment from off-planet stopped, not made and not paid "
                "(A-14)")
    return order.power.replace("_", " ")  # a power readied by a later rule, told by its name
