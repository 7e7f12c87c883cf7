"""The special Treachery cards played outside battle plans (1979 rules: Treachery cards; base-game digest §5,
§9, §10; A-14 for Karama, which lives in engine/rules/karama.py).

- Weather Control and Family Atomics: played after the storm distance is known and before the storm moves
  (digest §5, BJ clarification 03). After turn 1, while either card is still in play (neither is in the
  public discard pile), the storm round opens a STORM WINDOW once both dials are in: every faction in the
  game gets a SECRET storm-cards prompt, whatever it holds, so being asked tells nothing. The answers stay
  secret until all are in; then Family Atomics resolves first, and the storm moves by the Weather Control
  number (0-10) instead of the dials. Hooked into engine/phases/storm.py. A faction's secret standing order
  "never" (`SetStormCardOrder`) answers its decision as soon as the window opens, as a click on "no card"
  would: the decision is still opened (every faction is asked), and the table reads the same answer.
- Hajr: one extra move in the faction's own movement turn (digest §10). Design: `PlayHajr` is accepted
  while that faction's MOVEMENT prompt is open (before it moves or skips); the card is played at once and,
  after that move (or skip), a second MOVEMENT prompt opens, checked by the same rules (storm, range, full
  strongholds, frozen tokens). The movement prompt shows no Hajr option, so its public shape leaks nothing;
  a client offers "play Hajr" to the faction that holds it (it knows its own hand). Hooked into
  engine/phases/movement.py through `MovementState.extra_moves`.
- Tleilaxu Ghola: at any time outside a battle in progress, one leader (whatever the all-five-dead rule of
  A-7 says) or 1 to 5 tokens from the faction's tanks, free, on top of normal revival (digest §9). A leader
  comes back through engine/phases/revival.py's `revive_leader`, where the BT hook BT-20.
- Truthtrance: at any time, the holder names another faction and asks a yes/no question (at most 300
  characters); that faction owes a public TRUTHTRANCE answer. The engine cannot judge free text: that the
  answer is true rests on the players, as at the table. A forced or expired answer is "no" (the card allows
  no refusal to answer), and the admin's forcing is itself announced (engine/rules/admin.py).

Every played card goes to the Treachery discard pile, with a public event naming the card and the player.
"""

from __future__ import annotations

from engine.actions import (
    Action,
    AnswerTruthtrance,
    PlayGhola,
    PlayHajr,
    PlayStormCards,
    PlayTruthtrance,
    SetStormCardOrder,
)
from engine.data import load_game_data
from engine.errors import RuleViolation, ViolationCode
from engine.events import BY_STANDING_ORDER, EventLog, EventType
from engine.factions.bt_impairments import check_not_impaired
from engine.flow import SAMPLERS, Details, default_for, details_for, handles, open_prompt, sampler_for, take_prompt
from engine.ids import Faction
from engine.model import GameState, Phase, Prompt, PromptKind, StormCardPlay
from engine.names import counted, faction_does, faction_name, leader_name
from engine.phases import movement as _movement  # noqa: F401  (its MOVEMENT sampler is wrapped below)
from engine.phases.revival import reopen_revival_prompt, revive_leader
from engine.rng import Rng
from engine.rules.board import locations_of, tokens_in_territory
from engine.rules.forces import destroy_every_token, revive_tokens, sweep
from engine.rules.order import storm_order

WEATHER_CONTROL, FAMILY_ATOMICS, HAJR, GHOLA = "weather_control", "family_atomics", "hajr", "tleilaxu_ghola"
RULE_STORM_CARDS = "1979 rules: Storm (Weather Control, Family Atomics)"
RULE_WC = "1979 rules: Weather Control"
RULE_FA = "1979 rules: Family Atomics"
RULE_HAJR = "1979 rules: Hajr"
RULE_GHOLA = "1979 rules: Tleilaxu Ghola"
RULE_TRUTHTRANCE = "1979 rules: Truthtrance"

STORM_CARDS_STEP = "storm_cards"  # the storm round's step while the window is open
PASS = "pass"
WC_RANGE = (0, 10)
GHOLA_TOKENS = 5
SHIELD_WALL = "Shield Wall"
QUESTION_LIMIT = 300
YES, NO = "yes", "no"


@details_for(PromptKind.STORM_CARDS)
class StormCardsDetails(Details):
    distance: int  # how far the storm will move unless a card changes it
    weather_control_range: tuple[int, int]


@details_for(PromptKind.TRUTHTRANCE)
class TruthtranceDetails(Details):
    asker: Faction
    question: str


def holds(state: GameState, faction: Faction, card: str) -> bool:
    return card in state.faction(faction).hand


def _require(state: GameState, faction: Faction, card: str, rule: str, name: str) -> None:
    if not holds(state, faction, card):
        raise RuleViolation(ViolationCode.NOT_ALLOWED, rule, f"You do not hold {name}.")


def play_card(state: GameState, faction: Faction, card: str) -> None:
    """The card leaves the hand for the Treachery discard pile (a played card is public)."""
    state.faction(faction).hand.remove(card)
    state.treachery_discard.append(card)


# --- the storm window: Weather Control and Family Atomics -------------------------------------


def storm_cards_in_play(state: GameState) -> bool:
    """Public knowledge: Weather Control is not in the discard pile, or Family Atomics is neither there nor
    removed from the game (where it goes once played)."""
    gone = state.treachery_discard + state.removed_cards
    return WEATHER_CONTROL not in gone or FAMILY_ATOMICS not in gone


def family_atomics_allowed(state: GameState, faction: Faction) -> bool:
    """Family Atomics: only by a faction with tokens on the Shield Wall or in a territory next to it."""
    board = load_game_data().board
    near = (SHIELD_WALL, *board.territory(SHIELD_WALL).adjacent)
    return any(tokens_in_territory(state, territory, faction) for territory in near)


def storm_card_options(state: GameState, faction: Faction) -> list[str]:
    """"pass" and the storm cards this faction can play now; only the faction itself sees them."""
    options = [PASS]
    if holds(state, faction, WEATHER_CONTROL):
        options.append(WEATHER_CONTROL)
    if holds(state, faction, FAMILY_ATOMICS) and not state.shield_wall_destroyed \
            and family_atomics_allowed(state, faction):
        options.append(FAMILY_ATOMICS)
    return options


def open_storm_window(state: GameState, distance: int, reason: str, log: EventLog) -> bool:
    """Called by the storm round once both dials are in: the distance is announced and, after turn 1 while
    a storm card is in play, every faction is asked in secret whether it plays one. True if it opened."""
    if state.turn <= 1 or not storm_cards_in_play(state):
        return False
    state.storm_card_plays = {}
    for faction in storm_order(state):
        open_prompt(state, PromptKind.STORM_CARDS, faction, secret=True,
                    options=storm_card_options(state, faction), distance=distance,
                    weather_control_range=list(WC_RANGE))
    # Card names stay out of this public message: someone may hold them (secret hands).
    log.public(EventType.STORM_CARDS_WINDOW, f"{reason} The storm will move {counted(distance, 'sector')}. Before it "
               "moves, every faction is asked in secret whether it plays a Treachery card on the storm.",
               distance=distance, dials={f.value: v for f, v in state.storm_dials.items()})
    for faction in storm_order(state):
        if state.faction(faction).never_storm_cards:
            _answer_by_order(state, faction, log)
    return True


def _answer_by_order(state: GameState, faction: Faction, log: EventLog) -> None:
    """The standing order "never" answers the faction's open storm-card decision as a click on "play no storm
    card" would: the same public words; only the owner reads that the order answered."""
    take_prompt(state, faction, PromptKind.STORM_CARDS, RULE_STORM_CARDS)
    _record_storm_answer(state, PlayStormCards(faction=faction), [], log, by_order=True)


@handles(PlayStormCards)
def play_storm_cards(state: GameState, action: PlayStormCards, log: EventLog) -> None:
    faction = action.faction
    prompt = take_prompt(state, faction, PromptKind.STORM_CARDS, RULE_STORM_CARDS)
    parts = []
    if action.weather_control is not None:
        _require(state, faction, WEATHER_CONTROL, RULE_WC, "Weather Control")
        low, high = WC_RANGE
        if not low <= action.weather_control <= high:
            raise RuleViolation(ViolationCode.ILLEGAL_CHOICE, RULE_WC,
                                f"Weather Control moves the storm {low} to {high} sectors, not "
                                f"{action.weather_control}.", [str(v) for v in range(low, high + 1)])
        parts.append(f"Weather Control (the storm moves {counted(action.weather_control, 'sector')})")
    if action.family_atomics:
        _require(state, faction, FAMILY_ATOMICS, RULE_FA, "Family Atomics")
        if state.shield_wall_destroyed:
            raise RuleViolation(ViolationCode.NOT_ALLOWED, RULE_FA,
                                "The Shield Wall is already destroyed; Family Atomics is removed from the game "
                                "once played.", prompt.options)
        if not family_atomics_allowed(state, faction):
            raise RuleViolation(ViolationCode.NOT_ALLOWED, RULE_FA,
                                "Family Atomics may be played only with tokens on the Shield Wall or in a "
                                "territory next to it.", prompt.options)
        parts.append("Family Atomics")
    _record_storm_answer(state, action, parts, log)


def _record_storm_answer(state: GameState, action: PlayStormCards, parts: list[str], log: EventLog,
                         by_order: bool = False) -> None:
    faction = action.faction
    if parts:
        state.storm_card_plays[faction] = StormCardPlay(weather_control=action.weather_control,
                                                        family_atomics=action.family_atomics)
        log.private(EventType.STORM_CARDS_CHOSEN,
                    faction, f"You will play {' and '.join(parts)} before the storm moves.",
                    weather_control=action.weather_control, family_atomics=action.family_atomics)
    else:
        words = "no card on the storm"
        log.private(EventType.STORM_CARDS_CHOSEN, faction,
                    f"{BY_STANDING_ORDER}, you play {words}." if by_order else f"You play {words}.")
    log.public(EventType.DECISION_MADE, f"{faction_does(faction, 'answered', start=True)}"
                                " about the storm.", faction=faction.value,
               kind=PromptKind.STORM_CARDS.value)


@handles(SetStormCardOrder)
def set_storm_card_order(state: GameState, action: SetStormCardOrder, log: EventLog) -> None:
    """A secret standing order, changed at any time: "never" answers every storm-card window for its owner as
    soon as it opens (this one too, if it is open and not yet answered); otherwise the owner is asked."""
    faction = action.faction
    state.faction(faction).never_storm_cards = action.never
    log.private(EventType.STORM_CARD_ORDER_SET, faction,
                "Your standing order: you play no storm card (Weather Control, Family Atomics) until you change it."
                if action.never else "Your standing order is cleared: you will be asked about storm cards.",
                never=action.never)
    if action.never and state.prompt_of(faction, PromptKind.STORM_CARDS) is not None:
        _answer_by_order(state, faction, log)


def close_storm_window(state: GameState, distance: int, reason: str, log: EventLog) -> tuple[int, str]:
    """Every faction answered: Family Atomics resolves first, then Weather Control sets the distance.
    Returns the distance the storm moves and the reason shown with the move."""
    plays, state.storm_card_plays = state.storm_card_plays, {}
    for faction, play in plays.items():
        if play.family_atomics and holds(state, faction, FAMILY_ATOMICS):
            _family_atomics(state, faction, log)
    for faction, play in plays.items():
        if play.weather_control is not None and holds(state, faction, WEATHER_CONTROL):
            play_card(state, faction, WEATHER_CONTROL)
            log.public(EventType.CARD_PLAYED,
                       f"{faction_does(faction, 'play', start=True)} Weather Control: the storm moves "
                       f"{counted(play.weather_control, 'sector')} instead of {distance}.", faction=faction.value,
                       card=WEATHER_CONTROL, distance=play.weather_control, dialed=distance)
            reason += f" {faction_does(faction, 'played', start=True)} Weather Control."
            distance = play.weather_control
    return distance, reason


def _family_atomics(state: GameState, faction: Faction, log: EventLog) -> None:
    """Every token on the Shield Wall goes to the tanks; from now on the storm reaches Imperial Basin,
    Arrakeen and Carthag (board.exposed_to_storm reads `shield_wall_destroyed`)."""
    state.faction(faction).hand.remove(FAMILY_ATOMICS)
    state.removed_cards.append(FAMILY_ATOMICS)  # the card says: removed from the game (never reshuffled)
    killed: dict[Faction, int] = {}
    advisors = 0
    for location in locations_of(SHIELD_WALL):
        tokens, advisors_here = destroy_every_token(state, location)  # co-existing advisors too
        for victim, count in tokens.items():
            killed[victim] = killed.get(victim, 0) + count
        advisors += advisors_here
    state.shield_wall_destroyed = True
    words = [f"{n} {faction_name(f)}" for f, n in killed.items()]
    if advisors:
        words.append(counted(advisors, "Bene Gesserit advisor"))
        killed[Faction.BENE_GESSERIT] = killed.get(Faction.BENE_GESSERIT, 0) + advisors
    losses = ", ".join(words) or "no"
    log.public(EventType.CARD_PLAYED, f"{faction_does(faction, 'play', start=True)}"
                              " Family Atomics: the Shield Wall is destroyed with "
               f"the tokens on it ({losses} to the tanks). From now on the storm reaches Imperial Basin, "
               "Arrakeen and Carthag.", faction=faction.value, card=FAMILY_ATOMICS,
               killed={f.value: n for f, n in killed.items()})
    _storm_catches_the_unprotected(state, log)


def _storm_catches_the_unprotected(state: GameState, log: EventLog) -> None:
    """Our reading (no rule text at hand): tokens and spice in the territories that have just lost their
    protection and lie in the sector the storm sits on are caught by it, as if it had stopped there (A-2).
    Nothing else can be there: nobody enters the storm and no spice blows into it."""
    sweep(state, {state.storm_sector}, log, note=", no longer protected")


@default_for(PromptKind.STORM_CARDS)
def _default_storm_cards(state: GameState, prompt: Prompt) -> PlayStormCards:
    return PlayStormCards(faction=prompt.faction)


@sampler_for(PromptKind.STORM_CARDS)
def _sample_storm_cards(state: GameState, prompt: Prompt, rng: Rng) -> PlayStormCards:
    """Automatic players play a storm card they can play one time in four. The same draws are made whatever
    the hand holds, so that automatic players' randomness depends on no secret, only their decisions do."""
    wc_roll, fa_roll, number = rng.below(4), rng.below(4), WC_RANGE[0] + rng.below(WC_RANGE[1] - WC_RANGE[0] + 1)
    wc = WEATHER_CONTROL in prompt.options and wc_roll == 0
    fa = FAMILY_ATOMICS in prompt.options and fa_roll == 0
    return PlayStormCards(faction=prompt.faction, weather_control=number if wc else None, family_atomics=fa)


# --- Hajr ------------------------------------------------------------------------------------


@handles(PlayHajr)
def play_hajr(state: GameState, action: PlayHajr, log: EventLog) -> None:
    """Hajr: one more move in the faction's own movement turn, after the one it is deciding now."""
    faction = action.faction
    check_not_impaired(state, faction, "no_moving")  # Hajr is a move
    _require(state, faction, HAJR, RULE_HAJR, "Hajr")
    deciding = state.prompt_of(faction, PromptKind.MOVEMENT) is not None
    m = state.movement
    if state.phase != Phase.MOVEMENT or m is None or not deciding or _movement.turn_faction(state) != faction:
        raise RuleViolation(ViolationCode.WRONG_PHASE, RULE_HAJR,
                            "Hajr is played in your own movement turn, while your move is being decided.")
    play_card(state, faction, HAJR)
    m.extra_moves += 1
    log.public(EventType.CARD_PLAYED,
               f"{faction_does(faction, 'play', start=True)} Hajr: after this move they move once more.",
               faction=faction.value, card=HAJR)


_sample_movement = SAMPLERS[PromptKind.MOVEMENT]


@sampler_for(PromptKind.MOVEMENT)
def _sample_move_or_hajr(state: GameState, prompt: Prompt, rng: Rng) -> Action:
    """Automatic players holding Hajr play it one time in four when asked to move; else a random move."""
    roll = rng.below(4)  # drawn whatever the hand holds (see _sample_storm_cards)
    if holds(state, prompt.faction, HAJR) and roll == 0:
        return PlayHajr(faction=prompt.faction)
    return _sample_movement(state, prompt, rng)


# --- Tleilaxu Ghola --------------------------------------------------------------------------


@handles(PlayGhola)
def play_ghola(state: GameState, action: PlayGhola, log: EventLog) -> None:
    """Tleilaxu Ghola (digest §9): one leader or up to 5 tokens from the tanks, free, beyond normal revival."""
    faction = action.faction
    fs = state.faction(faction)
    _require(state, faction, GHOLA, RULE_GHOLA, "the Tleilaxu Ghola")
    if state.battle is not None and state.battle.current is not None:
        raise RuleViolation(ViolationCode.WRONG_PHASE, RULE_GHOLA,
                            "The Tleilaxu Ghola cannot be played while a battle is being fought.")
    if (action.leader is None) == (action.tokens == 0):
        raise RuleViolation(ViolationCode.ILLEGAL_CHOICE, RULE_GHOLA,
                            f"The Tleilaxu Ghola revives either one leader or 1 to {GHOLA_TOKENS} tokens.")
    if action.leader is not None:
        if action.leader not in fs.leaders_in_tanks:
            raise RuleViolation(ViolationCode.ILLEGAL_CHOICE, RULE_GHOLA,
                                f"{action.leader!r} is not one of your leaders in the tanks.",
                                list(fs.leaders_in_tanks))
        play_card(state, faction, GHOLA)
        revive_leader(state, faction, action.leader, log, "ghola")
        what = leader_name(action.leader)
    else:
        if action.tokens > GHOLA_TOKENS or action.tokens > fs.tanks:
            raise RuleViolation(ViolationCode.ILLEGAL_CHOICE, RULE_GHOLA,
                                f"The Tleilaxu Ghola revives up to {GHOLA_TOKENS} tokens and you have {fs.tanks} "
                                f"in the tanks; not {action.tokens}.")
        play_card(state, faction, GHOLA)
        revive_tokens(state, faction, action.tokens)
        what = counted(action.tokens, "token")
    log.public(EventType.CARD_PLAYED, f"{faction_does(faction, 'play', start=True)}"
                              f" the Tleilaxu Ghola: {what} revived from the tanks, "
               "free.", faction=faction.value, card=GHOLA, leader=action.leader, tokens=action.tokens)
    reopen_revival_prompt(state, faction, log)  # what is left to revive changed


_sample_revival = SAMPLERS[PromptKind.REVIVAL]


@sampler_for(PromptKind.REVIVAL)
def _sample_ghola_or_revival(state: GameState, prompt: Prompt, rng: Rng) -> Action:
    """Automatic players holding the Ghola play it one time in three when asked to revive (something is in
    the tanks then): a leader when one is dead, else up to 5 tokens. The revival prompt stays open."""
    fs = state.faction(prompt.faction)
    roll, coin, tokens = rng.below(3), rng.below(2), 1 + rng.below(GHOLA_TOKENS)  # whatever the hand holds
    if holds(state, prompt.faction, GHOLA) and roll == 0:
        if fs.leaders_in_tanks and (not fs.tanks or coin):
            return PlayGhola(faction=prompt.faction, leader=fs.leaders_in_tanks[tokens % len(fs.leaders_in_tanks)])
        if fs.tanks:
            return PlayGhola(faction=prompt.faction, tokens=min(tokens, fs.tanks))
    return _sample_revival(state, prompt, rng)


# --- Truthtrance -----------------------------------------------------------------------------


def _truthtrance_in(hand: list[str]) -> str | None:
    data = load_game_data()
    return next((c for c in hand if data.card(c).name == "Truthtrance"), None)


@handles(PlayTruthtrance)
def play_truthtrance(state: GameState, action: PlayTruthtrance, log: EventLog) -> None:
    faction, target = action.faction, action.target
    card = _truthtrance_in(state.faction(faction).hand)
    if card is None:
        raise RuleViolation(ViolationCode.NOT_ALLOWED, RULE_TRUTHTRANCE, "You do not hold a Truthtrance.")
    if target == faction or not state.in_game(target):
        raise RuleViolation(ViolationCode.ILLEGAL_CHOICE, RULE_TRUTHTRANCE,
                            "Truthtrance names another faction in the game.",
                            [f.value for f in state.factions if f != faction])
    question = action.question.strip()
    if not question or len(question) > QUESTION_LIMIT:
        raise RuleViolation(ViolationCode.ILLEGAL_CHOICE, RULE_TRUTHTRANCE,
                            f"The question must have 1 to {QUESTION_LIMIT} characters, not {len(question)}.")
    if state.prompt_of(target, PromptKind.TRUTHTRANCE) is not None:
        raise RuleViolation(ViolationCode.NOT_ALLOWED, RULE_TRUTHTRANCE,
                            f"{faction_does(target, 'must', start=True)} first answer the Truthtrance question "
                            "already put to them.")
    play_card(state, faction, card)
    open_prompt(state, PromptKind.TRUTHTRANCE, target, secret=False, options=[YES, NO], asker=faction.value,
                question=question)
    log.public(EventType.CARD_PLAYED, f"{faction_does(faction, 'play', start=True)}"
                              f" Truthtrance: {faction_does(target, 'must')} answer yes "
               f"or no, truthfully: \u201c{question}\u201d", faction=faction.value, card=card, target=target.value,
               question=question)


@handles(AnswerTruthtrance)
def answer_truthtrance(state: GameState, action: AnswerTruthtrance, log: EventLog) -> None:
    prompt = take_prompt(state, action.faction, PromptKind.TRUTHTRANCE, RULE_TRUTHTRANCE)
    log.public(EventType.TRUTHTRANCE_ANSWERED,
               f"{faction_does(action.faction, 'answer', start=True)} the Truthtrance question "
               f"\u201c{prompt.detail['question']}\u201d: {action.answer}.", faction=action.faction.value,
               asker=prompt.detail["asker"], question=prompt.detail["question"], answer=action.answer)


@default_for(PromptKind.TRUTHTRANCE)
def _default_truthtrance(state: GameState, prompt: Prompt) -> AnswerTruthtrance:
    """"no": the card allows no refusal, so a forced answer must be yes or no (the forcing is announced)."""
    return AnswerTruthtrance(faction=prompt.faction, answer=NO)


@sampler_for(PromptKind.TRUTHTRANCE)
def _sample_truthtrance(state: GameState, prompt: Prompt, rng: Rng) -> AnswerTruthtrance:
    return AnswerTruthtrance(faction=prompt.faction, answer=rng.choice([YES, NO]))
