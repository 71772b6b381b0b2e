"""The worked checks, read from the rules reference itself (skipped without ../shared)."""

import re

import pytest

from engine.trivium.combinations import classify

SUITS = {"♠": "S", "♥": "H", "♦": "D", "♣": "C"}
COURTS = {"sota": "J", "caballo": "N", "reina": "Q", "rey": "K"}
ROMAN = {"I": 1, "V": 5, "X": 10}


def roman_value(text: str) -> int:
    total = 0
    for i, ch in enumerate(text):
        v = ROMAN[ch]
        total += -v if i + 1 < len(text) and ROMAN[text[i + 1]] > v else v
    return total


def code_of(name: str) -> str:
    """'10♣' -> C10, 'XV' -> T15, 'sota♥' -> HJ, 'Loco' -> EX."""
    name = name.strip()
    if name == "Loco":
        return "EX"
    if re.fullmatch(r"[IVX]+", name):
        return f"T{roman_value(name):02d}"
    suit = SUITS[name[-1]]
    rank = name[:-1]
    if rank in COURTS:
        return suit + COURTS[rank]
    return f"{suit}{int(rank):02d}"


def expected_combination(verdict: str) -> str | None:
    if verdict.startswith("not "):
        return None
    for name in ("gran cuadrivium", "gran maestre", "cuadrivium", "trivium", "tercia"):
        if verdict.startswith(name):
            return name.replace(" ", "_")
    raise AssertionError(f"unreadable verdict {verdict!r}")


def worked_checks(text: str):
    section = text.split("## Worked checks", 1)[1]
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) != 2 or cells[0] in ("cards", "") or set(cells[0]) <= {"-"}:
            continue
        cards, verdict = cells
        if "tercias laid" in cards:
            continue  # a game event, tested in test_trivium_game
        names = [n for part in cards.split("+") for n in part.split(",")]
        yield [code_of(n) for n in names], verdict


def test_every_worked_check_of_the_reference(shared_dir):
    text = (shared_dir / "rules" / "trivium.md").read_text(encoding="utf-8")
    checks = list(worked_checks(text))
    assert len(checks) >= 15
    for codes, verdict in checks:
        result = classify(codes)
        assert result.combination == expected_combination(verdict), (codes, verdict, result.reason)
        number = re.search(r"\((\d+)\)", verdict)
        if result.combination not in (None, "tercia") and number:
            assert result.points == int(number.group(1)), (codes, verdict)


@pytest.mark.parametrize("name, code", [("10♣", "C10"), ("XV", "T15"), ("XIX", "T19"), ("sota♥", "HJ"),
                                        ("Loco", "EX"), ("XXI", "T21"), ("rey♣", "CK"), ("1♠", "S01")])
def test_reading_card_names_of_the_reference(name, code):
    assert code_of(name) == code
