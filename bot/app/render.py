"""Engine events and prompts become outgoing messages: one channel post and one DM per faction per action.

Built from events (which carry their audience) and from prompts only; never from a raw state field, so a
message can only carry what its reader may know.
"""

from __future__ import annotations

from bot.app.ports import OutgoingMessage, Recipient
from engine.events import Event
from engine.model import GameState, Prompt
from engine.names import faction_name


def _prompt_text(prompt: Prompt) -> str:
    kind = prompt.kind.value.replace("_", " ")
    choices = f" Choices: {', '.join(prompt.options[:25])}." if prompt.options else ""
    more = f" (and {len(prompt.options) - 25} more)" if len(prompt.options) > 25 else ""
    return f"Your decision is needed: {kind} (decision {prompt.id}).{choices}{more}"


def messages_for(events: list[Event], before: GameState | None, after: GameState) -> list[OutgoingMessage]:
    """The channel post, the DMs, and the calls for the decisions this action opened."""
    messages: list[OutgoingMessage] = []
    public = [e.message for e in events if e.public]
    if public:
        messages.append(OutgoingMessage(recipient=Recipient(channel=True), text="\n".join(public)))
    for faction in after.factions:
        private = [e.message for e in events if not e.public and faction in e.audience]
        if private:
            messages.append(OutgoingMessage(recipient=Recipient(faction=faction.value), text="\n".join(private)))
    already_open = {p.id for p in before.prompts} if before else set()
    for prompt in after.prompts:
        if prompt.id in already_open:
            continue
        if prompt.secret:
            messages.append(OutgoingMessage(recipient=Recipient(faction=prompt.faction.value),
                                            text=_prompt_text(prompt), prompt_id=prompt.id))
        else:
            kind = prompt.kind.value.replace("_", " ")
            messages.append(OutgoingMessage(recipient=Recipient(channel=True), prompt_id=prompt.id,
                                            text=f"Waiting for {faction_name(prompt.faction)}: {kind} "
                                                 f"(decision {prompt.id})."))
    return messages


def end_of_game_reveal(state: GameState) -> OutgoingMessage:
    """When the game is over nothing is secret any more: traitors, the prediction, BT marks and traps, and
    the spice behind every shield."""
    from engine.names import card_name, leader_name

    lines = ["The game is over. What was secret:"]
    for faction, fs in state.factions.items():
        traitors = ", ".join(leader_name(t) for t in fs.traitors) or "none"
        hand = ", ".join(card_name(c) for c in fs.hand) or "no cards"
        lines.append(f"- {faction_name(faction)}: {fs.spice} spice; traitors: {traitors}; hand: {hand}.")
    if state.bg_prediction:
        lines.append(f"- The Bene Gesserit predicted {faction_name(state.bg_prediction.faction)} on turn "
                     f"{state.bg_prediction.turn}.")
    if state.bt is not None:
        marks = ", ".join(leader_name(m) for m in state.bt.marked) or "none"
        lines.append(f"- Bene Tleilaxu traitors still marked: {marks}.")
    for stronghold, trap in state.traps.items():
        lines.append(f"- The trap on {stronghold} was {card_name(trap.card)}.")
    return OutgoingMessage(recipient=Recipient(channel=True), text="\n".join(lines))
