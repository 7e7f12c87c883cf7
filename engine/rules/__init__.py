"""Rules that span the phases: the board, forces, spice, hands, storm order, combat, cards, Karama, alliances,
any-time actions, admin corrections, refusals."""
