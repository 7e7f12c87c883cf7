"""The facts on the decision cards of the battle round, the Bene Tleilaxu's decisions and the secret setup choices
(bot/app/decision_cards.py): which battle to fight, the prescience question and its answer, the Voice, the battle
plan, the traitor call, the BT's attack, mark, reveal window, the Karama window on a reveal, traps, gifts and a
trap's impairment, the Harkonnen's cards given back, the traitor pick and the Bene Gesserit prediction. Merged into
decision_cards.FACTS.

Each is built from the decider's own view (what they may know: the public battle, their own hand) and the prompt
(what the engine says is legal, and the public facts it names), in a few short lines.
"""

from __future__ import annotations

from bot.app.words import Facts, faction_words
from engine.data import load_game_data
from engine.factions.bt_bidding import BtTrapsAndGiftsDetails
from engine.factions.bt_reveal_karama import CANCEL, BtRevealKaramaDetails
from engine.factions.bt_traitors import NO, BtMarkDetails, BtRevealWindowDetails
from engine.factions.special_karama_powers import HandSwapDetails
from engine.flow import details_of
from engine.ids import CardCategory, Faction
from engine.model import Prompt, PromptKind
from engine.names import (
    agreeing,
    card_name,
    counted,
    faction_does,
    faction_possessive,
    listed,
    option_name,
    pronouns,
    the_faction,
)
from engine.phases.battle import (
    CALL,
    BattleChoiceDetails,
    BattlePlanDetails,
    PrescienceAnswerDetails,
    PrescienceDetails,
    TraitorCallDetails,
    VoiceDetails,
)
from engine.phases.battle_plans import NONE
from engine.phases.bt_attack import BtAttackDetails, BtImpairmentDetails
from engine.phases.setup import BgPredictionDetails, BtTrapsDetails
from engine.rules.board import locations_of
from engine.rules.combat import category
from engine.secrecy.views import PlayerView

ATTACK_CARDS = (CardCategory.PROJECTILE, CardCategory.POISON, CardCategory.LASGUN, CardCategory.WORTHLESS)


def _leader(leader_id: str, with_faction: bool = False) -> str:
    """"Feyd-Rautha (strength 6)", or "Feyd-Rautha (Harkonnen, strength 6)": a leader's strength (and faction) are
    public."""
    try:
        leader = load_game_data().leader(leader_id)
    except (KeyError, LookupError):
        return option_name(leader_id)
    return f"{leader.name} ({faction_words(leader.faction) + ', ' if with_faction else ''}strength {leader.strength})"


def _cards(ids: list[str]) -> str:
    return listed([card_name(c) for c in ids])


def _tokens_at(seen: PlayerView, locations: list[str], faction: Faction) -> str:
    """"5 tokens (2 of them Fedaykin)": a side's tokens where a battle is fought, elites counted (A-15)."""
    count = sum(seen.forces.get(loc, {}).get(faction, 0) for loc in locations)
    elites = sum(seen.elites.get(loc, {}).get(faction, 0) for loc in locations)
    return counted(count, 'token') + (f" ({elites} of them starred)" if elites else "")


def _battle(seen: PlayerView) -> list[str]:
    """The battle being fought: where, who attacks, both sides' tokens there and the leaders each may still play."""
    battle = seen.battle
    if battle is None:
        return []
    sides = (battle.aggressor, battle.defender)
    if battle.attack:
        attacked = battle.leaders.get(battle.defender, [])
        whose = pronouns(attacked[0]).possessive if len(attacked) == 1 else "the leader's"
        how = "The trap" if battle.attack == "trap" else "The Bene Tleilaxu"
        rule = "BT-32" if battle.attack == "trap" else "BT-11"
        attack = "attacks" if battle.attack == "trap" else "attack"
        return [f"{how} in {battle.territory} {attack} {listed([_leader(x) for x in attacked])} of the "
                f"{faction_words(battle.defender)} ({rule}): only {whose} life is at stake, and tokens only if a "
                "lasgun meets a shield (BT-12, BT-14)."]
    facts = [f"The battle in {battle.territory}: the {faction_words(battle.aggressor)} (the aggressor, who "
             f"{agreeing(battle.aggressor, 'win')} ties) "
             f"against the {faction_words(battle.defender)} (A-13).",
             "Tokens there: " + "; ".join(f"the {faction_words(s)} {_tokens_at(seen, battle.locations, s)}"
                                         for s in sides) + "."]
    for side in sides:
        if side != seen.viewer:
            leaders = [_leader(x) for x in battle.leaders.get(side, [])]
            facts.append(f"The {faction_words(side)} may lead with {listed(leaders)}, or with a cheap hero if they "
                         "hold one.")
    return facts


# --- the battle round's public decisions (A-13, A-26) ------------------------------------------------------


def _battle_choice(seen: PlayerView, prompt: Prompt) -> list[str]:
    facts = ["You are the aggressor: you fight your battles one after another, in the order you choose (A-13)."]
    places = details_of(prompt, BattleChoiceDetails).locations
    for option in prompt.options:
        territory, opponent = option.split("|")
        foe = Faction(opponent)
        locations = places.get(option, [])
        facts.append(f"{territory} against the {faction_words(foe)}: your {_tokens_at(seen, locations, prompt.faction)}"
                     f" against their {_tokens_at(seen, locations, foe)}.")
    return facts


def _hand_size(seen: PlayerView, faction: Faction) -> int:
    return next((f.hand_size for f in seen.factions if f.faction == faction), 0)


def _prescience(seen: PlayerView, prompt: Prompt) -> list[str]:
    target = details_of(prompt, PrescienceDetails).target
    asked = ", ".join(o for o in prompt.options if o != NONE)
    return [*_battle(seen),
            f"Prescience: ask the {faction_words(target)} for one element of their plan (one of: {asked}); they must "
            "answer truthfully, and their plan is then bound to that answer. Only you and they learn it.",
            f"{faction_does(target, 'hold', start=True)} {counted(_hand_size(seen, target), 'card')}."]


def _answer_words(element: str, option: str) -> str:
    if option == NONE:
        return f"no {element}"
    return option if element == "dial" else option_name(option)


def _prescience_answer(seen: PlayerView, prompt: Prompt) -> list[str]:
    element = details_of(prompt, PrescienceAnswerDetails).element
    return [*_battle(seen),
            f"The Atreides use prescience: they ask for your {element}. Answer truthfully with what you will play "
            "(the choices are what you can); your battle plan will then be bound to it, and only the Atreides learn "
            "it.",
            "Your possible answers: " + listed([_answer_words(element, o) for o in prompt.options]) + "."]


def _voice(seen: PlayerView, prompt: Prompt) -> list[str]:
    target = details_of(prompt, VoiceDetails).target
    return [*_battle(seen),
            f"The Voice: command the {faction_words(target)} to play, or not to play, a kind of card in their plan "
            "(a projectile or poison weapon, a lasgun, a shield, a snooper, a worthless card). They must obey if "
            "they can; a command they cannot obey binds nothing.",
            f"{faction_does(target, 'hold', start=True)} {counted(_hand_size(seen, target), 'card')}."]


# --- the battle plan (A-13, A-15, BT-12..BT-16, R-34) --------------------------------------------------------


def _binding(d: BattlePlanDetails) -> list[str]:
    """What binds this plan: the prescience answer the side gave, a Voice on it."""
    facts = []
    if d.prescience_answer is not None and d.prescience is not None:
        element = d.prescience
        facts.append(f"Bound by your prescience answer: your {element} is "
                     f"{_answer_words(element, d.prescience_answer)}.")
    if d.voice:
        command, kind = d.voice.split(":", 1)
        verb = "play" if command == "play" else "not play"
        facts.append(f"The Voice: you must {verb} a {kind}" + (" — you can, so the plan must obey it."
                                                             if d.voice_binds
                                                             else " — you cannot obey it, so it binds nothing."))
    return facts


def _attack_plan(seen: PlayerView, d: BattlePlanDetails) -> list[str]:
    if seen.viewer != Faction.BENE_TLEILAXU:
        return ["Name your leader and play a defense and/or a worthless card if you like (BT-12); your cards are "
                "kept if your leader lives (a worthless card is discarded) and lost if your leader dies (R-4, R-18)."]
    facts = ["Fill your weapon slot (R-34): a weapon kills unless the matching defense is played (a lasgun, or a "
             "Karama as a lasgun, kills through anything, BT-50); a kill earns you the leader's strength in spice "
             "(BT-15). "
             "You may add a worthless card as a defense. Your attack cards are discarded (R-4)."]
    if d.impairing:
        facts.append("A worthless card alone in the weapon slot impairs the leader's faction next turn instead: "
                     "no shipping or no moving; you name which with the plan (BT-16, R-17).")
    return facts


def _battle_plan(seen: PlayerView, prompt: Prompt) -> list[str]:
    d = details_of(prompt, BattlePlanDetails)
    facts = _battle(seen)
    if d.attack:
        facts += _attack_plan(seen, d)
    else:
        low, high = d.min_dial, d.max_dial
        starred = seen.battle is not None and any(seen.elites.get(loc, {}).get(prompt.faction)
                                                  for loc in seen.battle.locations)
        facts.append(f"Your dial: {low if low == high else f'{low} to {high}'}"
                     + (": you have no token to dial." if not high else
                                                      " (your tokens there, each starred one at its worth, A-15)."
                                                      if starred else " (your tokens there)."))
        if not d.may_play_cards:
            facts.append("You have no leader and no cheap hero: you fight with your dial alone and play no card "
                         "(A-13).")
        if d.kwisatz_haderach:
            facts.append("The Kwisatz Haderach may go beside your leader: +2, and no traitor can be called against "
                         "that leader (A-13, A-15).")
        if d.max_spice:
            facts.append(f"Advanced combat: each token dialed counts fully only if backed by 1 spice, else half; the "
                         f"spice is paid after the battle. You may back up to {d.max_spice} (A-15).")
    facts += _binding(d)
    if seen.own is not None:
        facts.append(f"Your spice: {seen.own.spice}. Your hand: {_cards(seen.own.hand)}.")
    return facts


def _traitor_call(seen: PlayerView, prompt: Prompt) -> list[str]:
    d = details_of(prompt, TraitorCallDetails)
    opponent = d.opponent
    leader = d.leader
    facts = [f"The plans in {d.territory} are revealed: {faction_does(opponent, 'are')} led by "
             + (f"{_leader(leader)}." if leader else "no leader (a cheap hero or nobody).")]
    if d.ally:
        facts.append(f"You answer for your ally the {faction_words(d.ally)}: the Harkonnen may use their "
                     "traitors in an ally's battle (A-26).")
    them = pronouns(leader) if leader else None
    if CALL in prompt.options and them is not None:
        facts.append(f"You hold {them.possessive} traitor card. Calling {them.object} wins the battle outright: your "
                     f"side loses nothing, {them.subject} dies, {faction_does(opponent, 'lose')} every token there "
                     f"and the cards played with {them.object}, and you receive {them.possessive} strength in spice "
                     "(A-13).")
    elif them is not None and d.kwisatz_haderach:
        facts.append(f"The Kwisatz Haderach is beside {them.object}: no traitor can be called against "
                     f"{them.object} (A-15).")
    else:
        facts.append("You hold no traitor card for the leader opposing you: there is nothing to call. Every side "
                     "is asked, so the table learns nothing from the question.")
    return facts


# --- the Bene Tleilaxu (BT-11..BT-50) -------------------------------------------------------------------------


def _bt_attack(seen: PlayerView, prompt: Prompt) -> list[str]:
    targets = details_of(prompt, BtAttackDetails).targets
    facts = ["After every battle of the round you may attack one leader who led tokens in a battle this round and "
             "survived, in that battle's territory (BT-11), once a round."]
    facts += [f"{_leader(leader, with_faction=True)} in {target.territory}." for leader, target in targets.items()]
    facts.append("The attack is fought like a battle with no dial and no traitors: your weapon against the "
                 "attacked leader's defense (BT-12); a kill earns you the leader's strength in spice (BT-15); "
                 "tokens are harmed only when a lasgun meets a shield (BT-14); your attack cards are discarded "
                 "(R-4).")
    if seen.own is not None:
        usable = [c for c in seen.own.hand if category(c) in ATTACK_CARDS or card_name(c) == "Karama"]
        facts.append(f"Your cards that can fill the weapon slot: {_cards(usable)}.")
    return facts


def _bt_mark(seen: PlayerView, prompt: Prompt) -> list[str]:
    d = details_of(prompt, BtMarkDetails)
    revived = [_leader(x) for x in d.revived]
    owner = d.owner
    facts = [f"Just revived from the tanks: {listed(revived)}" + (f" of the {faction_words(owner)}." if owner else ".")]
    if [o for o in prompt.options if o != NO]:
        facts.append(_mark_words(d.revived))
    else:
        facts.append("You already marked a leader this turn: one mark a turn (BT-20).")
    facts.append("This chance lasts until the next leader revival or the end of the turn, whichever comes first; "
                 "the game does not wait for it (BT-21).")
    return facts


def _mark_words(revived: list[str]) -> str:
    if len(revived) != 1:
        return ("Mark one of them as your secret traitor (BT-20): once that leader has won a territory for their "
                "faction you may reveal the betrayal, send the leader and those tokens to the tanks and take the "
                "territory (BT-23).")
    them = pronouns(revived[0])
    return (f"Mark {them.object} as your secret traitor (BT-20): once {them.subject} has won a territory for "
            f"{them.possessive} faction you may reveal {them.object}, send {them.object} and those tokens to the "
            "tanks and take the territory (BT-23).")


def _bt_reveal_window(seen: PlayerView, prompt: Prompt) -> list[str]:
    d = details_of(prompt, BtRevealWindowDetails)
    leader, owner = d.leader, d.owner
    facts = [f"{_leader(leader) if leader else 'A leader'} led the {faction_words(owner)} to win {d.territory}"
             ", outside a stronghold: a betrayal there must be revealed before the next battle starts, or never "
             "(R-7)."]
    if leader in prompt.options:
        facts.append("That leader is your traitor: revealing the betrayal now sends the leader and the faction's "
                     f"tokens there to the tanks, and you take control of {d.territory} (BT-23, BT-24).")
    else:
        facts.append("That leader is not your traitor: let the moment pass. The window opens after every such "
                     "victory, so it tells the table nothing.")
    return facts


TRAP_WORDS = ("A trap is a card from your hand laid face down on a stronghold, one trap a stronghold (BT-30). The "
              "first tokens shipped or moved into it (or placed there at setup) spring it and are frozen for the turn "
              "(BT-31, R-12); at the start of the next battle round the card attacks a random leader of that faction "
              "(BT-32): a weapon may kill that leader and earns you the leader's strength, a worthless card impairs "
              "the faction (BT-16), any other card does nothing (BT-33); a Karama kills the leader and every token "
              "there (BT-50).")


def _bt_traps(seen: PlayerView, prompt: Prompt) -> list[str]:
    return ["Before any faction places its starting tokens you may lay traps on any strongholds (BT-5).", TRAP_WORDS,
            f"Your hand: {_cards(details_of(prompt, BtTrapsDetails).hand)}."]


def _bt_traps_and_gifts(seen: PlayerView, prompt: Prompt) -> list[str]:
    d = details_of(prompt, BtTrapsAndGiftsDetails)
    facts = [f"Before the bidding, your hand: {_cards(d.hand)} (R-21)."]
    if d.traps and prompt.options:
        facts += [f"Traps now go on a stronghold you control or one with no tokens (R-11): {listed(prompt.options)}.",
                  TRAP_WORDS]
    if d.gifts and d.receivers:
        room = [f"the {faction_words(r)} {n}" for r, n in d.receivers.items()]
        facts.append("You may give cards to other players, never above their hand limit (BT-40): "
                     f"{listed(room)} more. Everyone sees that a card was given and to whom; only you and the "
                     "receiver know which.")
    return facts


def _bt_impairment(seen: PlayerView, prompt: Prompt) -> list[str]:
    d = details_of(prompt, BtImpairmentDetails)
    target = faction_words(d.target)
    return [f"Your worthless trap card in {d.territory} was revealed: choose what the {target} may "
            "not do next turn (BT-16, BT-33).",
            "No shipping bars every shipment of theirs (from the reserves, the Fremen's placement, the Guild's "
            "cross-shipping and shipping back); no moving bars every move of their tokens on the board (the move, "
            "any extra move a card gives, a worm ride) (R-17)."]


# --- the secret choices of the setup, and the Harkonnen's Karama (A-13, A-14, A-25) --------------------------


def _hand_swap(seen: PlayerView, prompt: Prompt) -> list[str]:
    d = details_of(prompt, HandSwapDetails)
    target = faction_words(d.target)
    return [f"You took the hand of the {target}: {_cards(d.taken)} (A-14).",
            f"Give back as many cards as you took, {d.count}, any of your hand of {len(prompt.options)}."]


def _traitor_pick(seen: PlayerView, prompt: Prompt) -> list[str]:
    return ["Your four candidates: " + listed([_leader(x, with_faction=True) for x in prompt.options]) + ".",
            "Keep one as your traitor, the others go back: when that leader leads tokens against you (or your ally, "
            "if you are the Harkonnen), reveal the traitor to win that battle outright and be paid the leader's "
            "strength (A-13)."]


def _bg_prediction(seen: PlayerView, prompt: Prompt) -> list[str]:
    return ["Predict, in secret, a faction and a turn: if that faction wins on that turn, by any win (its alliance's, "
            f"the end-of-game outcomes and the BT spice win included), you win alone instead (A-9, A-25). The game "
            f"lasts {details_of(prompt, BgPredictionDetails).turns} turns (A-10).",
            "The choices: " + listed([faction_words(o) for o in prompt.options]) + "."]


def _bt_reveal_karama(seen: PlayerView, prompt: Prompt) -> list[str]:
    """BT-51: the reveal is public; every faction but the BT is asked, whatever it holds."""
    d = details_of(prompt, BtRevealKaramaDetails)
    leader, betrayed = d.leader, d.betrayed
    them = pronouns(leader)
    territories = d.territories
    yours = seen.viewer == betrayed
    whose = "your" if yours else faction_possessive(betrayed)
    count = sum(seen.forces.get(location, {}).get(betrayed, 0) for t in territories for location in locations_of(t))
    facts = [f"The Bene Tleilaxu revealed {_leader(leader)}, who led {whose} tokens to win {listed(territories)}, as "
             f"their traitor (BT-23).",
             f"If the reveal stands, {them.subject} goes to the tanks with {whose} {counted(count, 'token')} there, "
             f"and the Bene Tleilaxu take control of {listed(territories)}, for no spice (BT-23, BT-24).",
             f"A Karama cancels it: {them.subject} stays with {'you' if yours else the_faction(betrayed)}, and so do "
             f"{'your' if yours else 'their'} tokens; the Bene Tleilaxu's mark on {them.object} is gone (BT-51, R-31)."]
    if CANCEL in prompt.options:
        facts.append("You hold a card you may play as Karama. If several factions cancel, one Karama is spent: that "
                     "of the first in storm order.")
    else:
        facts.append("You hold no card you may play as Karama: you can only let the reveal stand.")
    facts.append("Every faction but the Bene Tleilaxu is asked, whatever it holds, and answers in secret; you may "
                 "change your answer until every faction has answered. The game waits until then.")
    return facts


BATTLE_FACTS: dict[PromptKind, Facts] = {
    PromptKind.BATTLE_CHOICE: _battle_choice,
    PromptKind.PRESCIENCE: _prescience,
    PromptKind.PRESCIENCE_ANSWER: _prescience_answer,
    PromptKind.VOICE: _voice,
    PromptKind.BATTLE_PLAN: _battle_plan,
    PromptKind.TRAITOR_CALL: _traitor_call,
    PromptKind.BT_ATTACK: _bt_attack,
    PromptKind.BT_MARK: _bt_mark,
    PromptKind.BT_REVEAL_WINDOW: _bt_reveal_window,
    PromptKind.BT_REVEAL_KARAMA: _bt_reveal_karama,
    PromptKind.BT_TRAPS: _bt_traps,
    PromptKind.BT_TRAPS_AND_GIFTS: _bt_traps_and_gifts,
    PromptKind.BT_IMPAIRMENT: _bt_impairment,
    PromptKind.HAND_SWAP: _hand_swap,
    PromptKind.TRAITOR_PICK: _traitor_pick,
    PromptKind.BG_PREDICTION: _bg_prediction,
}
