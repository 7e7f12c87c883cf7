"""Substitutes (issue 26 item 3), at the service: a seat handed over by its player, by a moderator or by taking a
call; the newcomer's catch-up holds what the seat knows and nothing of another seat; the old player is refused with
who plays the seat now."""

from __future__ import annotations

import re

import pytest

from bot.app.render import card_key
from bot.app.seats import catch_up, now_played_by
from bot.app.service import NotAllowed
from engine.actions import ChooseTraitor
from engine.checks.autoplay import play_until_stuck
from engine.ids import Faction
from engine.names import card_name, leader_name
from engine.rng import Rng
from engine.secrecy.views import view
from tests.conftest import ready_game
from tests.helpers.clock_tables import START, USERS, drain, drain_messages
from tests.helpers.clock_tables import table as table  # noqa: F401  (the fixture: A, H, F seated, traitor picks open)
from tests.helpers.player_names import names_known_to

A, H, F = Faction.ATREIDES, Faction.HARKONNEN, Faction.FREMEN
NEWCOMER, STRANGER = 201, 202


async def test_a_player_hands_their_seat_over_and_the_newcomer_gets_the_catch_up(table):  # noqa: F811
    service, game, _ = table
    await service.hand_over(game, A, NEWCOMER, by="alice", caller=USERS[A], reason="moving house")
    row = await service.store.load_game(game)
    assert row.seats[A.value] == NEWCOMER
    told = await drain_messages(service)
    channel = [m.text for m in told if m.recipient.channel]
    assert channel[0] == (f"<@{USERS[A]}> handed the Atreides seat to <@{NEWCOMER}> (moving house): <@{NEWCOMER}> "
                          "plays the Atreides from now on.")
    dms = [m for m in told if m.recipient.faction == A.value]
    # the old card is closed with the words, then the catch-up, the story, and the open decision as a fresh card
    assert dms[0].edit_of is not None and dms[0].text == f"**This seat is now played by <@{NEWCOMER}>.**"
    assert dms[1].text.startswith("**You now play the Atreides.**")
    assert dms[2].text.startswith("**The story so far**")
    [card] = [m for m in dms if m.prompt_id is not None]
    assert card.key == card_key(card.prompt_id) and card.edit_of is None and "Your decision" in card.text
    assert not [m for m in told if m.recipient.faction not in (None, A.value)]  # nobody else hears of it by DM
    # the log keeps the change
    assert any("handed the Atreides seat" in line for line in await service.public_log(game))


async def test_the_old_player_is_refused_with_who_plays_the_seat_now(table):  # noqa: F811
    service, game, _ = table
    await service.hand_over(game, A, NEWCOMER, by="alice", caller=USERS[A])
    state = await service.state_of(game)
    [pick] = [p for p in state.prompts if p.faction == A]
    action = ChooseTraitor(faction=A, leader=pick.options[0])
    with pytest.raises(NotAllowed, match=f"This seat \\(Atreides\\) is now played by <@{NEWCOMER}>."):
        await service.submit(game, USERS[A], action, prompt_id=pick.id)
    row = await service.store.load_game(game)
    assert now_played_by(row, USERS[A]) == f"This seat (Atreides) is now played by <@{NEWCOMER}>."
    assert now_played_by(row, USERS[H]) is None
    accepted = await service.submit(game, NEWCOMER, action, prompt_id=pick.id)
    assert accepted.seq == 1


async def test_only_the_seats_player_hands_it_over_and_only_to_someone_not_seated(table):  # noqa: F811
    service, game, _ = table
    before = await service.store.load_game(game)
    with pytest.raises(NotAllowed, match="You do not play the Atreides"):
        await service.hand_over(game, A, NEWCOMER, by="bob", caller=USERS[H])
    with pytest.raises(NotAllowed, match=f"<@{USERS[F]}> already plays the Fremen in this game"):
        await service.hand_over(game, A, USERS[F], by="alice", caller=USERS[A])
    with pytest.raises(NotAllowed, match="already plays the Atreides"):
        await service.hand_over(game, A, USERS[A], by="alice", caller=USERS[A])
    after = await service.store.load_game(game)
    assert after.seats == before.seats and after.settings == before.settings
    assert await drain(service) == []


async def test_a_moderator_seats_a_substitute_as_a_correction(table):  # noqa: F811
    service, game, _ = table
    await service.hand_over(game, H, NEWCOMER, by="mod", admin=True, reason="bob left the server")
    told = await drain_messages(service)
    assert told[0].text == (f"Admin mod seated <@{NEWCOMER}> as Harkonnen (bob left the server) (in place of "
                            f"<@{USERS[H]}>).")
    assert any(m.recipient.faction == H.value and m.text.startswith("**You now play the Harkonnen.**") for m in told)


async def test_a_call_is_taken_by_the_first_press_and_refused_after(table):  # noqa: F811
    service, game, _ = table
    number = await service.call_substitute(game, F, why="called by its player", caller=USERS[F])
    [post] = await drain_messages(service)
    assert post.recipient.channel and post.key == f"seat-call:fremen:{number}" and post.logged
    with pytest.raises(NotAllowed, match="already open"):
        await service.call_substitute(game, F, why="again", caller=USERS[F])
    with pytest.raises(NotAllowed, match="You already play the Atreides in this game"):
        await service.hand_over(game, F, USERS[A], by="alice", call=number)
    await service.hand_over(game, F, NEWCOMER, by="newcomer", call=number)
    told = await drain_messages(service)
    assert told[0].text == (f"<@{NEWCOMER}> took the open Fremen seat (played until now by <@{USERS[F]}>): "
                            f"<@{NEWCOMER}> plays the Fremen from now on.")
    assert told[1].edit_of == post.key and told[1].text == f"**Taken by <@{NEWCOMER}>.**"
    with pytest.raises(NotAllowed, match="This call is over: the Fremen seat was already taken."):
        await service.hand_over(game, F, STRANGER, by="stranger", call=number)
    assert (await service.store.load_game(game)).seats[F.value] == NEWCOMER


async def test_a_press_that_another_process_beat_to_the_seat_is_refused_and_tells_nothing(table):  # noqa: F811
    """Two "Take this seat" presses handled by two processes at once: both read the call open, the other process
    seats its newcomer first; this one's write finds the seat changed, so its newcomer gets no catch-up (the
    seat's secrets) and the table hears of one newcomer only."""
    service, game, _ = table
    number = await service.call_substitute(game, F, why="called by its player", caller=USERS[F])
    await drain_messages(service)
    store, load = service.store, service.store.load_game

    async def read_then_beaten(game_id):
        row = await load(game_id)
        del store.load_game  # the store's own again
        await store.set_seat(game_id, F.value, STRANGER, was=USERS[F])  # the other process's newcomer
        return row

    store.load_game = read_then_beaten
    with pytest.raises(NotAllowed, match="The Fremen seat changed hands a moment ago"):
        await service.hand_over(game, F, NEWCOMER, by="newcomer", call=number)
    assert await drain_messages(service) == []  # no catch-up, no announcement
    row = await store.load_game(game)
    assert row.seats[F.value] == STRANGER and row.settings["seat_calls"] == {F.value: number}


def _later_state():
    state = ready_game()
    state, _, _ = play_until_stuck(state, Rng.from_seed(3), while_=lambda s: s.turn < 3)
    return state


@pytest.mark.parametrize("state", [ready_game(), _later_state()], ids=["after setup", "turn 3"])
def test_the_catch_up_holds_the_seats_secrets_and_no_other_seats(state):
    """Compared with the engine's view of each seat: every secret of the seat is in its catch-up, and no hand card,
    traitor, BT mark or trap card of another seat that the seat's own view does not name."""
    for faction in state.factions:
        text = "\n".join(m.text for m in catch_up(state, faction, lambda p: START, ["v1 The story."]))
        own = view(state, faction).own
        assert f"Spice: {own.spice}" in text
        for card in own.hand + list(own.trap_cards.values()):
            assert card_name(card) in text
        for leader in own.traitors + own.bt_marked:
            assert leader_name(leader) in text
        known = names_known_to(state, faction)
        for other in state.factions:
            if other == faction:
                continue
            theirs = view(state, other).own
            for name in ({card_name(c) for c in theirs.hand + list(theirs.trap_cards.values())}
                         | {leader_name(x) for x in theirs.traitors + theirs.bt_marked}) - known:
                assert not re.search(rf"(?<!\w){re.escape(name)}(?!\w)", text), (faction, other, name)


def test_the_catch_up_tells_the_latest_of_the_story_in_at_most_two_messages():
    state = ready_game()
    story = [f"v{n} " + "The storm moves. " * 30 for n in range(1, 21)]  # some 500 characters each
    told = catch_up(state, Faction.ATREIDES, lambda p: None, story)
    [shown] = [m.text for m in told if m.text.startswith("**The story so far**")]
    assert len(shown) <= 4000 and shown.endswith(story[-1]) and story[0] not in shown


def test_a_call_or_a_ballot_is_known_by_its_key_and_nothing_else_is():
    """The buttons of a call for a substitute and of a ballot are found again from their message's key alone."""
    from bot.app.seats import call_key, parse_call_key
    from bot.app.votes import ballot_key, parse_ballot_key

    assert parse_call_key(call_key("fremen", 2)) == (Faction.FREMEN, 2)
    assert parse_ballot_key(ballot_key(3, "emperor")) == (3, Faction.EMPEROR)
    for other in (None, "", "status", "vote:3:emperor", "seat-call:nobody:2", "seat-call:fremen:x",
                  "seat-call:fremen:2:9"):
        assert parse_call_key(other) is None, other
    assert parse_ballot_key(call_key("fremen", 2)) is None and parse_ballot_key("vote:x:emperor") is None
