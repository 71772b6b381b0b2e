"""A random French tarot deal as the table simulator's script (``camera.source = "simulator"``)."""

from __future__ import annotations


def simulated_script(game_config, seed: int) -> list:
    """Every trick of a random legal deal, played and swept on the simulated table."""
    from engine.tarot import random_deal
    from vision.simulator import Trick, french_deal_script

    players = game_config.players
    truth = random_deal(players, seed)
    tricks = [Trick(t.leader + 1, tuple(t.cards), t.winner + 1) for t in truth.tricks]
    return french_deal_script(tricks, players=players)
