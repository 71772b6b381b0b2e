"""A random French tarot deal as the table simulator's script (``camera.source = "simulator"``)."""

from __future__ import annotations


def simulated_deal(game_config, seed: int):
    """The random legal deal the simulated table plays, dealt by the configured dealer."""
    from engine.tarot import random_deal

    return random_deal(game_config.players, seed, dealer=game_config.dealer)


def simulated_script(game_config, seed: int) -> list:
    """A random legal deal on the simulated table: its chien shown (after a
    prise or a garde), then every trick played and swept. The loop holds the
    table while the players bid and confirm the écart."""
    from vision.simulator import Trick, french_deal_script

    truth = simulated_deal(game_config, seed)
    tricks = [Trick(t.leader + 1, tuple(t.cards), t.winner + 1) for t in truth.tricks]
    shows_chien = truth.contract in ("prise", "garde") and truth.chien
    return french_deal_script(tricks, players=game_config.players,
                              chien=tuple(truth.chien) if shows_chien else (),
                              taker=truth.taker + 1 if shows_chien else None)


def simulated_hint(game_config, seed: int) -> str:
    """The bids of the simulated deal, to enter with the keys to follow it."""
    truth = simulated_deal(game_config, seed)
    names = game_config.seat_names()
    bids = ", ".join(f"{names[seat]} {bid}" for seat, bid in truth.bids)
    return f"simulated table: the deal was bid {bids}; enter these bids to follow it (the table waits)"
