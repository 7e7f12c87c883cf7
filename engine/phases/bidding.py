"""The bidding round (1979 rules: Bidding; A-3, A-5, A-6, A-8; R-1, R-21).

Steps: "" (CHOAM charity, cards dealt into the auction) -> "before_bidding" (R-21: where the BT will lay
traps and give cards, BT-40 and R-11, engine/factions/bt_bidding.py) -> "auction" (one card at a time, bids go
round in storm order) -> the phase ends. Bidding is open: each bid and pass is a public event and the BID
prompt is public; which card is up stays secret (the Atreides see it, then only the buyer).

A faction's secret standing orders (A-6) answer its bid as soon as it is asked, as a click would: the bid order
(`SetBidOrder`: pass on every card, or outbid by 1 up to a limit) and, where no bid order is given, "pass when I
cannot outbid" (`SetOutbidOrder`: the high bid is at or beyond the faction's own spice). The decision is still
opened, and the table reads the same pass or bid; only the owner reads that the order made it.
"""

from __future__ import annotations

from engine.actions import Bid, PassBid, SetBidOrder, SetOutbidOrder
from engine.errors import RuleViolation, ViolationCode
from engine.events import BY_STANDING_ORDER, EventLog, EventType
from engine.factions.bt_bidding import open_traps_and_gifts
from engine.flow import Details, default_for, details_for, handles, open_prompt, runs_phase, sampler_for, take_prompt
from engine.ids import Faction
from engine.model import BiddingState, BidOrder, GameState, Phase, Prompt, PromptKind, required
from engine.names import card_name, counted, faction_does, faction_name, what_bid_order_does
from engine.phases.turn import end_phase
from engine.rng import Rng
from engine.rules.economy import bank_pays, pay
from engine.rules.hands import hand_full
from engine.rules.karama import Advantage, karama_cancels
from engine.rules.order import storm_order

RULE = "1979 rules: Bidding"
CHARITY_LEVEL = 2  # a faction with 0 or 1 spice is brought up to 2
BEFORE_BIDDING = "before_bidding"
AUCTION = "auction"


# --- queries ---------------------------------------------------------------------------------


@details_for(PromptKind.BID)
class BidDetails(Details):
    """The bidder's own limits (their spice is theirs to see) and the auction's public state."""

    min_bid: int
    max_bid: int
    high_bid: int
    high_bidder: Faction | None
    card_number: int
    cards: int
    allies: list[Faction]


def draw_treachery_card(state: GameState, log: EventLog) -> str | None:
    """The top Treachery card; an empty deck is first rebuilt from the shuffled discard pile.
    None when both are empty."""
    if not state.treachery_deck and state.treachery_discard:
        state.treachery_deck = list(state.treachery_discard)
        state.treachery_discard = []
        state.rng.shuffle(state.treachery_deck)
        log.public(EventType.TREACHERY_RESHUFFLED,
                   "The Treachery deck ran out: the discard pile is shuffled into a new deck.",
                   cards=len(state.treachery_deck))
    if not state.treachery_deck:
        return None
    return state.treachery_deck.pop(0)


def _ordinal_card(b: BiddingState) -> str:
    return f"card {b.card_number} of {b.dealt}"


# --- the step runner -------------------------------------------------------------------------


@runs_phase(Phase.BIDDING)
def run_bidding(state: GameState, log: EventLog) -> bool:
    if state.step == "":
        if state.bidding is not None and state.bidding.cards:
            # Bidding restarted over an unfinished auction (an admin jump): its cards go back on top first.
            state.treachery_deck = state.bidding.cards + state.treachery_deck
        state.bidding = BiddingState(order=storm_order(state))
        if state.setup.options.choam_charity:
            _choam_charity(state, log)
        _deal_auction(state, log)
        state.step = BEFORE_BIDDING
        return True
    if state.step == BEFORE_BIDDING:
        # the cards are counted and dealt; now the BT may lay traps and give cards (BT-40).
        state.step = AUCTION
        open_traps_and_gifts(state)  # engine/factions/bt_bidding.py; the auction waits for the BT's answer
        return True
    if state.step != AUCTION:
        return False
    b = state.bidding
    if b is None or (not b.card_open and not b.cards):
        _finish(state, log)
        return True
    if not b.card_open:
        _open_card(state, log)
        return True
    faction = b.to_bid
    assert faction is not None  # a card is open, so somebody is to bid
    _open_bid_prompt(state, faction)
    _answer_by_order(state, faction, log)  # the decision is opened all the same: the game runs as with a click
    return True


def _choam_charity(state: GameState, log: EventLog) -> None:
    """A-3: each faction with 0 or 1 spice receives spice from the bank up to 2 (public: the rule is)."""
    for faction, fs in state.factions.items():
        if fs.spice < CHARITY_LEVEL:
            amount = CHARITY_LEVEL - fs.spice
            bank_pays(state, faction, amount)
            log.public(EventType.CHOAM_CHARITY,
                       f"CHOAM charity: {faction_does(faction, 'receive')} {amount} spice (A-3).",
                       faction=faction.value, amount=amount)


def _deal_auction(state: GameState, log: EventLog) -> None:
    """A-5: one card, face down, per faction whose hand is not full at the start of bidding."""
    b = state.current_bidding()
    eligible = [f for f in b.order if not hand_full(state, f)]
    for _ in eligible:
        card = draw_treachery_card(state, log)
        if card is None:
            break
        b.cards.append(card)
    b.dealt = len(b.cards)
    if not eligible:
        message = "Every hand is full: no cards are up for auction this turn (A-5)."
    elif b.dealt < len(eligible):
        message = (f"{b.dealt} Treachery cards are up for auction: the deck and discard pile ran out before one "
                   f"could be dealt for each of the {len(eligible)} factions whose hand is not full (A-5).")
    else:
        message = (f"{b.dealt} Treachery card{'s are' if b.dealt != 1 else ' is'} up for auction, one for each "
                   "faction whose hand is not full: " + ", ".join(faction_name(f) for f in eligible) + " (A-5).")
    log.public(EventType.AUCTION_DEALT, message, cards=b.dealt, eligible=[f.value for f in eligible])


def bidding_round(order: list[Faction], opener: Faction, eligible: list[Faction]) -> list[Faction]:
    """The order bids go round for one card: from the opener in storm order, the BT last of every round
    (R-1: they have no dot) — or first, when it is their turn to open."""
    dots = [f for f in order if f != Faction.BENE_TLEILAXU]
    bt = [Faction.BENE_TLEILAXU] if Faction.BENE_TLEILAXU in order else []
    if opener == Faction.BENE_TLEILAXU:
        cycle = bt + dots
    else:
        start = dots.index(opener)
        cycle = dots[start:] + dots[:start] + bt
    return [f for f in cycle if f in eligible]


def _open_card(state: GameState, log: EventLog) -> None:
    """The next card comes up; its opener is the next eligible faction after the last card's opener."""
    b = state.current_bidding()
    bidders = [f for f in b.order if not hand_full(state, f)]
    if not bidders:
        _return_to_deck(state, log, f"No faction can bid any more (every hand is full): the {len(b.cards)} "
                        "unsold card(s) go back on top of the Treachery deck (A-5).")
        return
    if b.opener is None:
        opener = bidders[0]  # card 1: the first eligible faction in storm order
    else:
        start = b.order.index(b.opener)
        after = b.order[start + 1:] + b.order[:start + 1]  # storm order from the faction after the last opener
        opener = next(f for f in after if f in bidders)
    b.card_number += 1
    b.card_open = True
    b.bidders = bidding_round(b.order, opener, bidders)
    b.opener = opener
    b.to_bid = opener
    b.passed = []
    b.high_bid, b.high_bidder, b.high_ally, b.high_ally_pays = 0, None, None, 0
    log.public(EventType.CARD_UP,
               f"Card {b.card_number} of {b.dealt} is up for auction; {faction_does(opener, 'open')} the "
               "bidding.", card_number=b.card_number, cards=b.dealt, opener=opener.value,
               bidders=[f.value for f in bidders])
    if state.in_game(Faction.ATREIDES) and not karama_cancels(state, Advantage.SEE_AUCTION_CARDS, log):
        card = b.cards[0]
        log.private(EventType.AUCTION_CARD_SEEN, Faction.ATREIDES,
                    f"Prescience: card {b.card_number} up for auction is {card_name(card)}.",
                    card_number=b.card_number, card=card)


def _has_bid_order(order: BidOrder) -> bool:
    return order.auto_pass or order.max_bid is not None


def _cannot_outbid(state: GameState, faction: Faction) -> bool:
    """Even the smallest raise, the high bid + 1, is beyond the faction's own spice (an ally's share, A-8, is not
    counted: it is the ally's secret until offered)."""
    return state.current_bidding().high_bid >= state.faction(faction).spice


def _order_answers(state: GameState, faction: Faction) -> bool:
    """A-6: whether a standing order answers the faction's bid now: a bid order always, the order to pass when
    outbid only when the faction cannot outbid."""
    fs = state.faction(faction)
    return _has_bid_order(fs.bid_order) or (fs.pass_when_outbid and _cannot_outbid(state, faction))


def _answer_by_order(state: GameState, faction: Faction, log: EventLog) -> None:
    """The faction's open bid decision, answered by its standing order if one answers it now."""
    if state.prompt_of(faction, PromptKind.BID) is None or not _order_answers(state, faction):
        return
    take_prompt(state, faction, PromptKind.BID, RULE)
    _apply_standing_order(state, faction, log)


def _apply_standing_order(state: GameState, faction: Faction, log: EventLog) -> None:
    """A-6: auto-pass, or outbid the high bid by 1 up to the order's limit (and the spice in hand); without a bid
    order, the order to pass when outbid passes. The table reads the bid or the pass a click would have made; only
    the owner reads that the order made it."""
    b = state.current_bidding()
    order = state.faction(faction).bid_order
    wanted = b.high_bid + 1
    if not order.auto_pass and order.max_bid is not None and wanted <= min(order.max_bid,
                                                                            state.faction(faction).spice):
        log.private(EventType.BID_BY_ORDER, faction, f"{BY_STANDING_ORDER}, you bid {wanted} spice for "
                    f"{_ordinal_card(b)}.", card_number=b.card_number, amount=wanted)
        _record_bid(state, faction, wanted, None, 0, log)
    else:
        why = "" if _has_bid_order(order) else (f": you cannot outbid {b.high_bid}" if b.high_bid
                                                else ": you have no spice to open the bidding")
        log.private(EventType.BID_BY_ORDER, faction, f"{BY_STANDING_ORDER}, you pass on {_ordinal_card(b)}{why}.",
                    card_number=b.card_number, amount=None)
        _record_pass(state, faction, log)
    _next_turn(state, log)


def _orders_lapse(state: GameState, span: str) -> None:
    """Orders given for the card just sold or returned ("this_card"), or for this turn's auction once it ends
    ("this_turn", with every "this_card" one), lapse: their owners are asked again (A-6)."""
    spans = ("this_card",) if span == "this_card" else ("this_card", "this_turn")
    for fs in state.factions.values():
        if fs.bid_order.lasts in spans:
            fs.bid_order = BidOrder()


def _open_bid_prompt(state: GameState, faction: Faction) -> None:
    b = state.current_bidding()
    # Public prompt (bidding is open); the detail is shown to the bidder only. max_bid is the bidder's own
    # spice: an ally's share is offered through Bid.ally_pays, so the ally's spice stays hidden.
    open_prompt(
        state, PromptKind.BID, faction, secret=False, options=["pass"],
        min_bid=b.high_bid + 1, max_bid=state.faction(faction).spice,
        high_bid=b.high_bid, high_bidder=b.high_bidder.value if b.high_bidder else None,
        card_number=b.card_number, cards=b.dealt, allies=[f.value for f in state.ally_of(faction)],
    )


# --- bids and passes -------------------------------------------------------------------------


def _record_bid(state: GameState, faction: Faction, amount: int, ally: Faction | None, ally_pays: int,
                log: EventLog) -> None:
    b = state.current_bidding()
    b.high_bid, b.high_bidder = amount, faction
    b.high_ally, b.high_ally_pays = (ally, ally_pays) if ally_pays else (None, 0)
    if not state.setup.options.pass_is_final:
        b.passed = []  # without A-6 `pass_is_final`, everyone else must pass again after a new bid
    support = f" ({faction_does(ally, 'pay')} {ally_pays} of it, A-8)" if ally_pays and ally is not None else ""
    log.public(EventType.BID_MADE, f"{faction_does(faction, 'bid', start=True)}"
                           f" {amount} spice for {_ordinal_card(b)}{support}.",
               faction=faction.value, amount=amount, card_number=b.card_number,
               ally=ally.value if ally_pays and ally is not None else None, ally_pays=ally_pays)


def _record_pass(state: GameState, faction: Faction, log: EventLog) -> None:
    b = state.current_bidding()
    b.passed.append(faction)
    log.public(EventType.BID_PASSED, f"{faction_does(faction, 'pass', start=True)}"
                             f" on {_ordinal_card(b)}.", faction=faction.value,
               card_number=b.card_number)


def _next_turn(state: GameState, log: EventLog) -> None:
    """The next bidder in storm order who is not the high bidder and has not passed; else the card is
    sold, or (nobody bid) it and the rest go back on the deck."""
    b = state.current_bidding()
    count = len(b.bidders)
    start = b.bidders.index(required(b.to_bid, "a bidder whose turn it is"))
    for k in range(1, count + 1):
        candidate = b.bidders[(start + k) % count]
        if candidate != b.high_bidder and candidate not in b.passed:
            b.to_bid = candidate
            return
    b.to_bid = None
    if b.high_bidder is None:
        _return_to_deck(state, log, f"Every bidder passed on card {b.card_number}: it and the "
                        f"{counted(len(b.cards) - 1, 'card')} after it go back on top of the Treachery deck, and "
                        "bidding ends for this turn (A-5).")
    else:
        _sell(state, log)


def _sell(state: GameState, log: EventLog) -> None:
    """The high bidder pays (to the Emperor unless the Emperor buys, or Karama cancels it) and takes the card."""
    b = state.current_bidding()
    buyer, price = required(b.high_bidder, "a high bidder on the card sold"), b.high_bid
    card = b.cards.pop(0)
    payers = [(buyer, price - b.high_ally_pays)]
    if b.high_ally_pays:
        payers.append((required(b.high_ally, "the ally paying part of the bid"), b.high_ally_pays))
    emperor = Faction.EMPEROR
    # The Emperor is paid for cards others buy; never by himself: his share of an ally's bid goes to the bank.
    would_pay_emperor = state.in_game(emperor) and buyer != emperor and any(p != emperor for p, _ in payers)
    to_emperor = would_pay_emperor and not karama_cancels(state, Advantage.CARD_PAYMENTS, log)
    paid = 0
    for payer, owed in payers:
        # Spice may have left the payer since the bid (a bribe, an admin correction): pay what is there.
        amount = min(owed, state.faction(payer).spice)
        to = emperor if to_emperor and payer != emperor else None
        if amount:
            pay(state, payer, amount, to, RULE, "The card")
        paid += amount
    state.faction(buyer).hand.append(card)
    receiver = "the Emperor" if to_emperor else "the bank"
    own_share = sum(owed for payer, owed in payers if payer == emperor) if to_emperor else 0  # to the bank
    # Short of the bid, the payers pay all they have: how much that was stays behind the shields (the buyer reads
    # it; the receiver sees its own spice grow), so the table learns no faction's spice from it.
    short = paid < price
    log.private(EventType.CARD_BOUGHT, buyer, f"You bought card {b.card_number}: {card_name(card)}."
                + (f" You paid {paid} spice of your bid of {price}: all you had." if short else ""),
                card_number=b.card_number, card=card)
    log.public(EventType.CARD_SOLD,
               f"{faction_does(buyer, 'buy', start=True)} {_ordinal_card(b)}, paid to {receiver}: their "
               f"bid of {price} spice was more than they had left, and they pay what they have." if short else
               f"{faction_does(buyer, 'buy', start=True)} {_ordinal_card(b)} for {price} spice, paid to {receiver}"
               + (f", but for the Emperor's own {own_share}, paid to the bank (A-29)." if own_share else "."),
               faction=buyer.value, card_number=b.card_number, price=price,
               paid_to=emperor.value if to_emperor else "bank", **({"short": True} if short else {}))
    if buyer == Faction.HARKONNEN:
        _harkonnen_extra_card(state, log)
    b.card_open = False
    b.to_bid = None
    b.passed = []
    b.high_bid, b.high_bidder, b.high_ally, b.high_ally_pays = 0, None, None, 0
    _orders_lapse(state, "this_card")


def _harkonnen_extra_card(state: GameState, log: EventLog) -> None:
    """1979 rules: Harkonnen draw a free extra card with each card bought, if under their limit of 8."""
    harkonnen = Faction.HARKONNEN
    if hand_full(state, harkonnen) or not (state.treachery_deck or state.treachery_discard):
        return
    if karama_cancels(state, Advantage.EXTRA_CARD, log):
        return
    card = draw_treachery_card(state, log)
    if card is None:  # the Karama card itself may have been the only card left to reshuffle
        return
    state.faction(harkonnen).hand.append(card)
    log.private(EventType.EXTRA_CARD_DRAWN, harkonnen, f"Your free extra card: {card_name(card)}.", card=card)
    log.public(EventType.EXTRA_CARD_DRAWN, "The Harkonnen draw a free extra Treachery card.", faction=harkonnen.value)


def _return_to_deck(state: GameState, log: EventLog, message: str) -> None:
    """A-5: the unsold cards go back on top of the deck in their order; bidding ends for the turn."""
    b = state.current_bidding()
    state.treachery_deck = b.cards + state.treachery_deck
    log.public(EventType.AUCTION_RETURNED, message, cards=len(b.cards))
    b.cards = []
    b.card_open = False
    b.to_bid = None
    _orders_lapse(state, "this_card")


def _finish(state: GameState, log: EventLog) -> None:
    state.bidding = None
    _orders_lapse(state, "this_turn")
    log.public(EventType.BIDDING_OVER, "Bidding is over.")
    end_phase(state, log)


# --- handlers --------------------------------------------------------------------------------


@handles(Bid)
def bid(state: GameState, action: Bid, log: EventLog) -> None:
    faction = action.faction
    take_prompt(state, faction, PromptKind.BID, RULE)  # a full hand, a final pass...: engine/rules/refusals.py
    b = state.current_bidding()
    minimum = b.high_bid + 1
    if action.amount < minimum:
        raise RuleViolation(
            ViolationCode.ILLEGAL_CHOICE, RULE,
            f"A bid must be higher than the high bid ({b.high_bid}): at least {minimum}, not {action.amount}."
            if b.high_bid else f"The opening bid is at least 1, not {action.amount}.",
        )
    ally = _supporting_ally(state, action)
    own_part = action.amount - action.ally_pays
    have = state.faction(faction).spice
    if own_part > have:
        extra = f" plus the {action.ally_pays} your ally pays" if action.ally_pays else ""
        raise RuleViolation(ViolationCode.NOT_ALLOWED, RULE,
                            f"Nobody may bid more spice than they have: you have {have}{extra}, "
                            f"so you cannot bid {action.amount}.")
    _record_bid(state, faction, action.amount, ally, action.ally_pays, log)
    _next_turn(state, log)


def _supporting_ally(state: GameState, action: Bid) -> Faction | None:
    """A-8: allies may pay for each other's bids. Which ally pays, checked; None when no ally pays."""
    if not action.ally_pays:
        return None
    allies = state.ally_of(action.faction)
    if not allies:
        raise RuleViolation(ViolationCode.NOT_ALLOWED, "A-8", "You have no ally to pay part of your bid.")
    ally = action.ally
    if ally is None:
        if len(allies) > 1:
            raise RuleViolation(ViolationCode.ILLEGAL_CHOICE, "A-8", "Name the ally who pays part of your bid.",
                                [f.value for f in allies])
        ally = allies[0]
    if ally not in allies:
        raise RuleViolation(ViolationCode.ILLEGAL_CHOICE, "A-8",
                            f"{faction_does(ally, 'are', start=True)} not your ally.", [f.value for f in allies])
    if action.ally_pays > action.amount:
        raise RuleViolation(ViolationCode.ILLEGAL_CHOICE, "A-8",
                            f"Your ally cannot pay {action.ally_pays} of a bid of {action.amount}.")
    if action.ally_pays > state.faction(ally).spice:
        # The ally's spice is secret: the refusal does not say how much it is.
        raise RuleViolation(ViolationCode.NOT_ALLOWED, "A-8",
                            f"{faction_does(ally, 'do', start=True)} not have {action.ally_pays} spice to pay toward "
                            "your bid.")
    return ally


@handles(PassBid)
def pass_bid(state: GameState, action: PassBid, log: EventLog) -> None:
    take_prompt(state, action.faction, PromptKind.BID, RULE)
    _record_pass(state, action.faction, log)
    _next_turn(state, log)


@handles(SetBidOrder)
def set_bid_order(state: GameState, action: SetBidOrder, log: EventLog) -> None:
    """A-6: a secret standing order, set or cleared at any time; it answers the faction's next bid prompts."""
    if action.auto_pass and action.max_bid is not None:
        raise RuleViolation(ViolationCode.ILLEGAL_CHOICE, "A-6",
                            "A standing order either passes every time or bids up to a limit, not both.")
    if action.lasts != "until_changed" and not (state.phase == Phase.BIDDING and state.bidding is not None
                                                 and state.bidding.card_open):
        raise RuleViolation(ViolationCode.WRONG_PHASE, "A-6", "An order for this card or this turn's auction is "
                            "given while a card is up for auction; a standing order may be given at any time.")
    order = BidOrder(auto_pass=action.auto_pass, max_bid=action.max_bid, lasts=action.lasts)
    state.faction(action.faction).bid_order = order
    log.private(EventType.BID_ORDER_SET, action.faction, _order_words(state, order), auto_pass=order.auto_pass,
                max_bid=order.max_bid, lasts=order.lasts)
    _answer_by_order(state, action.faction, log)  # asked to bid right now: the order answers at once


@handles(SetOutbidOrder)
def set_outbid_order(state: GameState, action: SetOutbidOrder, log: EventLog) -> None:
    """A-6: a secret standing order, changed at any time: pass at once on every bid the faction cannot outbid with
    its own spice (this one too, if it is asked now), unless a bid order answers first; otherwise it is asked."""
    faction = action.faction
    state.faction(faction).pass_when_outbid = action.pass_when_outbid
    log.private(EventType.OUTBID_ORDER_SET, faction,
                "Your standing order: you pass at once on every bid you cannot outbid with your own spice (an "
                "ally's help, A-8, is not counted), until you change it (A-6)." if action.pass_when_outbid
                else "Your standing order is cleared: you will be asked for each bid, even one you cannot outbid "
                "(A-6).", pass_when_outbid=action.pass_when_outbid)
    _answer_by_order(state, faction, log)


def _order_words(state: GameState, order: BidOrder) -> str:
    if not order.auto_pass and order.max_bid is None:
        return "Your standing bid order is cleared: you will be asked for each bid (A-6)."
    if order.lasts == "this_card":
        span = f"for {_ordinal_card(state.current_bidding())} only"
    else:
        span = "for the rest of this turn's auction" if order.lasts == "this_turn" else "until you change it"
    return f"Your standing bid order: {what_bid_order_does(order)}, {span} (A-6)."


# --- defaults and samples --------------------------------------------------------------------


@default_for(PromptKind.BID)
def _default_bid(state: GameState, prompt: Prompt) -> PassBid:
    return PassBid(faction=prompt.faction)


SAVING_FOR_SPICE_WIN = 20  # a random BT player with this much spice stops buying cards ...
SAVING_FROM_TURN = 3  # ... and from this turn on it buys none: its spice win (BT-27) needs 35


@sampler_for(PromptKind.BID)
def _sample_bid(state: GameState, prompt: Prompt, rng: Rng) -> Bid | PassBid:
    """Mostly pass (so games move on); otherwise a small raise within the bidder's own spice. A random BT
    player saves for its spice win (BT-27): its income is small (revival payments, kills, BT-10, BT-15)."""
    low, high = prompt.detail["min_bid"], prompt.detail["max_bid"]
    saving = prompt.faction == Faction.BENE_TLEILAXU and (
        state.turn >= SAVING_FROM_TURN or state.faction(prompt.faction).spice >= SAVING_FOR_SPICE_WIN)
    if low > high or saving or rng.below(3):
        return PassBid(faction=prompt.faction)
    return Bid(faction=prompt.faction, amount=low + rng.below(min(high - low, 3) + 1))
