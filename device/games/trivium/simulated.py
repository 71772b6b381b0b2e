"""A random Trivium game as the table simulator's script (``camera.source = "simulator"``)."""

from __future__ import annotations


def simulated_script(game_config, seed: int) -> list:
    """The tercias laid and the discards of a bot game, as a camera would see them."""
    from engine.trivium import random_game, table_view
    from vision.simulator import Idle, Lay, Play

    script = [Idle(10)]
    for op in table_view(random_game(game_config.seat_names(), seed)):
        if op.kind == "lay_tercia":
            script += [Lay(op.seat + 1, tuple(op.cards)), Idle(10)]
        elif op.kind in ("draw_from_pozo", "take_from_olla"):
            script += [Play(op.seat + 1, op.discard), Idle(10)]  # the discard lands on the olla
    return script
