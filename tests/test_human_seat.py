"""The person's seat (``kierki_cli.human_seat.HumanSeat``) without a terminal: a scripted person reads what the seat
writes and types answers. Each request in plain words, refusals with their reason, the person's own deadline
(the referee plays its fallback when it passes), and whole games through the ordinary Match whose logs verify."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import cast

import msgspec
import pytest
from fake_transport import ScriptedBot

from kierki_cli.human_seat import HumanSeat
from kierki_cli.styled import Style
from protocol import codec
from protocol import messages as m
from referee.bots.pipe_results import Closed, Line, Timeout
from referee.bots.seat import Transport
from referee.bots.time_control import TimeControl
from referee.match import Match
from referee.match_config import BotSpec, MatchConfig, MatchSpec, RulesetSpec
from referee.replay.reader import load
from referee.replay.timeline import verify
from referee.rules import Ruleset


class Person:
    """Types the lines given, in order (None: lets the time run out); with ``auto``, then answers like a careful
    player from what the seat showed: the first legal card, the first three cards, no trump, 'others'."""

    def __init__(self, typed: list[str | None] | None = None, auto: bool = False) -> None:
        self.typed: Iterator[str | None] = iter(typed or [])
        self.auto = auto
        self.shown: list[str] = []
        self.reads = 0

    def write(self, text: str) -> None:
        self.shown.append(text)

    def read(self, seconds: float) -> str | None:
        assert seconds > 0
        self.reads += 1
        assert self.reads < 5000, "the person is asked again and again: " + "\n".join(self.shown[-5:])
        try:
            return next(self.typed)
        except StopIteration:
            if not self.auto:
                raise EOFError from None
        prompt = self.shown[-1]
        if "your card" in prompt:
            return next(line for line in reversed(self.shown) if line.startswith("legal:")).split()[1]
        if "cards to pass" in prompt:
            return "1 2 3"
        if prompt.startswith("trump"):
            return prompt.split("(")[1].split(";")[0].split(")")[0].split()[-1]  # the last choice offered
        return "others"


def _seat(person: Person, style: Style | None = None) -> HumanSeat:
    seat = HumanSeat(person.read, person.write, style or Style(), 600.0)
    seat.send(codec.encode(_hello()))
    assert isinstance(seat.read_line(0.0), Line)
    return seat


def _hello() -> m.HelloRequest:
    return m.HelloRequest(
        id=1,
        protocol=1,
        game="hearts",
        players=4,
        seat=0,
        options={},
        time=TimeControl().to_wire(),
        games=1,
    )


def _answer(seat: HumanSeat) -> m.BotMessage:
    line = seat.read_line(0.0)
    assert isinstance(line, Line), line
    return codec.decode_bot_line(line.data)


def _play_request(hand: tuple[str, ...], legal: tuple[str, ...], trick: tuple[tuple[int, str], ...]) -> m.PlayRequest:
    return m.PlayRequest(
        id=7,
        game_number=1,
        deal=1,
        kind="hearts",
        hand=hand,
        legal=legal,
        trump=None,
        trick=m.CurrentTrick(leader=trick[0][0], cards=tuple(m.TrickCard(seat=s, card=c) for s, c in trick))
        if trick
        else None,
        tricks=(m.CompletedTrick(number=1, leader=1, cards=(), winner=1),),
        lottery=None,
        scores=m.Scores(deal=(0, 5, 0, 0), total=(10, 0, 3, 0)),
        time_ms=1000,
    )


def test_a_card_by_number_or_name_and_refusals_with_the_reason() -> None:
    person = Person(["2c", "AS", "zz", "99", "10h"])
    seat = _seat(person)
    seat.send(codec.encode(_play_request(("2C", "TH", "3H", "KS"), ("TH", "3H"), ((1, "5H"),))))
    answer = _answer(seat)
    assert answer == m.PlayAnswer(id=7, card="TH")
    text = "\n".join(person.shown)
    assert "2C: you must follow suit (H) when you can; legal: 3H TH" in text  # as the hand shows them
    assert "legal: 3H TH" in person.shown
    assert "AS is not in your hand" in text
    assert "'zz' is not a card" in text and "'99' is not a card" in text
    hand = next(line for line in person.shown if line.startswith("your hand:"))
    assert hand == "your hand: 1:2C   2:3H* 3:TH*   4:KS"  # by suit, numbered, legal marked
    assert "on the table: 1:5H" in text and "totals:           you: +10  seat 1: 0  seat 2: +3" in text

    person.typed = iter(["2"])
    seat.send(codec.encode(_play_request(("2C", "KS"), ("2C", "KS"), ())))
    assert _answer(seat) == m.PlayAnswer(id=7, card="KS")


def test_every_card_is_shown_in_the_hands_style() -> None:
    """With symbols (a terminal, --symbols) the legal cards and the reasons show symbols like the hand."""
    person = Person(["2c", "AS", "2"])
    seat = _seat(person, Style(symbols=True))
    seat.send(codec.encode(_play_request(("2C", "TH", "3H", "KS"), ("TH", "3H"), ((1, "5H"),))))
    assert _answer(seat) == m.PlayAnswer(id=7, card="3H")
    assert "your hand: 1:2♣   2:3♥* 3:10♥*   4:K♠" in person.shown
    assert "legal: 3♥ 10♥" in person.shown
    assert "not allowed: 2♣: you must follow suit (♥) when you can; legal: 3♥ 10♥" in person.shown
    assert "not allowed: A♠ is not in your hand; legal: 3♥ 10♥" in person.shown
    assert "on the table: 1:5♥" in person.shown

    person.typed = iter(["QH 2C KS", "as ks 2c"])
    request = m.PassRequest(
        id=3, game_number=1, deal=1, direction="left", to=1, count=3, hand=("AS", "KS", "2C"), time_ms=9
    )
    seat.send(codec.encode(request))
    assert _answer(seat) == m.PassAnswer(id=3, cards=("AS", "KS", "2C"))
    assert "not allowed: Q♥ is not in your hand" in person.shown

    person.typed = iter(["S"])
    cards = ("AS", "TD")
    seat.send(codec.encode(m.TrumpRequest(id=4, game_number=1, deal=11, cards=cards, choices=("C", "S"), time_ms=9)))
    assert _answer(seat) == m.TrumpAnswer(id=4, suit="S")
    assert any("your first cards: 10♦ A♠" in line for line in person.shown)

    columns = m.LotteryColumns(C=("6C", "TC"), D=None, H=None, S=None)
    lottery = msgspec.structs.replace(
        _play_request(("9C", "TD"), ("9C",), ()), lottery=m.LotteryState(start_rank="8", columns=columns)
    )
    person.typed = iter(["1"])
    seat.send(codec.encode(lottery))
    assert _answer(seat) == m.PlayAnswer(id=7, card="9C")
    assert "columns: ♣: 6♣..10♣  ♦: -  ♥: -  ♠: -" in person.shown

    shown = "\n".join(person.shown)
    for letters in ("2C", "TH", "3H", "KS", "AS", "QH", "5H", "TD", "6C", "TC"):
        assert letters not in shown, letters
    colour = Person(["2c", "2"])
    seat = _seat(colour, Style(symbols=True, colour=True))
    seat.send(codec.encode(_play_request(("2C", "TH", "3H", "KS"), ("TH", "3H"), ((1, "5H"),))))
    assert _answer(seat) == m.PlayAnswer(id=7, card="3H")
    hand = next(line for line in colour.shown if line.startswith("your hand:"))
    legal = next(line for line in colour.shown if line.startswith("legal:"))
    assert "2:\x1b[31m3♥\x1b[0m* 3:\x1b[31m10♥\x1b[0m*" in hand  # red hearts in the hand and in the legal cards
    assert legal == "legal: \x1b[31m3♥\x1b[0m \x1b[31m10♥\x1b[0m"


def test_passes_trump_and_moon_in_plain_words() -> None:
    person = Person(["1 2", "AS AS AS", "AS 1 KS"])
    seat = _seat(person)
    hand = ("AS", "AS", "KS", "2C")  # Cancellation Hearts: two decks, a card may be held twice
    request = m.PassRequest(id=3, game_number=1, deal=1, direction="left", to=1, count=3, hand=hand, time_ms=9)
    seat.send(codec.encode(request))
    assert _answer(seat) == m.PassAnswer(id=3, cards=("AS", "2C", "KS"))
    text = "\n".join(person.shown)
    assert "pass 3 cards to your left (to seat 1)" in text and "type exactly 3 cards" in text
    assert "not allowed: AS is chosen 3 times but you hold it twice" in text

    person.typed = iter(["QH KS 2C", "4 4 1", "as as ks"])  # a pair may be passed by naming it twice
    seat.send(codec.encode(request))
    assert _answer(seat) == m.PassAnswer(id=3, cards=("AS", "AS", "KS"))
    assert "not allowed: QH is not in your hand" in person.shown
    assert "not allowed: the same card number twice (each number is one card of your hand)" in person.shown

    person.typed = iter(["hearts", "♠"])
    cards = ("AS", "KS", "2C", "3D", "4H")
    seat.send(
        codec.encode(m.TrumpRequest(id=4, game_number=1, deal=11, cards=cards, choices=("C", "D", "H", "S"), time_ms=9))
    )
    assert _answer(seat) == m.TrumpAnswer(id=4, suit="S")
    assert any("you name trump; your first cards: 2C 3D 4H KS AS" in line for line in person.shown)
    assert "not allowed: 'hearts' is not one of C D H S" in person.shown

    person.typed = iter(["maybe", "Others"])
    options = m.MoonOptions(self_=(-26, 0, 0, 0), others=(0, 26, 26, 26))
    seat.send(codec.encode(m.MoonRequest(id=5, game_number=1, deal=2, options=options, time_ms=9)))
    assert _answer(seat) == m.MoonAnswer(id=5, choice="others")
    assert any("'self':" in line and "you: -26" in line for line in person.shown)


def test_no_answer_in_time_and_the_end_of_input() -> None:
    person = Person([None])
    seat = _seat(person)
    seat.send(codec.encode(_play_request(("2C",), ("2C",), ())))
    assert isinstance(seat.read_line(0.0), Timeout)
    assert "no answer within 600 s" in person.shown[-1]
    seat.send(codec.encode(_play_request(("2C",), ("2C",), ())))
    assert isinstance(seat.read_line(0.0), Closed) and not seat.alive  # typed nothing more: EOF


def _match(tmp_path: Path, game: str, players: int | None, person: Person, options: dict[str, object]) -> Path:
    ruleset = Ruleset.create(game, players, options)
    human = HumanSeat(person.read, person.write, Style(), 600.0, "person")

    def transport(seat: int, spec: BotSpec) -> Transport:
        return human if seat == 0 else ScriptedBot()

    config = MatchConfig.from_spec(
        MatchSpec(rules=RulesetSpec.of(ruleset), bots=(BotSpec(("x",)),) * ruleset.players, seed="4"), tmp_path
    )
    result = Match(config, transport_factory=transport).run()
    return Path(result.replays[0])


@pytest.mark.parametrize(
    ("game", "players", "options"),
    [("hearts", None, {"target": 10}), ("kierki", None, {}), ("cancellation", 7, {"target": 10})],
)
def test_whole_games_through_the_match_verify(
    tmp_path: Path, game: str, players: int | None, options: dict[str, object]
) -> None:
    person = Person([None], auto=True)  # the first decision times out, then the person plays on
    log = _match(tmp_path, game, players, person, options)
    verified = verify(load(log))
    assert verified.decisions > 20
    text = log.read_text()
    assert text.count('"type":"fault"') == 1 and '"code":"timeout"' in text
    assert '"name":"person"' in text
    shown = "\n".join(person.shown)
    assert "game over: you are placed" in shown
    if game == "kierki":
        assert "you name trump" in shown and re.search(r"columns: C: ", shown)  # the trump deals, the loteryjka


def test_ctrl_c_in_kierki_play_exits_130_like_every_other_command(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from click.testing import CliRunner

    from kierki_cli.main import cli

    def interrupted(self: Match) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(Match, "run", interrupted)
    result = CliRunner().invoke(cli, ["play", "--game", "hearts", "--out", str(tmp_path / "out")], input="")
    assert result.exit_code == 130, result.output
    assert "stopped: the log so far is in" in result.stderr and "Error" not in result.output


def test_kierki_play_times_the_bots_with_time_per_move_and_the_person_with_your_time_per_move(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 31: ``--time-per-move`` was the person's deadline in ``play`` and the bots' everywhere else."""
    from click.testing import CliRunner

    import kierki_cli.play
    from kierki_cli.main import cli

    seen: dict[str, float] = {}

    def started(self: Match) -> None:
        seen["bots"] = self.config.spec.time.move_ms
        raise KeyboardInterrupt

    def person(*args: object) -> object:
        seen["yours"] = cast(float, args[3])  # (reader, writer, style, deadline in seconds, name)
        return object()

    monkeypatch.setattr(Match, "run", started)
    monkeypatch.setattr(kierki_cli.play, "HumanSeat", person)
    base = ["play", "--game", "hearts", "--out", str(tmp_path / "out")]
    plain = CliRunner().invoke(cli, base, input="")
    assert seen == {"bots": TimeControl().move_ms, "yours": 600.0} and "note: --" not in plain.stderr
    given = CliRunner().invoke(cli, [*base, "--time-per-move", "250", "--your-time-per-move", "9000"], input="")
    assert seen == {"bots": 250, "yours": 9.0} and "yours is --your-time-per-move" in given.stderr
    old = CliRunner().invoke(cli, [*base, "--bot-time-per-move", "300"], input="")
    assert seen["bots"] == 300 and "note: --bot-time-per-move is deprecated" in old.stderr
    both = CliRunner().invoke(cli, [*base, "--bot-time-per-move", "300", "--time-per-move", "5"], input="")
    assert both.exit_code == 2 and "give only the latter" in both.output
