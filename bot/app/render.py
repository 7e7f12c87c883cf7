"""Engine events and prompts become outgoing messages: one channel post and one DM per faction per action.

Built from events (which carry their audience) and from prompts only; never from a raw state field, so a
message can only carry what its reader may know.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping
from datetime import datetime

from bot.app.action_words import answers, describe
from bot.app.anytime_words import advisor_order_words, ally_revival_order_words, bid_order_words, special_order_words
from bot.app.decision_cards import build_card
from bot.app.feed import KARAMA_WINDOW_WORDS, asked_again, feed_messages, paused_ids, status_board
from bot.app.ports import OutgoingMessage, Recipient
from bot.app.settings_model import TableVote
from engine.actions import Action, AnswerRevealKarama, ForceDefault, PlayerAction
from engine.events import BY_STANDING_ORDER, OWN_CHOICE_ECHOES, Event
from engine.factions.bt_reveal_karama import answer_so_far
from engine.flow import DEFAULTS
from engine.ids import Faction
from engine.model import GameState, Phase, Prompt, PromptKind
from engine.names import counted, faction_name, option_name, option_names, the_faction
from engine.rules.admin import ABSENCE_ADMIN, DEADLINE_ADMIN
from engine.rules.karama import Advantage, advantage_words
from engine.secrecy.views import FactionSecrets, view

DeadlineOf = Callable[[Prompt], datetime | None]


def secret_facts(own: FactionSecrets, *, with_ids: bool = False) -> list[tuple[str, str]]:
    """What only a faction knows about itself beyond its spice (each front heads with that), as (label, value)
    lines for every front (`/me hand`, the console's view); `with_ids` adds each card's id, which the console's
    `do` commands need."""
    def cards(ids: list[str]) -> str:
        return ", ".join(f"{option_name(c)} ({c})" if with_ids else option_name(c) for c in ids) or "none"

    facts = [("hand", cards(own.hand)), ("traitors", option_names(own.traitors))]
    if own.prediction:
        facts.append(("prediction", f"{faction_name(own.prediction.faction)} on turn {own.prediction.turn}"))
    if own.trap_cards:
        facts.append(("traps", ", ".join(f"{s}: {option_name(c)}" for s, c in own.trap_cards.items())))
    if own.bt_marked:
        facts.append(("marked traitors", option_names(own.bt_marked)))
    if own.never_storm_cards:
        facts.append(("storm cards", "never play one (standing order)"))
    if own.nexus_done_at_once:
        facts.append(("the Nexus", "done at once (standing order)"))
    facts.append(("bidding order", bid_order_words(own.bid_order)))
    if own.pass_when_outbid:
        facts.append(("bids you cannot outbid", "pass (standing order)"))
    if own.revive_free_tokens:
        facts.append(("revival", "the free tokens, unless a leader could be revived (standing order)"))
    if own.guild_timing_in_storm_order:
        facts.append(("your turn", "in storm order (standing order)"))
    if own.advisor_order is not None and own.advisor_order != "ask":
        facts.append(("spiritual advisors", f"{advisor_order_words(own.advisor_order)} (standing order)"))
    if own.traitor_order:
        facts.append(("traitor calls", "automatic"))
    if own.spice_win_order is not None:
        facts.append(("declare a spice win at 35", "yes" if own.spice_win_order else "no"))
    if own.ally_revival_order is not None and own.ally_revival_order != "ask":
        facts.append(("your allies' free revival", f"{ally_revival_order_words(own.ally_revival_order)} "
                                                   "(standing order)"))
    if own.karama_orders:
        facts.append(("Karama readied", "; ".join(f"it cancels the next time {advantage_words(Advantage(o.advantage))}"
                                                  for o in own.karama_orders)))
    if own.special_karama_orders:
        powers = "; ".join(special_order_words(o) for o in own.special_karama_orders)
        facts.append(("special Karama readied", powers))
    if own.storm_forecast is not None:
        facts.append(("the storm next turn", f"moves {counted(own.storm_forecast, 'sector')} (weather)"))
    return facts


def messages_for(events: list[Event], before: GameState | None, after: GameState,
                 deadline_of: DeadlineOf | None = None, in_place: dict[str, str] | None = None,
                 dm_closed: Collection[str] = ()) -> list[OutgoingMessage]:
    """An action's messages: the channel's story and the turn thread's detail (bot/app/feed.py), each faction's
    private news by DM, and a decision card for each decision the action opened; one asked again of a faction
    that did not answer it (`in_place`: new id -> old) takes the place of its old card. `dm_closed`: the factions
    the bot cannot DM (feed_messages)."""
    in_place = in_place or {}
    messages = feed_messages(events, before, after, dm_closed)
    for faction in after.factions:
        private = [e.message for e in events if e.audience is not None and faction in e.audience]
        news = [line for line in private if not line.startswith(BY_STANDING_ORDER)]
        if news:
            messages.append(OutgoingMessage(recipient=Recipient(faction=faction.value), text="\n".join(news)))
        if answered := [line for line in private if line.startswith(BY_STANDING_ORDER)]:
            # what the orders answered, one DM a turn that grows (edits ping nobody): not a DM per pass
            key = f"orders:{faction.value}:{after.turn}"
            messages.append(OutgoingMessage(recipient=Recipient(faction=faction.value), text="\n".join(answered),
                                            edit_of=key, key=key))
    already_open = {p.id for p in before.prompts} if before else set()
    for prompt in after.prompts:
        if prompt.id not in already_open:
            card = decision_card(after, prompt, deadline_of(prompt) if deadline_of else None)
            old = in_place.get(prompt.id)
            messages.append(card if old is None else card_in_place(card, old))
    return messages


def without_own_choice_echoes(events: list[Event], action: Action) -> list[Event]:
    """The events without those that only restate the actor's own choice to the actor (OWN_CHOICE_ECHOES)."""
    actor = action.faction if isinstance(action, PlayerAction) else None
    return [e for e in events if not (e.type in OWN_CHOICE_ECHOES and e.audience == (actor,)
                                      and not e.message.startswith(BY_STANDING_ORDER))]


def action_messages(events: list[Event], before: GameState, action: Action, after: GameState,
                    deadline_of: DeadlineOf | None = None, due: DeadlineOf | None = None,
                    dm_closed: Collection[str] = (),
                    away: Mapping[Faction, datetime] | None = None,
                    vote: TableVote | None = None) -> list[OutgoingMessage]:
    """Everything the bot sends for one action (GameService.submit): its messages, the closing line of each card
    whose decision it closed, the status board (with who is `away` and the table's open `vote`), and at the end
    what was secret."""
    # a decision asked again under its decider's eyes, as they answered, gets a new card under their receipt
    in_place = {new: old for new, old in asked_again(before, after).items()
                if not _answered(action, before.prompt(old))}
    outbox = messages_for(without_own_choice_echoes(events, action), before, after, deadline_of, in_place,
                          dm_closed) + closing_messages(
        before, after, action, replaced=set(in_place.values()))
    outbox.append(status_board(after, due, away=away, vote=vote))
    if after.phase == Phase.ENDED:
        outbox.append(end_of_game_reveal(after))
    return outbox


def decision_card(state: GameState, prompt: Prompt, deadline: datetime | None) -> OutgoingMessage:
    """The decider's card for an open decision (bot/app/decision_cards.py), named so that it can be closed."""
    card = build_card(view(state, prompt.faction), prompt, _default_words(state, prompt), deadline)
    return OutgoingMessage(recipient=Recipient(faction=prompt.faction.value), text=card.text(), prompt_id=prompt.id,
                           key=card_key(prompt.id))


def card_key(prompt_id: str) -> str:
    return f"card:{prompt_id}"


def card_in_place(card: OutgoingMessage, old_prompt_id: str) -> OutgoingMessage:
    """A decision's card shown in place of the card of `old_prompt_id`: the same decision asked again, or sent
    again because its due time changed (a new deadline, a grace, a pause or its resume)."""
    return card.model_copy(update={"edit_of": card_key(old_prompt_id), "replace": True})


def _default_words(state: GameState, prompt: Prompt) -> str | None:
    maker = DEFAULTS.get(prompt.kind)
    return describe(maker(state, prompt), prompt) + "." if maker is not None else None  # makers read the state only


def closing_messages(before: GameState, after: GameState, action: Action,
                     replaced: Collection[str] = ()) -> list[OutgoingMessage]:
    """For every decision the action closed, the line its card gets and its controls disabled: how it
    closed (or that it is asked again after its decider answered: engine/rules/alliances.py, revival.py, movement.py).
    A card `replaced` by the same decision asked again is not closed: it becomes the new card."""
    messages = []
    again = set(asked_again(before, after).values())
    paused = paused_ids(after)
    for prompt in before.prompts:
        if after.prompt(prompt.id) is not None or prompt.id in replaced:
            continue
        if prompt.id in paused:
            text = (f"Paused: the game waits for {KARAMA_WINDOW_WORDS}. This decision is asked again, in a new "
                    "card, once they have.")
        elif isinstance(action, ForceDefault) and action.prompt_id == prompt.id:
            how = {DEADLINE_ADMIN: "The deadline passed", ABSENCE_ADMIN: "You are away"}.get(
                action.admin, "Forced by the moderator")
            words = _default_words(before, prompt) or "its default."
            text = f"{how}: {words}"
        elif prompt.id in again:
            answered = f"You answered: {describe(action, prompt)}. " if _answered(action, prompt) else ""
            text = f"{answered}Your choices changed: this decision is asked again in a new card."
        elif _answered(action, prompt):
            text = f"You answered: {describe(action, prompt)}."
        elif (earlier := _answer_kept_open(before, prompt)) is not None:
            text = f"You answered: {describe(earlier, prompt)}. Every faction has answered: the window is closed."
        else:
            text = "Closed: the game moved on."
        messages.append(_closing_line(prompt, text))
    return messages


def cancelled_cards(state: GameState) -> list[OutgoingMessage]:
    """The closing line of every open decision's card when the game is cancelled (GameService.cancel)."""
    return [_closing_line(prompt, "Closed: the game was cancelled.") for prompt in state.prompts]


def _closing_line(prompt: Prompt, text: str) -> OutgoingMessage:
    """The line a decision's card gets when the decision closes; its controls are disabled."""
    return OutgoingMessage(recipient=Recipient(faction=prompt.faction.value), text=f"**{text}**",
                           edit_of=card_key(prompt.id))


def _answer_kept_open(state: GameState, prompt: Prompt) -> AnswerRevealKarama | None:
    """BT-51: an answer to the Karama window keeps its decision open until every faction has answered; the
    decider's own answer, for its own card, once another's answer closes it."""
    if prompt.kind != PromptKind.BT_REVEAL_KARAMA:
        return None
    cancel = answer_so_far(state, prompt.faction)
    return AnswerRevealKarama(faction=prompt.faction, cancel=cancel) if cancel is not None else None


def _answered(action: Action, prompt: Prompt | None) -> bool:
    return (prompt is not None and isinstance(action, PlayerAction) and action.faction == prompt.faction
            and answers(action, prompt.kind))


def end_of_game_reveal(state: GameState) -> OutgoingMessage:
    """Item 13 of the bot issue: once the game is over nothing is secret any more. After the game_over event
    (the winners and why), the table learns what each faction kept hidden: its traitor cards, the BT's marks
    (BT-20), the traps never sprung or not yet resolved and their cards (BT-30), the Bene Gesserit prediction
    (A-25), the BT's hidden spice (BT-27) and the spice and cards behind every shield; then the log is
    offered."""
    from engine.factions.bt_traitors import live_marks
    from engine.names import card_name

    lines = ["The game is over. What was secret:"]
    lines.append("- Traitor cards kept: " + "; ".join(f"{faction_name(f)}: {option_names(fs.traitors)}"
                                                    for f, fs in state.factions.items()) + ".")
    if state.bt is not None:
        lines.append(f"- Bene Tleilaxu traitor marks: {option_names(live_marks(state))}.")
        for stronghold, trap in sorted(state.traps.items()):
            how = ("never sprung" if trap.triggered_by is None
                   else f"sprung by {faction_name(trap.triggered_by)}, not yet resolved")
            lines.append(f"- The trap on {stronghold} ({how}) was {card_name(trap.card)}.")
        bt = state.factions[Faction.BENE_TLEILAXU]
        lines.append(f"- Bene Tleilaxu hidden spice: {bt.spice - state.bt.open_spice}"
                     + (f" (and {state.bt.open_spice} in open view)." if state.bt.open_spice else "."))
    if state.bg_prediction:
        lines.append(f"- The Bene Gesserit predicted {the_faction(state.bg_prediction.faction)} on turn "
                     f"{state.bg_prediction.turn}.")
    for faction, fs in state.factions.items():
        hand = ", ".join(card_name(c) for c in fs.hand) or "no cards"
        lines.append(f"- Behind the {faction_name(faction)} shield: {fs.spice} spice; hand: {hand}.")
    lines.append("The whole game, every secret included, can be downloaded with /game export (and checked with "
                 "`python -m engine replay`); /game log shows the public log.")
    return OutgoingMessage(recipient=Recipient(channel=True), text="\n".join(lines))
