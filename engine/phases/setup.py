"""Setup (1979 rules, section III; BT-4, BT-5): dots, decks, cards, traitors, the BG prediction, traps,
starting tokens. Secret decisions are prompts; the table only learns that they were made."""

from __future__ import annotations

from engine.actions import ChooseTraitor, LayTraps, PlaceStartingTokens, PredictWinner
from engine.data import GameData, load_game_data
from engine.errors import InvalidSetup, RuleViolation, ViolationCode
from engine.events import EventLog, EventType
from engine.factions.bt_bidding import check_trap_cards, lay_trap
from engine.flow import Details, default_for, details_for, handles, open_prompt, runs_phase, sampler_for, take_prompt
from engine.ids import Faction
from engine.model import BtState, FactionState, GameState, Phase, Prediction, Prompt, PromptKind
from engine.names import card_name, faction_does, faction_name, leader_name, location_label, the_faction
from engine.options import GameSetup
from engine.phases.turn import start_phase
from engine.rng import Rng
from engine.rules.board import resolve_location
from engine.rules.forces import land

TRAITORS_DEALT = 4
SECRETS_STEP = "secrets"
PLACEMENT_STEP = "placement"


@details_for(PromptKind.TRAITOR_PICK)
class TraitorPickDetails(Details):
    """A-13: nothing beyond the options (the four candidates)."""


@details_for(PromptKind.BG_PREDICTION)
class BgPredictionDetails(Details):
    turns: int  # the game's last turn: the latest a prediction may name


@details_for(PromptKind.BT_TRAPS)
class BtTrapsDetails(Details):
    hand: list[str]  # BT-5: the cards a trap may be laid from


@details_for(PromptKind.STARTING_PLACEMENT)
class StartingPlacementDetails(Details):
    tokens: int  # how many tokens to place, split among the options


def create_state(setup: GameSetup, log: EventLog) -> GameState:
    """Build the state of a new game up to its first decisions."""
    data = load_game_data()
    _check_fixed_values(setup, data)
    rng = Rng.from_seed(setup.seed)
    dots = _assign_dots(setup, data, rng)
    state = GameState(
        setup=setup,
        storm_sector=setup.fixed.storm_sector or data.board.storm_start_sector,
        factions={
            f: FactionState(
                faction=f,
                dot=dots.get(f),
                spice=data.factions[f].starting_spice,
                reserves=data.factions[f].tokens_total,  # starting tokens leave reserves as placed
            )
            for f in setup.factions
        },
        treachery_deck=_stack([c.id for c in data.treachery_cards], setup.fixed.treachery_deck, rng),
        spice_deck=_stack([c.id for c in data.spice_cards], setup.fixed.spice_deck, rng),
        rng=rng,
        step=SECRETS_STEP,
        spice_outside_bank=sum(data.factions[f].starting_spice for f in setup.factions),
        bt=BtState() if setup.has_bt else None,
    )
    log.public(
        EventType.GAME_CREATED,
        "A game of Dune begins with " + ", ".join(faction_name(f) for f in setup.factions) + ".",
        factions=[f.value for f in setup.factions],
    )
    seated = sorted((fs.dot, faction_name(f)) for f, fs in state.factions.items() if fs.dot is not None)
    log.public(
        EventType.DOTS_ASSIGNED,
        "Player dots: " + ", ".join(f"{name} at sector {dot}" for dot, name in seated)
        + (". The Bene Tleilaxu have no dot and act last (BT-1, R-1)." if setup.has_bt else "."),
        dots={f.value: fs.dot for f, fs in state.factions.items()},
    )
    _deal_treachery_cards(state, data, log)
    _deal_traitors(state, data, log)
    if Faction.BENE_GESSERIT in state.factions:
        others = [f.value for f in setup.factions if f != Faction.BENE_GESSERIT]
        open_prompt(
            state, PromptKind.BG_PREDICTION, Faction.BENE_GESSERIT, secret=True, options=others,
            turns=setup.options.turns,
        )
    if setup.has_bt and setup.options.bt_traps:
        # BT-5: traps are laid before any faction places its starting tokens.
        open_prompt(
            state, PromptKind.BT_TRAPS, Faction.BENE_TLEILAXU, secret=True,
            options=list(data.board.strongholds), hand=list(state.faction(Faction.BENE_TLEILAXU).hand),
        )
    return state


def _check_fixed_values(setup: GameSetup, data: GameData) -> None:
    fixed = setup.fixed
    _check_stack("treachery_deck", fixed.treachery_deck, {c.id for c in data.treachery_cards})
    _check_stack("spice_deck", fixed.spice_deck, {c.id for c in data.spice_cards})
    in_play = set(data.traitor_deck(setup.factions))
    dealt: list[str] = []
    for faction, hand in fixed.traitor_hands.items():
        if faction == Faction.BENE_TLEILAXU:
            raise InvalidSetup("BT-1: the Bene Tleilaxu receive no traitor cards at setup")
        if len(hand) != TRAITORS_DEALT:
            raise InvalidSetup(f"a traitor hand has {TRAITORS_DEALT} cards; {faction.value} was given {len(hand)}")
        unknown = set(hand) - in_play
        if unknown:
            raise InvalidSetup(f"traitor cards not in this game's traitor deck: {sorted(unknown)}")
        dealt += hand
    if len(set(dealt)) != len(dealt):
        raise InvalidSetup("a traitor card is fixed in two hands")
    dot_factions = [f for f in setup.factions if data.factions[f].has_dot]
    for faction, sector in fixed.dots.items():
        if faction not in dot_factions:
            raise InvalidSetup(f"BT-1: {faction.value} has no player dot")
        if sector not in data.board.player_dot_sectors:
            raise InvalidSetup(f"no player dot at sector {sector}; dots are at {data.board.player_dot_sectors}")
    if len(set(fixed.dots.values())) != len(fixed.dots):
        raise InvalidSetup("two factions are fixed at the same dot")


def _check_stack(name: str, top: tuple[str, ...], known: set[str]) -> None:
    unknown = [c for c in top if c not in known]
    if unknown:
        raise InvalidSetup(f"{name} names unknown cards: {unknown}")
    if len(set(top)) != len(top):
        raise InvalidSetup(f"{name} lists a card twice")


def _stack(all_ids: list[str], top: tuple[str, ...], rng: Rng) -> list[str]:
    """The fixed cards on top in the given order, the rest shuffled beneath them."""
    rest = [c for c in all_ids if c not in top]
    rng.shuffle(rest)
    return list(top) + rest


def _assign_dots(setup: GameSetup, data: GameData, rng: Rng) -> dict[Faction, int]:
    """Players sit at random dots unless fixed (1979 setup; A-4 numbers the dot sectors)."""
    dots = dict(setup.fixed.dots)
    free = [s for s in data.board.player_dot_sectors if s not in dots.values()]
    rng.shuffle(free)
    for faction in setup.factions:
        if data.factions[faction].has_dot and faction not in dots:
            dots[faction] = free.pop()
    return dots


def _deal_treachery_cards(state: GameState, data: GameData, log: EventLog) -> None:
    """Each faction's starting Treachery cards (Harkonnen 2, BT 4 per BT-4, others 1)."""
    for faction, fs in state.factions.items():
        count = data.factions[faction].starting_treachery_cards
        fs.hand = [state.treachery_deck.pop(0) for _ in range(count)]
        log.private(
            EventType.CARDS_DEALT, faction,
            f"Your starting Treachery cards: {', '.join(card_name(c) for c in fs.hand)}.",
            cards=list(fs.hand),
        )
    log.public(
        EventType.STARTING_CARDS,
        "Starting Treachery cards dealt: "
        + ", ".join(f"{faction_name(f)} {len(fs.hand)}" for f, fs in state.factions.items()) + ".",
    )


def _deal_traitors(state: GameState, data: GameData, log: EventLog) -> None:
    """Four traitor cards to each faction from the leaders in play; Harkonnen keep all (BT-1: none to the BT)."""
    fixed = state.setup.fixed.traitor_hands
    deck = [t for t in data.traitor_deck(state.factions) if not any(t in hand for hand in fixed.values())]
    state.rng.shuffle(deck)
    for faction in state.factions:
        if data.factions[faction].traitors_kept == 0:
            continue
        hand = list(fixed.get(faction) or [deck.pop() for _ in range(TRAITORS_DEALT)])
        if data.factions[faction].traitors_kept >= len(hand):
            state.faction(faction).traitors = hand
            log.private(
                EventType.TRAITORS_KEPT, faction,
                f"Your traitors (you keep all {len(hand)}): {', '.join(leader_name(t) for t in hand)}.",
                traitors=hand,
            )
        else:
            open_prompt(state, PromptKind.TRAITOR_PICK, faction, secret=True, options=hand)
            log.private(
                EventType.TRAITORS_DEALT, faction,
                f"Choose one traitor to keep from: {', '.join(leader_name(t) for t in hand)}.",
                traitors=hand,
            )
    state.traitor_deck_unused = deck


@handles(ChooseTraitor)
def choose_traitor(state: GameState, action: ChooseTraitor, log: EventLog) -> None:
    prompt = take_prompt(state, action.faction, PromptKind.TRAITOR_PICK, "Setup: traitors")
    if action.leader not in prompt.options:
        raise RuleViolation(
            ViolationCode.ILLEGAL_CHOICE, "Setup: traitors",
            f"{leader_name(action.leader) if _known_leader(action.leader) else action.leader!r} "
            "is not one of the traitor cards you were dealt.",
            prompt.options,
        )
    state.faction(action.faction).traitors = [action.leader]
    state.traitor_deck_unused += [t for t in prompt.options if t != action.leader]
    log.private(EventType.TRAITOR_CHOSEN, action.faction, f"You keep {leader_name(action.leader)} as your traitor.",
                leader=action.leader)
    log.public(EventType.DECISION_MADE, f"{faction_does(action.faction, 'chose', start=True)}"
                                " a traitor.", faction=action.faction.value,
               kind=PromptKind.TRAITOR_PICK.value)


def _known_leader(leader_id: str) -> bool:
    try:
        load_game_data().leader(leader_id)
    except KeyError:
        return False
    return True


@handles(PredictWinner)
def predict_winner(state: GameState, action: PredictWinner, log: EventLog) -> None:
    prompt = take_prompt(state, action.faction, PromptKind.BG_PREDICTION, "Setup: Bene Gesserit prediction")
    if action.predicted.value not in prompt.options:
        raise RuleViolation(
            ViolationCode.ILLEGAL_CHOICE, "Setup: Bene Gesserit prediction",
            f"The prediction must name another faction in the game, not {action.predicted.value}.",
            prompt.options,
        )
    turns = prompt.detail["turns"]
    if not 1 <= action.turn <= turns:
        raise RuleViolation(
            ViolationCode.ILLEGAL_CHOICE, "Setup: Bene Gesserit prediction",
            f"The predicted turn must be between 1 and {turns}, not {action.turn}.",
        )
    state.bg_prediction = Prediction(faction=action.predicted, turn=action.turn)
    log.private(
        EventType.PREDICTION_MADE, Faction.BENE_GESSERIT,
        f"You predict that {the_faction(action.predicted)} will win on turn {action.turn}.",
        predicted=action.predicted.value, turn=action.turn,
    )
    log.public(EventType.DECISION_MADE, "The Bene Gesserit made their secret prediction.",
               faction=action.faction.value, kind=PromptKind.BG_PREDICTION.value)


@handles(LayTraps)
def lay_traps(state: GameState, action: LayTraps, log: EventLog) -> None:
    rule = "BT-30"
    prompt = take_prompt(state, action.faction, PromptKind.BT_TRAPS, "BT-5")
    for stronghold in action.traps:
        if stronghold not in prompt.options:
            raise RuleViolation(ViolationCode.ILLEGAL_CHOICE, rule,
                                f"Traps are laid on strongholds; {stronghold!r} is not one.", prompt.options)
    check_trap_cards(state.faction(action.faction).hand, list(action.traps.values()), rule)  # shared with R-11
    for stronghold, card in action.traps.items():
        lay_trap(state, stronghold, card)
    laid = sorted(action.traps)
    log.private(
        EventType.TRAPS_LAID, action.faction,
        "Your traps: " + (", ".join(f"{card_name(action.traps[s])} on {s}" for s in laid) or "none") + ".",
        traps=dict(action.traps),
    )
    log.public(
        EventType.TRAPS_LAID,
        (f"The Bene Tleilaxu lay {'a face-down trap' if len(laid) == 1 else 'face-down traps'} on "
         + ", ".join(laid) + ".") if laid
        else "The Bene Tleilaxu lay no traps.",
        strongholds=laid,
    )


@handles(PlaceStartingTokens)
def place_starting_tokens(state: GameState, action: PlaceStartingTokens, log: EventLog) -> None:
    rule = "Setup: starting tokens"
    prompt = take_prompt(state, action.faction, PromptKind.STARTING_PLACEMENT, rule)
    board = load_game_data().board
    total = prompt.detail["tokens"]
    placed: dict[str, int] = {}
    for where, count in action.placement.items():
        location = resolve_location(where, rule)
        if board.location_territory(location) not in prompt.options:
            raise RuleViolation(ViolationCode.ILLEGAL_CHOICE, rule,
                                f"{faction_does(action.faction, 'may', start=True)} not start in {where}.",
                                prompt.options)
        if count < 0:
            raise RuleViolation(ViolationCode.ILLEGAL_CHOICE, rule, "Token counts cannot be negative.")
        if count:
            placed[location] = placed.get(location, 0) + count
    if sum(placed.values()) != total:
        raise RuleViolation(ViolationCode.ILLEGAL_CHOICE, rule,
                            f"Place exactly {total} tokens; this places {sum(placed.values())}.")
    for location, count in placed.items():
        _put_on_board(state, action.faction, location, count, log)
    log.public(
        EventType.STARTING_TOKENS_PLACED,
        f"{faction_does(action.faction, 'start', start=True)} with "
        + ", ".join(f"{n} in {location_label(loc)}" for loc, n in placed.items()) + ".",
        faction=action.faction.value, placement=placed,
    )


def _put_on_board(state: GameState, faction: Faction, location: str, count: int, log: EventLog) -> None:
    state.faction(faction).reserves -= count
    land(state, faction, location, count, log)  # placing at setup springs a trap too


@runs_phase(Phase.SETUP)
def continue_setup(state: GameState, log: EventLog) -> bool:
    data = load_game_data()
    if state.step == SECRETS_STEP:
        state.step = PLACEMENT_STEP
        _place_fixed_starting_tokens(state, data, log)
        return True
    if state.step == PLACEMENT_STEP:
        state.turn = 1
        log.public(EventType.SETUP_COMPLETE, "Setup is complete. Turn 1 begins with the storm.",
                   storm_sector=state.storm_sector)
        start_phase(state, Phase.STORM, log)
        return True
    return False


def _place_fixed_starting_tokens(state: GameState, data: GameData, log: EventLog) -> None:
    for faction in state.factions:
        fd = data.factions[faction]
        bg_chooses = faction == Faction.BENE_GESSERIT and state.setup.options.character_advantages
        if fd.start_choice is not None:
            open_prompt(state, PromptKind.STARTING_PLACEMENT, faction, secret=False,
                        options=list(fd.start_choice.territories), tokens=fd.start_choice.tokens)
        elif bg_chooses:
            # Optional rule (A-15 character advantages): the BG starting token may go anywhere.
            tokens = sum(fd.start_on_board.values())
            open_prompt(state, PromptKind.STARTING_PLACEMENT, faction, secret=False,
                        options=list(data.board.territories), tokens=tokens)
        else:
            for territory, count in fd.start_on_board.items():
                _put_on_board(state, faction, data.board.default_location(territory), count, log)
            if fd.start_on_board:
                log.public(
                    EventType.STARTING_TOKENS_PLACED,
                    f"{faction_does(faction, 'start', start=True)} with "
                    + ", ".join(f"{n} in {t}" for t, n in fd.start_on_board.items()) + ".",
                    faction=faction.value, placement=dict(fd.start_on_board),
                )


# --- defaults used when a prompt is forced or expires ----------------------------------------


@default_for(PromptKind.TRAITOR_PICK)
def _default_traitor(state: GameState, prompt: Prompt) -> ChooseTraitor:
    """Keep the strongest leader of another faction (a traitor of one's own leader is useless)."""
    data = load_game_data()

    def worth(leader_id: str) -> tuple[bool, int]:
        leader = data.leader(leader_id)
        return (leader.faction != prompt.faction, leader.strength)

    best = max(prompt.options, key=worth)  # max keeps the first of equals: deal order decides
    return ChooseTraitor(faction=prompt.faction, leader=best)


@default_for(PromptKind.BG_PREDICTION)
def _default_prediction(state: GameState, prompt: Prompt) -> PredictWinner:
    """A random prediction, drawn from a generator derived from the game's own and the prompt (the game's own
    is not drawn from: the default must leave the state as it is)."""
    rng = state.rng.derived(prompt.id)
    predicted = Faction(rng.choice(prompt.options))
    return PredictWinner(faction=prompt.faction, predicted=predicted, turn=1 + rng.below(prompt.detail["turns"]))


@default_for(PromptKind.BT_TRAPS)
def _default_traps(state: GameState, prompt: Prompt) -> LayTraps:
    return LayTraps(faction=prompt.faction)


@default_for(PromptKind.STARTING_PLACEMENT)
def _default_placement(state: GameState, prompt: Prompt) -> PlaceStartingTokens:
    """Everything in the first allowed territory (Sietch Tabr for the Fremen)."""
    board = load_game_data().board
    first = prompt.options[0] if prompt.faction == Faction.FREMEN else "Polar Sink"
    return PlaceStartingTokens(
        faction=prompt.faction,
        placement={board.default_location(first): prompt.detail["tokens"]},
    )


# --- random legal answers, for automatic players ---------------------------------------------


@sampler_for(PromptKind.TRAITOR_PICK)
def _sample_traitor(state: GameState, prompt: Prompt, rng: Rng) -> ChooseTraitor:
    return ChooseTraitor(faction=prompt.faction, leader=rng.choice(prompt.options))


@sampler_for(PromptKind.BG_PREDICTION)
def _sample_prediction(state: GameState, prompt: Prompt, rng: Rng) -> PredictWinner:
    predicted = Faction(rng.choice(prompt.options))
    return PredictWinner(faction=prompt.faction, predicted=predicted, turn=1 + rng.below(prompt.detail["turns"]))


@sampler_for(PromptKind.BT_TRAPS)
def _sample_traps(state: GameState, prompt: Prompt, rng: Rng) -> LayTraps:
    hand = list(prompt.detail["hand"])
    strongholds = list(prompt.options)
    rng.shuffle(hand)
    rng.shuffle(strongholds)
    count = rng.below(min(len(hand), len(strongholds)) + 1)
    return LayTraps(faction=prompt.faction, traps=dict(zip(strongholds[:count], hand[:count], strict=True)))


@sampler_for(PromptKind.STARTING_PLACEMENT)
def _sample_placement(state: GameState, prompt: Prompt, rng: Rng) -> PlaceStartingTokens:
    board = load_game_data().board
    placement: dict[str, int] = {}
    for _ in range(prompt.detail["tokens"]):
        location = rng.choice(board.territory(rng.choice(prompt.options)).locations)
        placement[location] = placement.get(location, 0) + 1
    return PlaceStartingTokens(faction=prompt.faction, placement=placement)
