"""Zone files: parsing, validation messages, lookup."""

import numpy as np
import pytest

from vision.simulator import TableLayout
from vision.zones import SAMPLES_DIR, ZoneFileError, default_zones, load_zones, parse_zones


def test_default_zones_cover_the_whole_frame_as_middle():
    zones = default_zones()
    assert zones.names == ("middle",)
    assert zones.zone_at(0, 0, 1280, 720).name == "middle"
    assert zones.zone_at(1279, 719, 1280, 720).name == "middle"


def test_rect_and_polygon_zones_first_match_wins():
    zones = parse_zones(
        """
        [[zone]]
        name = "middle"
        rect = [0.25, 0.25, 0.75, 0.75]
        [[zone]]
        name = "seat1"
        seat = 1
        polygon = [[0.0, 0.5], [1.0, 0.5], [1.0, 1.0], [0.0, 1.0]]
        """
    )
    assert zones.names == ("middle", "seat1")
    assert zones.zone_at(640, 400, 1280, 720).name == "middle"  # inside both: the first one
    assert zones.zone_at(100, 700, 1280, 720).name == "seat1"
    assert zones.zone_at(100, 100, 1280, 720) is None
    assert zones.seat_zone(1).name == "seat1"
    assert zones.seat_zone(2) is None


@pytest.mark.parametrize(
    "text, message",
    [
        ("", "no zones"),
        ("[[zone]]\nrect = [0, 0, 1, 1]\n", "'name' must be a non-empty string"),
        ('[[zone]]\nname = "m"\n', "exactly one of 'rect' or 'polygon'"),
        ('[[zone]]\nname = "m"\nrect = [0, 0, 1, 1]\npolygon = [[0,0],[1,0],[1,1]]\n', "exactly one"),
        ('[[zone]]\nname = "m"\nrect = [0.5, 0, 0.2, 1]\n', "x0 < x1"),
        ('[[zone]]\nname = "m"\nrect = [0, 0, 1.5, 1]\n', "outside 0..1"),
        ('[[zone]]\nname = "m"\nrect = [0, 0, "a", 1]\n', "expected a number"),
        ('[[zone]]\nname = "m"\npolygon = [[0, 0], [1, 1]]\n', "at least 3"),
        ('[[zone]]\nname = "m"\npolygon = [[0, 0], [0.5, 0.5], [1, 1]]\n', "no area"),
        ('[[zone]]\nname = "m"\nrect = [0, 0, 1, 1]\ncolour = "red"\n', "unknown key 'colour'"),
        ('[[zone]]\nname = "m"\nrect = [0, 0, 1, 1]\nseat = 0\n', "'seat' must be a whole number"),
        ('[[zone]]\nname = "m"\nrect = [0, 0, 1, 1]\n[[zone]]\nname = "m"\nrect = [0, 0, 1, 1]\n', "used twice"),
        ('zones = 3\n', "unknown key 'zones'"),
        ("[[zone]\n", "not valid TOML"),
    ],
)
def test_invalid_zone_files_say_what_is_wrong(text, message):
    with pytest.raises(ZoneFileError, match=message):
        parse_zones(text, "table.toml")


def test_error_names_the_file_and_the_zone(tmp_path):
    path = tmp_path / "bad.toml"
    path.write_text('[[zone]]\nname = "middle"\nrect = [0, 0, 2, 1]\n')
    with pytest.raises(ZoneFileError, match=r"bad\.toml: zone 'middle': rect: 2"):
        load_zones(path)


def test_missing_zone_file():
    with pytest.raises(ZoneFileError, match="zone file not found"):
        load_zones("/no/such/zones.toml")


@pytest.mark.parametrize("players, name", [(3, "three-seats"), (4, "four-seats"), (5, "five-seats")])
def test_sample_zone_files_match_the_simulated_table(players, name):
    zones = load_zones(SAMPLES_DIR / f"{name}.toml")
    layout = TableLayout(players)
    assert zones.names == layout.zones.names
    for mine, theirs in zip(zones, layout.zones):
        assert mine.seat == theirs.seat
        assert np.allclose(mine.polygon, theirs.polygon, atol=1e-3)


def test_zones_round_trip_through_toml():
    zones = TableLayout(5).zones
    again = parse_zones(zones.to_toml())
    assert again.names == zones.names
    assert [z.seat for z in again] == [z.seat for z in zones]
