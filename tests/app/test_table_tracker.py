"""Each game's table gets the tracker it needs: Trivium's olla (each discard laid squarely on the
one before) needs the tracker to name a place that changed under no card seen again (``restack``);
French tarot's tricks, each card laid half over the ones before, a reported card nudged far named
again (``nudge_rename``) and a quad lying almost wholly on one card reported, named as another card,
taken for that card showing from under the new one (``from_under``). The device's tracker (``open_tracker``) and the demo's
(``table_tracker``) follow the same rule."""

from __future__ import annotations

from dataclasses import replace

from device.app.registry import FROM_UNDER, NUDGE_RENAME, game_for
from device.config import CameraConfig, Config, GameConfig
from device.demo.table import table_tracker
from device.hardware.from_config import open_tracker
from vision.tracker_settings import TrackerSettings


def test_only_the_game_with_a_discard_pile_turns_restack_on():
    assert game_for("trivium").tracker_changes() == {"restack": True}
    assert game_for("french-tarot").tracker_changes() == {"nudge_rename": NUDGE_RENAME, "from_under": FROM_UNDER}
    assert NUDGE_RENAME > 0 and 0.6 < FROM_UNDER < 1  # a card laid on a trick lies on a fifth to a half of one


def test_the_devices_tracker_follows_its_game():
    def tracker(kind: str):
        return open_tracker(Config(game=GameConfig(kind=kind, players=4), camera=CameraConfig(source="simulator")))

    assert tracker("trivium").settings.restack
    tarot = tracker("french-tarot").settings
    assert not tarot.restack and tarot.nudge_rename == NUDGE_RENAME and tarot.from_under == FROM_UNDER
    assert tracker("trivium").settings.from_under == 0  # the olla: each discard lies squarely on the one below
    # nothing else differs
    assert replace(tarot, restack=True, nudge_rename=0.0, from_under=0.0) == tracker("trivium").settings


def test_the_demos_tracker_follows_its_game_under_a_measurements_changes():
    trivium, tarot = game_for("trivium"), game_for("french-tarot")
    assert table_tracker(trivium, None) == {"restack": True}
    tarots = {"nudge_rename": NUDGE_RENAME, "from_under": FROM_UNDER}
    assert table_tracker(tarot, None) == tarots
    assert table_tracker(trivium, {"restack": False, "hand_clear": 0.1}) == {"restack": False, "hand_clear": 0.1}
    assert table_tracker(tarot, {"hand_clear": 0.1}) == {**tarots, "hand_clear": 0.1}
    assert table_tracker(tarot, {"nudge_rename": 0.0}) == {**tarots, "nudge_rename": 0.0}  # measured without it
    whole = TrackerSettings(outline=True)
    assert table_tracker(trivium, whole) is whole  # a whole TrackerSettings is measured as given
