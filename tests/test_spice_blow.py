"""The spice blow (1979 rules VII): spice cards, the storm (A-19, A-27), turn 1 (A-20), Shai-Hulud (A-21), the Fremen
worm ride (A-28), the reshuffle, and the Nexus that follows a worm (A-8, A-21)."""

from __future__ import annotations

from collections import Counter

import pytest

from engine.actions import DialStorm, EndNexus, ForceDefault, RideWorm, UseKarama
from engine.checks.autoplay import play_until_stuck
from engine.data import load_game_data
from engine.errors import RuleViolation, ViolationCode
from engine.events import EventLog
from engine.flow import STEP_RUNNERS
from engine.game import apply
from engine.model import Phase, PromptKind
from engine.phases import spice_blow
from engine.rng import Rng
from engine.rules.economy import total_spice_outside_bank
from tests.conftest import ALL_SEVEN, BT, A, E, F, H, apply_all, enter_phase, prompt_of, snapshot
from tests.helpers.positions.spice_blow import (
    FUNERAL_PLAIN,
    GREAT_FLAT,
    HABBANYA_ERG,
    OLD_GAP,
    SH1,
    SH2,
    SH3,
    at_blow,
    base_game,
    fremen_in_great_flat,
)

DATA = load_game_data()
ALL_SPICE_CARDS = [c.id for c in DATA.spice_cards]
WORMS = [c.id for c in DATA.spice_cards if c.is_worm]


@pytest.fixture(autouse=True)
def _stop_after_the_blow(monkeypatch):
    """These tests look at the spice blow alone: the game stops when bidding begins."""
    monkeypatch.delitem(STEP_RUNNERS, Phase.BIDDING, raising=False)


def assert_cards_and_ledger(state):
    assert Counter(state.spice_deck + state.spice_discard) == Counter(ALL_SPICE_CARDS)
    assert total_spice_outside_bank(state) == state.spice_outside_bank
    for faction, fs in state.factions.items():
        on_board = sum(here.get(faction, 0) for here in state.forces.values())
        assert fs.reserves + on_board + fs.tanks == DATA.factions[faction].tokens_total


def end_nexus_for_all(state):
    for prompt in list(state.prompts):
        if prompt.kind == PromptKind.NEXUS:
            state, _ = apply(state, EndNexus(faction=prompt.faction))
    return state


# --- spice cards, the storm --------------------------------------------------------------------------------


def test_a_territory_card_places_its_amount_in_its_sector():
    """1979 rules VII: the card's spice goes to its sector; no worm, so no Nexus and the blow ends.
    1979 rules: Spice blow."""
    state, events = at_blow([GREAT_FLAT, OLD_GAP])
    assert state.spice_on_board == {"The Great Flat#14": 10}
    assert state.spice_discard[-1] == GREAT_FLAT and state.spice_deck[0] == OLD_GAP
    assert state.phase != Phase.SPICE_BLOW and state.nexus is None
    assert not [p for p in state.prompts if p.kind == PromptKind.NEXUS]
    blow = next(e for e in events if e.type == "spice_blow")
    assert blow.public and "10 spice in The Great Flat" in blow.message
    assert_cards_and_ledger(state)


def test_a_multi_sector_territory_gets_its_spice_in_the_card_sector():
    state, _ = at_blow([HABBANYA_ERG])
    assert state.spice_on_board == {"Habbanya Erg#15": 8}


def test_spice_adds_to_spice_already_there():
    state, _ = at_blow([GREAT_FLAT], spice=[("The Great Flat#14", 3)])
    assert state.spice_on_board == {"The Great Flat#14": 13}
    assert_cards_and_ledger(state)


def test_a_blow_in_the_storm_places_nothing_but_the_card_is_discarded_and_ends_the_blow():
    """A-19, A-27: the first territory card ends the blow even when its sector is in the storm."""
    state, events = at_blow([GREAT_FLAT, OLD_GAP], storm=14)
    assert state.spice_on_board == {}
    assert state.spice_discard == [GREAT_FLAT]
    assert state.spice_deck[0] == OLD_GAP
    assert state.phase != Phase.SPICE_BLOW
    assert any(e.type == "spice_blow_in_storm" and e.public and "A-19" in e.message for e in events)
    assert_cards_and_ledger(state)


def test_the_storm_in_another_sector_of_the_territory_does_not_stop_the_blow():
    """A-19 looks at the blow's sector only: Habbanya Erg blows in sector 15, the storm sits at 16."""
    state, _ = at_blow([HABBANYA_ERG], storm=16)
    assert state.spice_on_board == {"Habbanya Erg#15": 8}


# --- turn 1 (A-20) -------------------------------------------------------------------------------------------


def test_turn_one_worms_are_set_aside_and_shuffled_back_with_no_nexus():
    """A-20: no worm on turn 1: nothing is devoured, the worms go back into the deck, no Nexus."""
    state, events = at_blow([SH1, SH2, OLD_GAP], discard=[GREAT_FLAT], turn=1,
                            tokens=[("The Great Flat#14", A, 5)], spice=[("The Great Flat#14", 4)])
    assert state.tokens_at("The Great Flat#14", A) == 5
    assert state.spice_on_board == {"The Great Flat#14": 4, "Old Gap#9": 6}
    assert state.spice_discard == [GREAT_FLAT, OLD_GAP]
    assert SH1 in state.spice_deck and SH2 in state.spice_deck
    assert state.nexus is None and state.phase != Phase.SPICE_BLOW
    assert not any(e.type == "worm" for e in events)
    assert sum(e.type == "worm_set_aside" for e in events) == 2
    assert any(e.type == "worms_shuffled_back" for e in events)
    assert_cards_and_ledger(state)


def test_turn_one_worms_are_shuffled_back_into_the_deck_not_left_on_top():
    """A-20: the set-aside worms are shuffled in with state.rng, the same way on every replay."""
    tops = set()
    stacked = base_game(deck=[SH1, SH2, SH3, OLD_GAP])
    for seed_state in range(12):
        game = stacked.model_copy(update={"rng": Rng.from_seed(seed_state)})
        state, _ = at_blow(state=game, turn=1)
        again, _ = at_blow(state=game, turn=1)
        assert state.spice_deck == again.spice_deck
        tops.add(tuple(state.spice_deck[:3]))
    assert len(tops) > 1


# --- Shai-Hulud after turn 1 (A-21) --------------------------------------------------------------------------


def test_a_worm_devours_tokens_and_spice_in_the_whole_top_discard_territory():
    """A-21: every location of the territory of the top discard card; other territories are spared.
    1979 rules: Shai-Hulud."""
    state, events = at_blow(
        [SH1, OLD_GAP], discard=[HABBANYA_ERG],
        tokens=[("Habbanya Erg#15", A, 3), ("Habbanya Erg#16", H, 2), ("The Greater Flat#15", H, 4)],
        spice=[("Habbanya Erg#15", 8), ("Habbanya Erg#16", 2)],
    )
    assert state.tokens_at("Habbanya Erg#15", A) == 0 and state.tokens_at("Habbanya Erg#16", H) == 0
    assert state.faction(A).tanks == 3 and state.faction(H).tanks == 2
    assert state.tokens_at("The Greater Flat#15", H) == 4
    assert state.spice_on_board == {"Old Gap#9": 6}
    assert state.spice_discard == [HABBANYA_ERG, SH1, OLD_GAP]
    worm = next(e for e in events if e.type == "worm")
    assert worm.public and "Habbanya Erg" in worm.message
    assert_cards_and_ledger(state)


def test_the_worm_devours_the_topmost_territory_card_under_worms_already_discarded():
    """A-21: the top *territory* card of the discard pile, looking under Shai-Hulud cards."""
    state, _ = at_blow([SH1, OLD_GAP], discard=[FUNERAL_PLAIN, GREAT_FLAT, SH2],
                       tokens=[("The Great Flat#14", A, 3), ("Funeral Plain#14", H, 2)])
    assert state.tokens_at("The Great Flat#14", A) == 0
    assert state.tokens_at("Funeral Plain#14", H) == 2


def test_drawing_goes_on_after_a_worm_until_a_territory_card():
    """A-21: keep revealing until a territory card is placed."""
    state, _ = at_blow([SH1, SH2, SH3, FUNERAL_PLAIN, OLD_GAP], discard=[GREAT_FLAT])
    assert state.spice_on_board == {"Funeral Plain#14": 6}
    assert state.spice_discard == [GREAT_FLAT, SH1, SH2, SH3, FUNERAL_PLAIN]
    assert state.spice_deck[0] == OLD_GAP


def test_a_second_worm_in_the_same_blow_devours_nothing_more():
    """A-21: after the first worm, later worms of the blow devour nothing. A Karama readied against the Fremen's
    immunity between the two worms is therefore not spent, and the Fremen left in the territory survive."""
    game = base_game(deck=[SH1, SH2, OLD_GAP], treachery=["karama_1"])
    state, _ = at_blow(state=game, discard=[GREAT_FLAT], tokens=[("The Great Flat#14", F, 4)])
    assert prompt_of(state, F, PromptKind.WORM_RIDE)
    state, events = apply_all(
        state,
        UseKarama(faction=A, card="karama_1", against=F, advantage="worm_immunity"),
        RideWorm(faction=F),
    )
    assert state.tokens_at("The Great Flat#14", F) == 4
    assert "karama_1" in state.faction(A).hand and len(state.karama_orders) == 1
    assert sum(e.type == "worm_again" for e in events) == 1
    assert state.spice_discard == [GREAT_FLAT, SH1, SH2, OLD_GAP]


def test_a_worm_with_no_territory_card_in_the_discard_devours_nothing():
    """A-21, documented edge: with no territory card in the discard pile (as right after a reshuffle) the worm
    has no territory to devour; the blow goes on and a Nexus still follows."""
    state, events = at_blow([SH1, OLD_GAP], tokens=[("The Great Flat#14", A, 3)])
    assert state.tokens_at("The Great Flat#14", A) == 3
    assert any(e.type == "worm_nothing" for e in events)
    assert state.spice_on_board == {"Old Gap#9": 6}
    assert state.nexus is not None


def test_worms_strike_only_sand(monkeypatch):
    """A-21 with the board: rock, strongholds and the Polar Sink are protected (a discard pile naming a rock
    territory cannot occur with the real deck; the territory kind is checked all the same)."""
    state, _ = at_blow([OLD_GAP], tokens=[("Arrakeen#9", H, 2)])
    draft = state.model_copy(deep=True)
    log = EventLog()
    monkeypatch.setattr(spice_blow, "_top_territory", lambda s: "Arrakeen")
    spice_blow._devour(draft, SH1, log)
    assert draft.tokens_at("Arrakeen#9", H) == 2
    assert any(e.type == "worm_nothing" and "not sand" in e.message for e in log.items)


# --- the Fremen: immunity, Karama and the worm ride (A-14, A-28) --------------------------------------------------


def test_fremen_are_immune_and_are_offered_a_public_worm_ride():
    """1979 rules VII: Fremen tokens are spared by Shai-Hulud and may ride it (A-28)."""
    state, events = fremen_in_great_flat()
    assert state.tokens_at("The Great Flat#14", F) == 4
    assert state.tokens_at("The Great Flat#14", A) == 0
    prompt = prompt_of(state, F, PromptKind.WORM_RIDE)
    assert not prompt.secret and prompt.detail["tokens"] == 4
    assert not any(loc.startswith("The Great Flat") for loc in prompt.options)
    assert "Polar Sink" in prompt.options and "Arrakeen#9" in prompt.options
    # The blow waits on the Fremen: the next card is still in the deck.
    assert state.phase == Phase.SPICE_BLOW and state.spice_deck[0] == OLD_GAP
    assert any(e.type == "worm_ride_offered" and e.public for e in events)


def test_the_fremen_ride_the_worm_and_the_blow_goes_on():
    state, _ = fremen_in_great_flat()
    state, events = apply(state, RideWorm(faction=F, to_location="Red Chasm#6"))
    assert state.tokens_at("Red Chasm#6", F) == 4 and state.tokens_at("The Great Flat#14", F) == 0
    assert state.spice_on_board == {"Old Gap#9": 6}
    assert state.nexus is not None
    ridden = next(e for e in events if e.type == "worm_ridden")
    assert ridden.public
    assert ridden.message == "The Fremen ride Shai-Hulud: 4 tokens go from The Great Flat to Red Chasm."
    assert_cards_and_ledger(state)


def test_a_lone_fremen_token_rides_the_worm_and_the_table_reads_one_token():
    state, _ = at_blow(state=base_game(deck=(SH1, OLD_GAP)), discard=[GREAT_FLAT],
                       tokens=[("The Great Flat#14", F, 1)])
    state, events = apply(state, RideWorm(faction=F, to_location="Red Chasm#6"))
    ridden = next(e for e in events if e.type == "worm_ridden")
    assert ridden.message == "The Fremen ride Shai-Hulud: 1 token goes from The Great Flat to Red Chasm."


def test_the_fremen_may_stay_and_staying_is_the_default():
    state, _ = fremen_in_great_flat()
    prompt = prompt_of(state, F, PromptKind.WORM_RIDE)
    stayed, _ = apply(state, ForceDefault(admin="mod", reason="deadline", prompt_id=prompt.id))
    assert stayed.tokens_at("The Great Flat#14", F) == 4
    assert stayed.spice_on_board == {"Old Gap#9": 6}
    chosen, _ = apply(state, RideWorm(faction=F, to_location=None))
    assert snapshot(chosen.model_copy(update={"seq": 0})) == snapshot(stayed.model_copy(update={"seq": 0}))


@pytest.mark.parametrize(
    ("destination", "why"),
    [
        ("Habbanya Erg#15", "storm"),
        ("The Great Flat#14", "same territory"),
        ("Arrakeen#9", "stronghold with two other factions"),
        ("Red Chasm#6", "ally there"),
        ("Nowhere#3", "no such place"),
    ],
)
def test_illegal_worm_rides_are_refused_and_change_nothing(destination, why):
    """A-28 with digest section 6: not into the storm, not a stronghold holding two other factions, not beside an
    ally (allies share only the Polar Sink, digest section 13)."""
    state, _ = fremen_in_great_flat(storm=15, tokens=[("Arrakeen#9", H, 1), ("Red Chasm#6", E, 1)],
                                    alliances=[[E, F]])
    assert "Arrakeen#9" not in prompt_of(state, F, PromptKind.WORM_RIDE).options
    before = snapshot(state)
    with pytest.raises(RuleViolation) as refusal:
        apply(state, RideWorm(faction=F, to_location=destination))
    assert refusal.value.rule == "A-28" and refusal.value.code == ViolationCode.ILLEGAL_CHOICE
    assert snapshot(state) == before


def test_an_ally_in_the_polar_sink_does_not_stop_a_ride_there():
    state, _ = fremen_in_great_flat(tokens=[("Polar Sink", E, 1)], alliances=[[E, F]])
    state, _ = apply(state, RideWorm(faction=F, to_location="Polar Sink"))
    assert state.tokens_at("Polar Sink", F) == 4


def test_only_the_fremen_answer_the_worm_ride():
    state, _ = fremen_in_great_flat()
    with pytest.raises(RuleViolation) as refusal:
        apply(state, RideWorm(faction=A, to_location="Polar Sink"))
    assert refusal.value.code == ViolationCode.NOT_ALLOWED and refusal.value.rule == "A-28"


def test_fremen_under_the_storm_do_not_ride():
    """Digest section 6: no ride out of the storm; only the tokens in the territory's other sectors ride."""
    state, _ = at_blow([SH1, OLD_GAP], discard=[HABBANYA_ERG], storm=15,
                       tokens=[("Habbanya Erg#15", F, 2), ("Habbanya Erg#16", F, 3)])
    assert prompt_of(state, F, PromptKind.WORM_RIDE).detail["tokens"] == 3
    state, _ = apply(state, RideWorm(faction=F, to_location="Polar Sink"))
    assert state.tokens_at("Polar Sink", F) == 3 and state.tokens_at("Habbanya Erg#15", F) == 2


def test_no_ride_prompt_without_fremen_in_the_devoured_territory():
    state, _ = at_blow([SH1, OLD_GAP], discard=[GREAT_FLAT], tokens=[("The Great Flat#14", A, 2)])
    assert not [p for p in state.prompts if p.kind == PromptKind.WORM_RIDE]


def test_karama_cancels_the_fremen_immunity():
    """A-14: a Karama readied against worm immunity fires at the worm; the Fremen are devoured and cannot ride."""
    game = base_game(deck=[SH1, OLD_GAP], treachery=["karama_1"])
    game, _ = apply(game, UseKarama(faction=A, card="karama_1", against=F, advantage="worm_immunity"))
    state, events = at_blow(state=game, discard=[GREAT_FLAT], tokens=[("The Great Flat#14", F, 4)])
    assert state.tokens_at("The Great Flat#14", F) == 0 and state.faction(F).tanks == 4
    assert not [p for p in state.prompts if p.kind == PromptKind.WORM_RIDE]
    assert "karama_1" in state.treachery_discard and "karama_1" not in state.faction(A).hand
    assert any(e.type == "karama_played" and e.public for e in events)
    assert state.nexus is not None


def test_a_karama_against_worm_immunity_waits_while_no_fremen_are_devoured():
    """A-14: the advantage is used only when Fremen tokens are in the devoured territory."""
    game = base_game(deck=[SH1, OLD_GAP], treachery=["karama_1"])
    game, _ = apply(game, UseKarama(faction=A, card="karama_1", against=F, advantage="worm_immunity"))
    state, _ = at_blow(state=game, discard=[GREAT_FLAT], tokens=[("The Great Flat#14", A, 1)])
    assert len(state.karama_orders) == 1 and "karama_1" in state.faction(A).hand


# --- the Nexus follows a worm (A-8, A-21) ----------------------------------------------------------------------


def test_a_nexus_opens_after_a_blow_with_a_worm_and_ends_when_everyone_is_done():
    """1979 rules: Nexus: after a worm, alliances may be made and broken."""
    state, events = at_blow([SH1, OLD_GAP], discard=[GREAT_FLAT])
    nexus = [p for p in state.prompts if p.kind == PromptKind.NEXUS]
    assert {p.faction for p in nexus} == set(ALL_SEVEN)
    assert all(not p.secret for p in nexus)
    assert state.nexus is not None and state.phase == Phase.SPICE_BLOW
    assert any(e.type == "nexus_opened" and e.public for e in events)
    for faction in ALL_SEVEN[:-1]:
        state, _ = apply(state, EndNexus(faction=faction))
        assert state.phase == Phase.SPICE_BLOW
    state, events = apply(state, EndNexus(faction=ALL_SEVEN[-1]))
    assert state.nexus is None and state.phase != Phase.SPICE_BLOW
    assert any(e.type == "nexus_closed" for e in events)


def test_no_nexus_after_a_blow_without_a_worm():
    state, _ = at_blow([OLD_GAP, SH1])
    assert state.nexus is None and state.phase != Phase.SPICE_BLOW


def test_the_nexus_default_is_to_be_done():
    state, _ = at_blow([SH1, OLD_GAP], discard=[GREAT_FLAT])
    prompt = prompt_of(state, BT, PromptKind.NEXUS)
    state, _ = apply(state, ForceDefault(admin="mod", reason="deadline", prompt_id=prompt.id))
    assert not [p for p in state.prompts_for(BT) if p.kind == PromptKind.NEXUS]


# --- reshuffle: the blow always ends ---------------------------------------------------------------------------


def test_an_empty_deck_is_refilled_from_the_discard_pile():
    game = base_game()
    draft = game.model_copy(deep=True)
    draft.spice_discard, draft.spice_deck = list(draft.spice_deck), []
    state, events = enter_phase(draft, Phase.SPICE_BLOW, turn=2)
    assert any(e.type == "spice_deck_reshuffled" and e.public for e in events)
    assert 1 <= len(state.spice_discard) <= 1 + len(WORMS)
    assert_cards_and_ledger(state)


@pytest.mark.parametrize("seed", range(4))
def test_many_blows_in_a_row_always_end_and_keep_every_card_and_the_ledger(seed):
    """Property: 40 blows in a row (the deck runs out several times), answered by automatic players. Every blow
    ends with exactly one territory card drawn (A-27), cards are never lost or doubled, the ledger holds."""
    rng = Rng.from_seed(seed)
    game = base_game(factions=(A, F, H, E)).model_copy(update={"rng": Rng.from_seed(100 + seed)})
    reshuffles = 0
    for turn in range(1, 41):
        # Some Fremen and Atreides in sand, so worms have something to eat and the Fremen something to ride.
        draft = game.model_copy(deep=True)
        for faction in (F, A):
            if draft.faction(faction).reserves:
                draft.faction(faction).reserves -= 1
                draft.add_tokens(rng.choice(["The Great Flat#14", "Old Gap#9", "Red Chasm#6"]), faction, 1)
        territory_cards_before = len([c for c in draft.spice_discard if not DATA.spice_card(c).is_worm])
        state, events = enter_phase(draft, Phase.SPICE_BLOW, turn=turn, storm_sector=1 + turn % 18)
        state, _, more = play_until_stuck(state, rng, max_actions=500, while_=lambda s: s.phase == Phase.SPICE_BLOW)
        events += more
        assert state.phase != Phase.SPICE_BLOW, f"blow {turn} did not end"
        reshuffles += sum(e.type == "spice_deck_reshuffled" for e in events)
        territory_cards = [c for c in state.spice_discard if not DATA.spice_card(c).is_worm]
        if not any(e.type == "spice_deck_reshuffled" for e in events):
            assert len(territory_cards) == territory_cards_before + 1
        assert not DATA.spice_card(state.spice_discard[-1]).is_worm
        if turn == 1:
            assert not any(e.type == "worm" for e in events) and state.nexus is None
        assert_cards_and_ledger(state)
        game = state.model_copy(update={"prompts": []})
    assert reshuffles >= 2


def test_a_storm_dial_game_flows_through_the_turn_one_blow():
    """Played from the storm: the turn-1 blow needs no decision and hands over to bidding."""
    game = base_game(factions=(A, H, F), deck=[SH1, OLD_GAP])
    dialers = [p.faction for p in game.prompts if p.kind == PromptKind.STORM_DIAL]
    state, _ = apply_all(game, *(DialStorm(faction=f, value=0) for f in dialers))
    assert state.spice_on_board.get("Old Gap#9") == 6
    assert SH1 in state.spice_deck and state.phase not in (Phase.STORM, Phase.SPICE_BLOW)
