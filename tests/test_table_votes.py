"""Table votes bound to seats (issue 26 item 4), at the service with a fake clock: a ballot per seat, answered once,
the tally secret until the vote closes, a majority (ending: every seat but one), a pause that ends at its cap, a
moderator's override, and the status board showing the open vote (who is still to answer, never the answers)."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest

from bot.app.decision_cards import timestamp
from bot.app.feed import PAUSED_WORDS
from bot.app.paces import Pace
from bot.app.ports import GameStatus, OutgoingMessage
from bot.app.service import GameService, NotAllowed
from bot.app.votes import VOTE, VoteKind, seats_needed, timers_due
from bot.store.memory import MemoryGameStore
from engine.actions import ChooseTraitor
from engine.ids import Faction
from tests.helpers.clock_tables import DAY, HOUR, START, USERS, FakeClock, board_of, drain, drain_messages
from tests.helpers.clock_tables import table as table  # noqa: F401  (the fixture: A, H, F seated)

A, H, F, E, G = Faction.ATREIDES, Faction.HARKONNEN, Faction.FREMEN, Faction.EMPEROR, Faction.GUILD
FIVE = {A: 101, H: 102, F: 103, E: 104, G: 105}
STRANGER = 999
BOARD = "**Status · "  # how the status board begins


@pytest.fixture
async def five():
    """A running 5-seat game (a majority is 3 seats, ending needs 4), with the daily pace's deadlines."""
    clock = FakeClock(START)
    service = GameService(MemoryGameStore(clock=clock), clock=clock)
    row = await service.create_game(guild_id=1, channel_id=56, factions=list(FIVE), seed=7, pace=Pace.WEEKLY)
    for faction, user in FIVE.items():
        await service.seat(row.game_id, faction, user)
    await service.start(row.game_id)
    await drain(service)
    return service, row.game_id, clock


def ballot_text(told, faction) -> str:
    return next(m.text for m in told if m.recipient.faction == faction.value and m.key and m.key.startswith("vote:"))


def but_board(told: list) -> list:
    """The messages drained (OutgoingMessage or (faction, text)) but the status board, which each step of a vote
    replaces (the board's own tests read it)."""
    return [m for m in told if not (m.text if isinstance(m, OutgoingMessage) else m[1]).startswith(BOARD)]


async def vote_all(service, game, number, answers: dict[Faction, bool], users=USERS):
    for faction, yes in answers.items():
        await service.cast_vote(game, number, faction, users[faction], yes)


def test_a_majority_of_seats_decides_and_ending_needs_every_seat_but_one():
    assert [seats_needed("pause", n) for n in (2, 3, 4, 5, 7)] == [2, 2, 3, 3, 4]
    assert [seats_needed("end", n) for n in (2, 3, 4, 5, 7)] == [1, 2, 3, 4, 6]


async def test_each_seat_gets_a_ballot_and_the_tally_stays_secret_until_every_seat_answered(table):  # noqa: F811
    service, game, clock = table
    vote = await service.open_vote(game, USERS[A], VoteKind.PAUSE, hours=72)
    opened = but_board(await drain_messages(service))
    [post] = [m for m in opened if m.recipient.channel]
    assert post.text.startswith("**Table vote: pause the game for 3 days (then it resumes by itself)?** Called by the "
                                f"Atreides (<@{USERS[A]}>).") and post.logged
    assert "it passes with a majority of the seats (2 of 3)" in post.text
    ballots = {m.recipient.faction: m for m in opened if m.recipient.faction}
    assert set(ballots) == {A.value, H.value, F.value}
    assert all(m.key == f"vote:{vote['number']}:{f}" for f, m in ballots.items())
    await vote_all(service, game, vote["number"], {A: True, H: True})
    answered = but_board(await drain_messages(service))
    # only each voter's own ballot says what it answered; the channel hears nothing yet, though 2 of 3 said yes
    assert [(m.recipient.faction, m.text) for m in answered] == [(A.value, "**You voted yes.**"),
                                                                 (H.value, "**You voted yes.**")]
    assert (await service.store.load_game(game)).status == GameStatus.RUNNING
    await vote_all(service, game, vote["number"], {F: False})
    closed = [m.text for m in await drain_messages(service) if m.recipient.channel]
    assert closed[0] == ("**Table vote passed: pause the game for 3 days (then it resumes by itself).** 2 yes, 1 no "
                         "(every seat answered; it needed 2 yes of 3 seats).")
    assert "The table's vote paused the game (for 3 days)." in closed
    assert any(text.startswith("The game resumes by itself at <t:") for text in closed)
    assert (await service.store.load_game(game)).status == GameStatus.PAUSED
    log = "\n".join(await service.public_log(game))
    assert "Table vote passed" in log and "Called by the Atreides" in log


async def test_a_pause_the_table_voted_ends_at_its_cap(table):  # noqa: F811
    service, game, clock = table
    vote = await service.open_vote(game, USERS[H], VoteKind.PAUSE, hours=30)
    await vote_all(service, game, vote["number"], {A: True, H: True, F: True})
    await drain(service)
    row = await service.store.load_game(game)
    assert row.status == GameStatus.PAUSED and row.due_at == START + timedelta(hours=30)
    await service.tick(clock.at(29 * HOUR))
    assert (await service.store.load_game(game)).status == GameStatus.PAUSED
    await service.tick(clock.at(30 * HOUR))
    assert (await service.store.load_game(game)).status == GameStatus.RUNNING
    told = [text for faction, text in await drain(service) if faction is None]
    assert "The table's vote resumed the game (the pause it gave is over)." in told


async def test_a_pause_is_capped_at_seven_days(table):  # noqa: F811
    service, game, _ = table
    with pytest.raises(NotAllowed, match="1 to 168 hours"):
        await service.open_vote(game, USERS[A], VoteKind.PAUSE, hours=169)
    with pytest.raises(NotAllowed, match="1 to 168 hours"):
        await service.open_vote(game, USERS[A], VoteKind.PAUSE)


async def test_a_vote_without_a_majority_fails_and_changes_nothing(table):  # noqa: F811
    service, game, _ = table
    vote = await service.open_vote(game, USERS[A], VoteKind.REPLACE, faction=H)
    await drain(service)
    await vote_all(service, game, vote["number"], {A: True, H: False, F: False})
    told = [text for faction, text in but_board(await drain(service)) if faction is None]
    assert told == ["**Table vote failed: replace the Harkonnen's player (the seat is offered to a substitute).** "
                    "1 yes, 2 no (every seat answered; it needed 2 yes of 3 seats)."]
    row = await service.store.load_game(game)
    assert VOTE not in row.settings and row.status == GameStatus.RUNNING and row.seats[H.value] == USERS[H]


async def test_a_replace_vote_that_passes_offers_the_seat_to_a_substitute(table):  # noqa: F811
    service, game, _ = table
    vote = await service.open_vote(game, USERS[A], VoteKind.REPLACE, faction=H)
    await vote_all(service, game, vote["number"], {A: True, H: False, F: True})
    told = await drain_messages(service)
    [call] = [m for m in told if m.key and m.key.startswith("seat-call:harkonnen:")]
    assert "(the table voted to replace its player)" in call.text


async def test_ending_the_game_needs_every_seat_but_one(five):
    service, game, _ = five
    vote = await service.open_vote(game, FIVE[A], VoteKind.END)
    assert "it passes with every seat but one (4 of 5)" in [t for f, t in await drain(service) if f is None][0]
    await vote_all(service, game, vote["number"], {A: True, H: True, F: True, E: False, G: False}, FIVE)
    told = [t for f, t in but_board(await drain(service)) if f is None]
    assert told[0].startswith("**Table vote failed: end the game now, without a winner.** 3 yes, 2 no")
    assert (await service.store.load_game(game)).status == GameStatus.RUNNING
    vote = await service.open_vote(game, FIVE[E], VoteKind.END)
    await drain(service)
    await vote_all(service, game, vote["number"], {A: True, H: True, F: True, E: True, G: False}, FIVE)
    told = [t for f, t in but_board(await drain(service)) if f is None]
    assert told[0].startswith("**Table vote passed: end the game now, without a winner.** 4 yes, 1 no")
    assert any(t.startswith("The table's vote cancelled the game (the table voted to end the game, without a winner)")
               for t in told)
    assert (await service.store.load_game(game)).status == GameStatus.ENDED


async def test_a_vote_closes_at_its_deadline_and_a_seat_without_an_answer_is_not_a_yes(five):
    service, game, clock = five
    vote = await service.open_vote(game, FIVE[A], VoteKind.EXTEND, hours=12, faction=A)
    await vote_all(service, game, vote["number"], {A: True, H: True}, FIVE)
    await drain(service)
    await service.tick(clock.at(DAY - 1))
    assert VOTE in (await service.store.load_game(game)).settings
    await service.tick(clock.at(DAY))
    told = await drain(service)
    assert [t for f, t in told if f is None and t.startswith("**Table vote")] == [
        "**Table vote failed: give the Atreides 12 hours more for their open decisions.** 2 yes, 0 no, 3 without an "
        "answer (its deadline passed; it needed 3 yes of 5 seats)."]
    assert {f for f, t in told if t == "**The vote is closed; the channel has its result.**"} == {
        F.value, E.value, G.value}


async def test_an_extend_vote_that_passes_gives_the_seat_more_time(table):  # noqa: F811
    service, game, _ = table
    with pytest.raises(NotAllowed, match="The Fremen have no open decision with a deadline."):
        await service.open_vote(game, USERS[H], VoteKind.EXTEND, hours=12, faction=F)
    await service.set_deadline(game, None, DAY)
    vote = await service.open_vote(game, USERS[H], VoteKind.EXTEND, hours=12, faction=F)
    await vote_all(service, game, vote["number"], {A: True, H: True, F: False})
    told = await drain(service)
    assert any(f is None and t.startswith("The table's vote gave Fremen 12 h more for their open decision (the vote "
                                          "passed)") for f, t in told)
    assert any(f == F.value and t.startswith("The table's vote gave you 12 h more (the vote passed):") for f, t in told)


async def test_votes_from_someone_not_seated_a_second_answer_and_a_second_vote_are_refused(table):  # noqa: F811
    service, game, _ = table
    with pytest.raises(NotAllowed, match="Only a player seated in this game may call a table vote."):
        await service.open_vote(game, STRANGER, VoteKind.END)
    vote = await service.open_vote(game, USERS[A], VoteKind.END)
    with pytest.raises(NotAllowed, match="A table vote is already open"):
        await service.open_vote(game, USERS[H], VoteKind.PAUSE, hours=2)
    await drain(service)
    with pytest.raises(NotAllowed, match="You do not play the Harkonnen: only a seat's player answers for it."):
        await service.cast_vote(game, vote["number"], H, STRANGER, True)
    with pytest.raises(NotAllowed, match="You do not play the Harkonnen"):
        await service.cast_vote(game, vote["number"], H, USERS[A], True)  # another seat's ballot
    await service.cast_vote(game, vote["number"], A, USERS[A], True)
    with pytest.raises(NotAllowed, match="You already voted: a seat answers once."):
        await service.cast_vote(game, vote["number"], A, USERS[A], False)
    with pytest.raises(NotAllowed, match="This vote is closed"):
        await service.cast_vote(game, vote["number"] + 1, H, USERS[H], True)
    assert (await service.store.load_game(game)).settings[VOTE]["answers"] == {A.value: True}
    assert but_board(await drain(service)) == [(A.value, "**You voted yes.**")]


async def test_a_moderators_pause_overrides_the_open_vote_and_says_so(table):  # noqa: F811
    service, game, _ = table
    await service.open_vote(game, USERS[A], VoteKind.END)
    await service.cast_vote(game, 1, A, USERS[A], True)
    await drain(service)
    await service.pause(game, True, by="mod", reason="a dispute")
    await service.override_vote(game, by="mod", did="paused the game")
    told = [t for f, t in await drain(service) if f is None]
    assert "Admin mod paused the game (a dispute)." in told
    assert ("**Moderator override:** Admin mod paused the game; the open table vote (end the game now, without a "
            "winner) is closed without a result.") in told
    assert not any("yes" in t for t in told)  # the answers given so far stay secret
    assert VOTE not in (await service.store.load_game(game)).settings


async def test_a_moderator_who_resumes_a_pause_the_table_voted_is_announced_as_an_override(table):  # noqa: F811
    service, game, clock = table
    vote = await service.open_vote(game, USERS[A], VoteKind.PAUSE, hours=48)
    await vote_all(service, game, vote["number"], {A: True, H: True, F: True})
    await drain(service)
    await service.pause(game, False, by="mod")
    await service.override_vote(game, by="mod", did="resumed the game")
    told = [t for f, t in await drain(service) if f is None]
    assert "**Moderator override:** Admin mod resumed the game; the pause the table voted is over." in told
    row = await service.store.load_game(game)
    # no stale timer: the game is due only when its decisions have waited 3 days (its moderators hear of it)
    assert row.status == GameStatus.RUNNING and timers_due(row.settings) is None
    await service.pause(game, True, by="mod")  # a later pause of a moderator's is no table's: no override told
    await service.override_vote(game, by="mod", did="paused the game")
    assert not any("override" in t for f, t in await drain(service))
    await service.tick(clock.at(3 * DAY))
    assert (await service.store.load_game(game)).status == GameStatus.PAUSED


async def test_a_seat_that_changes_hands_during_a_vote_hands_its_ballot_over(table):  # noqa: F811
    service, game, _ = table
    vote = await service.open_vote(game, USERS[A], VoteKind.END)
    await service.cast_vote(game, vote["number"], A, USERS[A], True)
    await drain(service)
    await service.hand_over(game, H, STRANGER, by="bob", caller=USERS[H])
    told = await drain_messages(service)
    key = f"vote:{vote['number']}:harkonnen"
    # the old ballot says who plays the seat now, and the newcomer gets the seat's ballot
    assert [(m.edit_of, m.key, m.text) for m in told if key in (m.key, m.edit_of)] == [
        (key, None, f"**This seat is now played by <@{STRANGER}>.**"), (None, key, ballot_text(told, H))]
    with pytest.raises(NotAllowed, match=f"This seat \\(Harkonnen\\) is now played by <@{STRANGER}>."):
        await service.cast_vote(game, vote["number"], H, USERS[H], False)
    await service.cast_vote(game, vote["number"], H, STRANGER, True)
    await service.cast_vote(game, vote["number"], F, USERS[F], False)
    assert (await service.store.load_game(game)).status == GameStatus.ENDED  # 2 of 3: every seat but one


# --- the status board shows the open vote (what it asks, who is still to answer, when it closes; never the answers)


def vote_line(board: str) -> str | None:
    return next((line for line in board.splitlines() if line.startswith("Table vote open: ")), None)


async def test_the_status_board_shows_the_open_vote_until_the_last_answer_closes_it(table):  # noqa: F811
    service, game, _ = table
    vote = await service.open_vote(game, USERS[A], VoteKind.REPLACE, faction=H)
    asks, closes = "replace the Harkonnen's player (the seat is offered to a substitute)", START + timedelta(hours=24)
    board = board_of(await drain_messages(service))
    assert vote_line(board) == (f"Table vote open: {asks}; still to answer: Atreides, Harkonnen, Fremen; closes by "
                                f"{timestamp(closes)}.")
    assert board.startswith(BOARD) and "Waiting for: " in board  # the rest of the board as before
    await service.cast_vote(game, vote["number"], H, USERS[H], False)
    board = board_of(await drain_messages(service))
    assert vote_line(board) == (f"Table vote open: {asks}; still to answer: Atreides, Fremen; closes by "
                                f"{timestamp(closes)}.")
    assert not re.search(r"\b(yes|no)\b", board, re.IGNORECASE)  # neither the answer nor a count of answers
    await service.cast_vote(game, vote["number"], A, USERS[A], True)
    await service.cast_vote(game, vote["number"], F, USERS[F], False)  # the last answer closes it: failed
    board = board_of(await drain_messages(service))
    assert "Table vote" not in board and "Waiting for: " in board


async def test_the_board_of_a_seat_that_answered_yes_reads_as_the_board_of_one_that_answered_no(table):  # noqa: F811
    """The secrecy of the tally on the board: two games alike but for one answer show the same board."""
    service, game, _ = table
    other = await service.create_game(guild_id=1, channel_id=58, factions=[A, H, F], seed=7)
    for faction, user in USERS.items():
        await service.seat(other.game_id, faction, user)
    await service.start(other.game_id)
    boards = {}
    for each, yes in ((game, True), (other.game_id, False)):
        vote = await service.open_vote(each, USERS[A], VoteKind.END)
        await drain(service)
        await service.cast_vote(each, vote["number"], H, USERS[H], yes)
        boards[yes] = board_of(await drain_messages(service))
    assert boards[True] == boards[False] and "still to answer: Atreides, Fremen;" in boards[True]


async def test_the_board_drops_the_vote_when_its_deadline_closes_it(five):
    service, game, clock = five
    vote = await service.open_vote(game, FIVE[A], VoteKind.EXTEND, hours=12, faction=A)
    await vote_all(service, game, vote["number"], {A: True, H: False}, FIVE)
    assert "still to answer: Fremen, Emperor, Spacing Guild;" in board_of(await drain_messages(service))
    await service.tick(clock.at(DAY))
    board = board_of(await drain_messages(service))
    assert "Table vote" not in board


async def test_a_paused_games_board_shows_the_vote_to_resume_it(table):  # noqa: F811
    service, game, _ = table
    await service.pause(game, True, by="mod")
    await drain(service)
    await service.open_vote(game, USERS[F], VoteKind.RESUME)
    board = board_of(await drain_messages(service))
    assert PAUSED_WORDS in board
    assert vote_line(board) == ("Table vote open: resume the game; still to answer: Atreides, Harkonnen, Fremen; "
                                f"closes by {timestamp(START + timedelta(hours=24))}.")
    await service.cast_vote(game, 1, F, USERS[F], True)
    board = board_of(await drain_messages(service))
    assert PAUSED_WORDS in board and "still to answer: Atreides, Harkonnen;" in board


async def test_the_board_keeps_the_vote_through_an_action_and_drops_it_at_a_moderators_override(table):  # noqa: F811
    service, game, _ = table
    await service.open_vote(game, USERS[A], VoteKind.END)
    await drain(service)
    pick = next(p for p in (await service.state_of(game)).prompts if p.faction == A)
    await service.submit(game, USERS[A], ChooseTraitor(faction=A, leader=pick.options[0]), prompt_id=pick.id)
    assert "Table vote open: end the game now" in board_of(await drain_messages(service))
    await service.pause(game, True, by="mod")
    await service.override_vote(game, by="mod", did="paused the game")
    board = board_of(await drain_messages(service))
    assert PAUSED_WORDS in board and "Table vote" not in board


async def test_a_vote_a_hand_over_and_a_voted_pause_keep_on_the_sqlite_store(tmp_path):
    """The settings they keep (the vote, its answers, the former players, the voted pause) as SQLite stores them."""
    from bot.store.sqlite import SqliteGameStore

    clock = FakeClock(START)
    store = await SqliteGameStore.open(tmp_path / "mentat.db", clock=clock)
    try:
        service = GameService(store, clock=clock)
        row = await service.create_game(guild_id=1, channel_id=57, factions=[A, H, F], seed=7)
        for faction, user in USERS.items():
            await service.seat(row.game_id, faction, user)
        await service.start(row.game_id)
        vote = await service.open_vote(row.game_id, USERS[A], VoteKind.PAUSE, hours=5)
        await service.cast_vote(row.game_id, vote["number"], A, USERS[A], True)
        await service.hand_over(row.game_id, H, STRANGER, by="bob", caller=USERS[H])
        with pytest.raises(NotAllowed, match="is now played by"):
            await service.cast_vote(row.game_id, vote["number"], H, USERS[H], True)
        await service.cast_vote(row.game_id, vote["number"], H, STRANGER, True)
        await service.cast_vote(row.game_id, vote["number"], F, USERS[F], False)
        assert (await store.load_game(row.game_id)).status == GameStatus.PAUSED
        await service.tick(clock.at(5 * HOUR))
        assert (await store.load_game(row.game_id)).status == GameStatus.RUNNING
    finally:
        await store.close()


async def test_a_vote_that_passed_is_carried_out_once_even_after_a_crash_before_it_was(table, monkeypatch):  # noqa: F811
    """The vote's closing keeps what it decided until it is done: a bot that stops between the two (a crash, a
    restart) leaves it to the next tick, which carries it out once; later ticks do nothing more."""
    service, game, clock = table
    vote = await service.open_vote(game, USERS[A], VoteKind.PAUSE, hours=48)

    async def crash(game_id, vote):  # the process dies right after the vote closed, before carrying it out
        return None

    monkeypatch.setattr(service, "_carry_out_now", crash)
    await vote_all(service, game, vote["number"], {A: True, H: True, F: True})
    assert (await service.store.load_game(game)).status == GameStatus.RUNNING  # closed, not carried out yet
    told = [t for f, t in await drain(service) if f is None]
    assert any(t.startswith("**Table vote passed: pause the game") for t in told)

    restarted = GameService(service.store, clock=clock)  # a new process over the same store
    await restarted.tick(clock.at(1))
    row = await restarted.store.load_game(game)
    assert row.status == GameStatus.PAUSED and "table_vote_passed" not in row.settings
    told = [t for f, t in await drain(restarted) if f is None]
    assert sum("paused the game" in t for t in told) == 1
    await restarted.tick(clock.at(HOUR))  # nothing left to carry out: no second pause, no refusal told
    assert not [t for f, t in await drain(restarted) if f is None and ("paused" in t or "cannot be carried" in t)]



class Crash(Exception):
    """The process dies: nothing more is written."""


def dies_right_after_carrying_out_wrote(service, monkeypatch) -> None:
    """The process dies right after carrying out a vote made its first write: any later write of it fails. The
    store is the same afterwards (a new process finds what was written)."""
    carry_out, store = service._carry_out_now, service.store
    writes = ("set_settings", "set_status", "queue", "set_seat")

    async def carried_out_until_the_crash(game_id, vote):
        wrote = []

        def dying(write):
            async def once(*args, **kwargs):
                if wrote:
                    raise Crash
                wrote.append(await write(*args, **kwargs))
            return once

        for name in writes:
            setattr(store, name, dying(getattr(store, name)))
        try:
            await carry_out(game_id, vote)
        except Crash:
            pass
        finally:
            for name in writes:
                delattr(store, name)  # the store's own methods again
        assert wrote, "carrying out the vote wrote nothing"

    monkeypatch.setattr(service, "_carry_out_now", carried_out_until_the_crash)


async def test_a_crash_right_after_a_voted_extension_was_given_does_not_give_it_twice(table, monkeypatch):  # noqa: F811
    """What a vote decided and its being done are one write: a process that dies right after it gave the extension
    leaves nothing for the next tick to give again."""
    service, game, clock = table
    await service.set_deadline(game, None, DAY)
    vote = await service.open_vote(game, USERS[H], VoteKind.EXTEND, hours=12, faction=F)
    dies_right_after_carrying_out_wrote(service, monkeypatch)
    await vote_all(service, game, vote["number"], {A: True, H: True, F: True})

    restarted = GameService(service.store, clock=clock)  # a new process over the same store
    await restarted.tick(clock.at(HOUR))
    row = await restarted.store.load_game(game)
    assert "table_vote_passed" not in row.settings
    assert sum(row.settings["grace"].values()) == 12 * 3600  # given once
    told = [t for f, t in await drain(restarted) if f is None]
    assert sum(t.startswith("The table's vote gave Fremen 12 h more") for t in told) == 1
    assert not [t for t in told if "cannot be carried out" in t]


async def test_a_crash_right_after_a_voted_pause_began_still_ends_the_pause_at_its_cap(table, monkeypatch):  # noqa: F811
    """The voted pause and its end are one write: a process that dies right after pausing leaves a pause that
    still resumes by itself, not one only a moderator can end."""
    service, game, clock = table
    vote = await service.open_vote(game, USERS[H], VoteKind.PAUSE, hours=30)
    dies_right_after_carrying_out_wrote(service, monkeypatch)
    await vote_all(service, game, vote["number"], {A: True, H: True, F: True})

    restarted = GameService(service.store, clock=clock)
    await restarted.tick(clock.at(HOUR))
    assert (await restarted.store.load_game(game)).status == GameStatus.PAUSED
    told = [t for f, t in await drain(restarted) if f is None]
    assert sum("The table's vote paused the game" in t for t in told) == 1
    assert any(t.startswith("The game resumes by itself at <t:") for t in told)
    assert not [t for t in told if "cannot be carried out" in t]
    await restarted.tick(clock.at(30 * HOUR))
    row = await restarted.store.load_game(game)
    assert row.status == GameStatus.RUNNING and "table_pause" not in row.settings
