"""What each faction, and the table, may know. Nothing shown to anyone is built from the raw state."""

from __future__ import annotations

from pydantic import BaseModel

from engine.factions.bt_reveal_karama import set_aside_prompts
from engine.factions.bt_traitors import live_marks
from engine.ids import Faction
from engine.model import (
    AdvisorOrder,
    AllyRevivalOrder,
    BattlePlan,
    BidOrder,
    GameState,
    KaramaOrder,
    KwisatzHaderach,
    Phase,
    Prediction,
    Prompt,
    PromptKind,
    SpecialKaramaOrder,
    required,
)
from engine.options import GameOptions
from engine.phases.battle_plans import available_leaders
from engine.phases.movement import guild_timing_asked
from engine.phases.revival import revives_anything
from engine.rules.order import storm_order


class FactionPublic(BaseModel):
    faction: Faction
    dot: int | None
    reserves: int
    tanks: int
    leaders_in_tanks: list[str]
    hand_size: int
    bribes: int  # set openly before the shield until the end of the turn
    elites_in_tanks: int = 0  # Sardaukar or Fedaykin among the tokens in the tanks (starred, public)


class FactionSecrets(BaseModel):
    """What only this faction knows about itself."""

    spice: int
    hand: list[str]
    traitors: list[str]
    prediction: Prediction | None = None  # the Bene Gesserit only
    trap_cards: dict[str, str] = {}  # the BT only: stronghold -> card (BT-30)
    karama_orders: list[KaramaOrder] = []  # Karama cards readied against an advantage
    bid_order: BidOrder | None = None  # the standing bidding order
    pass_when_outbid: bool = False  # the standing order to pass on every bid beyond our own spice
    traitor_order: bool = False  # the standing order to call a traitor whenever one of ours leads against us
    never_storm_cards: bool = False  # the standing order to answer every storm-card window "no card"
    # Standing orders only some factions have (None for the others): revival (A-7; not the BT, BT-1), the Guild's
    # timing (A-15, with `character_advantages`), the Bene Gesserit's spiritual advisor.
    revive_free_tokens: bool | None = None
    guild_timing_in_storm_order: bool | None = None
    advisor_order: AdvisorOrder | None = None  # the Bene Gesserit only: the spiritual advisor's standing order
    nexus_done_at_once: bool = False  # the standing order to end one's part in each Nexus as it opens
    bt_marked: list[str] = []  # the BT only: leaders marked as BT traitors, alive (BT-20, BT-22)
    spice_win_order: bool | None = None  # the BT only: the standing order to declare a spice win (BT-27)
    ally_revival_order: AllyRevivalOrder | None = None  # the BT only: the standing order for allies' revival (BT-60)
    storm_forecast: int | None = None  # the Fremen only, with `weather`: next turn's storm distance
    special_karama_orders: list[SpecialKaramaOrder] = []  # a special power readied, not yet fired


class TrapPublic(BaseModel):
    stronghold: str
    triggered_by: Faction | None


class AwaitedDecision(BaseModel):
    """Whose decision the game waits on; the table sees the kind, never the choices."""

    prompt_id: str
    faction: Faction
    kind: PromptKind
    secret: bool
    since: int


class BattlePublic(BaseModel):
    """The battle being fought as the table knows it; plans appear only once both are revealed."""

    territory: str
    locations: list[str] = []  # where the two sides meet (the storm may split a territory)
    aggressor: Faction
    defender: Faction
    leaders: dict[Faction, list[str]] = {}  # the leaders each side may still lead with here (alive, not used elsewhere)
    attack: str | None = None  # a BT "leader" attack (BT-11) or a "trap" (BT-32): the BT against one leader
    step: str
    prescience_element: str | None
    voice: str | None
    revealed_plans: dict[Faction, BattlePlan] = {}


class PlayerView(BaseModel):
    viewer: Faction | None
    turn: int
    phase: Phase
    storm_sector: int
    turn_order: list[Faction]
    forces: dict[str, dict[Faction, int]]
    spice_on_board: dict[str, int]
    factions: list[FactionPublic]
    traps: list[TrapPublic]
    treachery_discard: list[str]
    spice_discard: list[str]
    awaiting: list[AwaitedDecision]
    winners: list[Faction]
    options: GameOptions = GameOptions()  # the game's options: public
    bg_advisors: dict[str, int] = {}  # co-existing Bene Gesserit advisors (public)
    spice_discard_b: list[str] = []  # A-15 `double_spice_blow`: discard pile B
    special_karama_used: list[Faction] = []  # factions whose special Karama power is spent
    bt_controlled: list[str] = []  # BT-24: territories the BT control without tokens (public)
    bt_open_spice: int = 0  # BT-27: the BT's declared spice, set in open view
    bt_declared_turn: int | None = None  # BT-27: the turn of the running declaration
    battle: BattlePublic | None = None
    # A-15 `character_advantages`, all public: starred tokens among the forces, the Kwisatz Haderach's state
    # (battle losses are seen by all), and leaders the Harkonnen hold captive (leader -> captor).
    elites: dict[str, dict[Faction, int]] = {}
    kwisatz_haderach: KwisatzHaderach | None = None
    captured: dict[str, Faction] = {}
    own: FactionSecrets | None = None
    own_prompts: list[Prompt] = []

    def tokens_on_board(self) -> dict[Faction, int]:
        """Each faction's tokens on the board, the Bene Gesserit's co-existing advisors among them (A-15): they are
        not fighters, but they are the Bene Gesserit's tokens all the same."""
        counts = {public.faction: 0 for public in self.factions}
        for here in self.forces.values():
            for faction, count in here.items():
                counts[faction] = counts.get(faction, 0) + count
        if self.bg_advisors:
            counts[Faction.BENE_GESSERIT] = counts.get(Faction.BENE_GESSERIT, 0) + sum(self.bg_advisors.values())
        return counts


def view(state: GameState, viewer: Faction | None) -> PlayerView:
    """The game as `viewer` may see it; `None` is the table (every public fact, no secret)."""
    own = own_prompts = None
    if viewer is not None and state.in_game(viewer):
        fs = state.faction(viewer)
        own = FactionSecrets(
            spice=fs.spice,
            hand=list(fs.hand),
            traitors=list(fs.traitors),
            prediction=state.bg_prediction if viewer == Faction.BENE_GESSERIT else None,
            trap_cards={s: t.card for s, t in state.traps.items()} if viewer == Faction.BENE_TLEILAXU else {},
            karama_orders=[o for o in state.karama_orders if o.faction == viewer],
            bid_order=fs.bid_order,
            pass_when_outbid=fs.pass_when_outbid,
            traitor_order=fs.auto_traitor,
            never_storm_cards=fs.never_storm_cards,
            nexus_done_at_once=fs.nexus_done_at_once,
            revive_free_tokens=fs.revive_free_tokens if revives_anything(viewer) else None,
            guild_timing_in_storm_order=(fs.guild_timing_in_storm_order
                                         if viewer == Faction.GUILD and guild_timing_asked(state) else None),
            advisor_order=fs.advisor_order if viewer == Faction.BENE_GESSERIT else None,
            bt_marked=live_marks(state) if viewer == Faction.BENE_TLEILAXU else [],
            spice_win_order=state.bt.declare_order if viewer == Faction.BENE_TLEILAXU and state.bt else None,
            ally_revival_order=state.bt.ally_revival_order if viewer == Faction.BENE_TLEILAXU and state.bt else None,
            storm_forecast=forecast(state) if viewer == Faction.FREMEN else None,
            special_karama_orders=[o for o in state.special_karama_orders if o.faction == viewer],
        )
        own_prompts = [p.model_copy(deep=True) for p in state.prompts_for(viewer)]
    return PlayerView(
        viewer=viewer,
        turn=state.turn,
        phase=state.phase,
        storm_sector=state.storm_sector,
        turn_order=storm_order(state),
        forces={loc: dict(here) for loc, here in state.forces.items()},
        spice_on_board=dict(state.spice_on_board),
        factions=[
            FactionPublic(
                faction=f, dot=fs.dot, reserves=fs.reserves, tanks=fs.tanks,
                leaders_in_tanks=list(fs.leaders_in_tanks), hand_size=len(fs.hand), bribes=fs.bribes,
                elites_in_tanks=fs.elite_tanks,
            )
            for f, fs in state.factions.items()
        ],
        traps=[TrapPublic(stronghold=s, triggered_by=t.triggered_by) for s, t in state.traps.items()],
        treachery_discard=list(state.treachery_discard),
        spice_discard=list(state.spice_discard),
        awaiting=[
            AwaitedDecision(prompt_id=p.id, faction=p.faction, kind=p.kind, secret=p.secret, since=p.opened_at)
            for p in state.prompts
        ],
        winners=list(state.winners),
        options=state.setup.options,
        bg_advisors=dict(state.bg_advisors),
        spice_discard_b=list(state.spice_discard_b),
        special_karama_used=list(state.special_karama_used),
        bt_controlled=list(state.bt.controlled) if state.bt else [],
        bt_open_spice=state.bt.open_spice if state.bt else 0,
        bt_declared_turn=state.bt.declared_turn if state.bt else None,
        battle=_battle_view(state),
        elites={loc: dict(here) for loc, here in state.elites.items()},
        kwisatz_haderach=state.kwisatz_haderach.model_copy() if state.setup.options.character_advantages else None,
        captured=dict(state.captured),
        own=own,
        own_prompts=own_prompts or [],
    )


def forecast(state: GameState) -> int | None:
    """A-15 `weather`: the distance of next turn's storm once both of its dials are in (the Fremen's secret)."""
    waiting = state.prompts + set_aside_prompts(state)  # BT-51: dials set aside while a Karama window is open
    dialing = any(p.kind == PromptKind.STORM_DIAL and p.detail.get("forecast") for p in waiting)
    return sum(state.storm_forecast.values()) if state.storm_forecast and not dialing else None


def _battle_view(state: GameState) -> BattlePublic | None:
    battle = state.battle.current if state.battle else None
    if battle is None:
        return None
    revealed = battle.step == "traitors"  # plans are shown together once both are in
    if battle.attack:  # BT-11, BT-32: the attacked leader alone; the BT have none
        leaders = {battle.defender: [required(battle.target_leader, "the attack's target")], battle.aggressor: []}
    else:
        sides = (battle.aggressor, battle.defender)
        leaders = {side: available_leaders(state, side, battle.territory) for side in sides}
    return BattlePublic(
        territory=battle.territory, locations=list(battle.locations), aggressor=battle.aggressor,
        defender=battle.defender, leaders=leaders, attack=battle.attack, step=battle.step,
        prescience_element=battle.prescience_element, voice=battle.voice,
        revealed_plans={f: p.model_copy() for f, p in battle.plans.items()} if revealed else {},
    )
