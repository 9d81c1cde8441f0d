"""The sample bots, driven over a real pipe with scripted referee lines that follow PROTOCOL.md.

Each bot runs as a subprocess; the tests check that every request gets exactly one valid, legal answer with the
right id, that events and unknown message types get none, that the bots exit 0 on bye and on end of input, and
that the heuristic bot makes the few decisions its docstring promises.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

Message = dict[str, Any]
Session = list[tuple[Message, Any]]  # (message, what the heuristic bot should answer, or None)

BOTS_DIR = Path(__file__).resolve().parent.parent / "sample_bots"
RANDOM_BOT = BOTS_DIR / "random_bot.py"
HEURISTIC_BOT = BOTS_DIR / "heuristic_bot.py"
BOTS = [RANDOM_BOT, HEURISTIC_BOT]
TIMEOUT = 30
TIME = {"move_ms": 1000, "startup_ms": 5000, "bank_ms": 10000, "increment_ms": 100}


# ---------------------------------------------------------------- message builders


def cards(text: str) -> list[str]:
    """cards("QS 2H") -> ["QS", "2H"]: keeps the scripted hands readable."""
    return text.split()


def hello(id_: int, game: str, players: int, seat: int, **options: object) -> Message:
    return {
        "type": "hello",
        "id": id_,
        "protocol": 2,
        "game": game,
        "players": players,
        "seat": seat,
        "options": options,
        "time": TIME,
        "games": 1,
    }


def trick(leader: int, cards: list[str], players: int, number: int | None = None, winner: int | None = None) -> Message:
    entries = [{"seat": (leader + i) % players, "card": c} for i, c in enumerate(cards)]
    if number is None:
        return {"leader": leader, "cards": entries}
    return {"number": number, "leader": leader, "cards": entries, "winner": winner}


def play(
    id_: int,
    kind: str,
    hand: list[str],
    legal: list[str] | None = None,
    current: Message | None = None,
    tricks: Sequence[Message] = (),
    trump: str | None = None,
    lottery: Message | None = None,
    players: int = 4,
    deal: int = 1,
) -> Message:
    return {
        "type": "play",
        "id": id_,
        "game_number": 1,
        "deal": deal,
        "kind": kind,
        "hand": hand,
        "legal": legal if legal is not None else hand,
        "trump": trump,
        "trick": current,
        "tricks": list(tricks),
        "lottery": lottery,
        "scores": {"deal": [0] * players, "total": [0] * players},
        "time_ms": 1000,
    }


def pass_request(id_: int, hand: list[str], direction: str = "left", to: int = 1) -> Message:
    return {
        "type": "pass",
        "id": id_,
        "game_number": 1,
        "deal": 1,
        "direction": direction,
        "to": to,
        "count": 3,
        "hand": hand,
        "time_ms": 1000,
    }


def moon(id_: int, self_totals: list[int], others_totals: list[int]) -> Message:
    return {
        "type": "moon",
        "id": id_,
        "game_number": 1,
        "deal": 3,
        "options": {"self": self_totals, "others": others_totals},
        "time_ms": 1000,
    }


REQUEST_TYPES = ("hello", "pass", "trump", "play", "moon")
UNKNOWN = {"type": "tournament_news", "text": "a message type from a future protocol", "extra": [1, 2]}
BYE = {"type": "bye", "reason": "match_over"}

# ---------------------------------------------------------------- scripted sessions
# Each session is a list of (message, what the heuristic bot should answer or None).

KIERKI_HAND = cards("2C 9C KC 3D AD 5H 7H 4S QS JS TS 8S 6S")
KIERKI: Session = [  # 4-player Kierki, we are seat 1, dealer 0
    (hello(1, "kierki", 4, 1), None),
    ({"type": "game_start", "game_number": 1, "players": 4, "seat": 1, "dealer": 0}, None),
    (
        {
            "type": "deal",
            "game_number": 1,
            "deal": 1,
            "kind": "no_tricks",
            "dealer": 0,
            "hand": KIERKI_HAND,
            "trump": None,
            "pass_direction": "none",
            "kitty_size": 0,
        },
        None,
    ),
    # no_tricks, leading: a low card of the shortest suit (diamonds)
    (play(2, "no_tricks", KIERKI_HAND, current={"leader": 1, "cards": []}), "3D"),
    ({"type": "played", "game_number": 1, "deal": 1, "seat": 1, "card": "3D"}, None),
    # no_tricks, following clubs under the TC: duck with the 9C
    (play(3, "no_tricks", KIERKI_HAND, cards("2C 9C KC"), trick(0, cards("TC"), 4)), "9C"),
    (
        {
            "type": "trick",
            "game_number": 1,
            "deal": 1,
            "number": 1,
            "leader": 0,
            "cards": trick(0, cards("TC 9C 2C 3C"), 4)["cards"],
            "winner": 0,
        },
        None,
    ),
    # no_hearts, void in diamonds: dump the highest heart
    (play(4, "no_hearts", cards("2C KC AC 5H QH 3S"), current=trick(0, cards("5D"), 4), deal=2), "QH"),
    # robber, void in clubs: dump the K♥
    (play(5, "robber", cards("AS KH QD JS 2H"), current=trick(3, cards("4C 9C"), 4), deal=7), "KH"),
    # no_kings_jacks, last to play and every spade wins: take it with the 9S, keep the K♠ for later
    (
        play(6, "no_kings_jacks", cards("KS 9S 2D"), cards("KS 9S"), trick(2, cards("5S 2S 3S"), 4), deal=4),
        "9S",
    ),
    # trump deal: the dealer names trump from 5 cards, the longest and then strongest suit
    (
        {
            "type": "trump",
            "id": 7,
            "game_number": 1,
            "deal": 8,
            "cards": cards("AH KH 2S 3S QD"),
            "choices": ["C", "D", "H", "S"],
            "time_ms": 1000,
        },
        "H",
    ),
    # trump deal, following: win as cheaply as possible
    (
        play(8, "trump", cards("JC AC 3C 2H"), cards("JC AC 3C"), trick(0, cards("TC"), 4), trump="H", deal=8),
        "JC",
    ),
    # trump deal, void: ruff with the lowest trump
    (play(9, "trump", cards("5H 9H AD 2S"), current=trick(3, cards("TC KC"), 4), trump="H", deal=8), "5H"),
    # trump deal, leading: cash the master A♦; once the A♥ is gone the K♥ is a master trump, lead it first
    (play(10, "trump", cards("AD 4D QH 7S 8S"), current={"leader": 1, "cards": []}, trump="H", deal=8), "AD"),
    (
        play(
            11,
            "trump",
            cards("AD 4D KH 7S"),
            current={"leader": 1, "cards": []},
            trump="H",
            deal=8,
            tricks=[trick(0, cards("AH 2H 3H 4H"), 4, number=1, winner=0)],
        ),
        "KH",
    ),
    (UNKNOWN, None),
    # loteryjka, the RULES.md K4-b position: 5C opens nothing for the others (we hold the 4C ourselves)
    (
        play(
            12,
            "lottery",
            cards("5C JC 4C 8H 9H 8S QD"),
            cards("5C JC 8H 8S"),
            None,
            lottery={"start_rank": "8", "columns": {"C": ["6C", "TC"], "D": None, "H": None, "S": None}},
            deal=12,
        ),
        "5C",
    ),
    ({"type": "lottery_pass", "game_number": 1, "deal": 12, "seat": 2}, None),
]

HEARTS: Session = [  # American Hearts, we are seat 2
    (hello(1, "hearts", 4, 2), None),
    # Q♠ K♠ A♠ with only one low spade: pass them
    (pass_request(2, cards("QS KS AS 2S AH KH 3C 4C 5C 6D 7D 8D 9D")), cards("AS KS QS")),
    # Q♠ guarded by four low spades: keep it, pass the high hearts and the A♣
    (pass_request(3, cards("QS 2S 3S 4S 5S AH KH 2H AC KC 3D 4D 5D")), cards("AH KH AC")),
    (
        {
            "type": "passed",
            "game_number": 1,
            "deal": 1,
            "sent": cards("AS KS QS"),
            "received": cards("2D 3H 4S"),
            "from": 1,
            "hand": cards("2D 3H 4S"),
        },
        None,
    ),
    # 9♥ led: duck with the 8♥, not the 2♥ and not the K♥
    (play(4, "hearts", cards("2H 8H KH 2C 3C"), cards("2H 8H KH"), trick(1, cards("9H"), 4)), "8H"),
    # void in diamonds: dump the Q♠
    (
        play(
            5,
            "hearts",
            cards("QS AH 2C 5C"),
            current=trick(0, cards("4D 9D"), 4),
            tricks=[trick(0, cards("2C 3C 4C 5C"), 4, number=1, winner=3)],
        ),
        "QS",
    ),
    # leading with hearts broken: a low heart rather than the Q♠; a low club of the shortest suit before both
    (play(6, "hearts", cards("QS 2H 9H"), current={"leader": 2, "cards": []}), "2H"),
    (play(7, "hearts", cards("QS 2H 5C 7D 8D"), current={"leader": 2, "cards": []}), "5C"),
    # last to play and every club wins: take it with the highest
    (play(8, "hearts", cards("9C KC 4D"), cards("9C KC"), trick(3, cards("2C 3C 4C"), 4)), "KC"),
    (UNKNOWN, None),
    (
        {
            "type": "error",
            "id": 8,
            "code": "timeout",
            "message": "example",
            "fallback": {"card": "9C"},
            "strikes": 1,
            "forfeited": False,
        },
        None,
    ),
    (  # protocol 2's error event, which the sample bots speak: no "id", the request in "request_id"
        {
            "type": "error",
            "request_id": 8,
            "code": "timeout",
            "message": "example",
            "fallback": {"type": "play", "id": 8, "card": "9C"},
            "strikes": 1,
            "forfeited": False,
        },
        None,
    ),
    # moon: "others" ends the game with us lowest -> others
    (moon(9, [80, 90, -6, 70], [106, 116, 20, 96]), "others"),
    # moon: "others" ends the game with us not lowest -> self
    (moon(10, [20, 80, 70, 50], [46, 106, 96, 76]), "self"),
    (
        {
            "type": "deal_end",
            "game_number": 1,
            "deal": 3,
            "scores": [0, 0, 0, 0],
            "totals": [46, 106, 96, 76],
            "early": False,
            "moon": {"seat": 2, "choice": "self"},
        },
        None,
    ),
]

CANCELLATION: Session = [  # Cancellation Hearts, 6 players, we are seat 3
    (hello(1, "cancellation", 6, 3), None),
    # two decks: both Q♠ go, then the A♠
    (pass_request(2, cards("QS QS AS 2S 3C 4C 5C 6D 7D 8D 9D 2H 3H 4H 5H 6H 7H")), cards("QS QS AS")),
    # 9♥ K♥ 5♥ on the table; our K♥ cancels the other K♥ (the 9♥ then wins), so it is the highest duck
    (
        play(3, "cancellation", cards("KH TH 2C"), cards("KH TH"), trick(0, cards("9H KH 5H"), 6), players=6),
        "KH",
    ),
    # the two K♥ cancel, so the 9♥ is winning: the T♥ would take the trick, the 8♥ ducks
    (
        play(4, "cancellation", cards("TH 8H 2C"), cards("TH 8H"), trick(0, cards("9H KH KH"), 6), players=6),
        "8H",
    ),
    # no winner yet (the pair of 9♦ cancelled): anything we play to the suit would win, not last: play low
    (play(5, "cancellation", cards("3D JD 2C"), cards("3D JD"), trick(1, cards("9D 9D"), 6), players=6), "3D"),
    (UNKNOWN, None),
]

SESSIONS: dict[str, Session] = {"kierki": KIERKI, "hearts": HEARTS, "cancellation": CANCELLATION}


# ---------------------------------------------------------------- helpers


def start_bot(bot: Path, args: Sequence[str] = ()) -> subprocess.Popen[str]:
    """The bot as a subprocess with text pipes on all three streams."""
    return subprocess.Popen(
        [sys.executable, str(bot), *args],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def run_bot(bot: Path, messages: Sequence[Message], args: Sequence[str] = ()) -> tuple[list[Any], int, str]:
    """Feed the lines to the bot, close its stdin, wait; return (answers, returncode, stderr)."""
    text = "".join(json.dumps(m) + "\n" for m in messages)
    with start_bot(bot, args) as proc:
        out, err = proc.communicate(text, timeout=TIMEOUT)
    answers = [json.loads(line) for line in out.splitlines()]
    for line, answer in zip(out.splitlines(), answers, strict=True):
        assert line == json.dumps(answer, separators=(",", ":")), "one compact JSON object per line"
    return answers, proc.returncode, err


def check_legal(request: Message, reply: Any) -> None:
    """The checks a referee would make: right type and id, no extra fields, a legal choice."""
    assert isinstance(reply, dict)
    assert reply["type"] == request["type"]
    assert reply["id"] == request["id"]
    kind = request["type"]
    if kind == "hello":
        assert set(reply) == {"type", "id", "name", "version", "protocol"}
        assert reply["protocol"] == 2 and isinstance(reply["name"], str) and isinstance(reply["version"], str)
    elif kind == "pass":
        assert set(reply) == {"type", "id", "cards"}
        assert len(reply["cards"]) == request["count"]
        assert not Counter(reply["cards"]) - Counter(request["hand"])  # a sub-multiset of the hand
    elif kind == "trump":
        assert set(reply) == {"type", "id", "suit"}
        assert reply["suit"] in request["choices"]
    elif kind == "play":
        assert set(reply) == {"type", "id", "card"}
        assert reply["card"] in request["legal"]
    elif kind == "moon":
        assert set(reply) == {"type", "id", "choice"}
        assert reply["choice"] in ("self", "others")


def run_session(
    bot: Path, session: Session, args: Sequence[str] = ()
) -> tuple[list[tuple[Message, Any]], list[Any], str]:
    messages = [m for m, _ in session] + [BYE]
    answers, code, err = run_bot(bot, messages, args)
    requests = [(m, expected) for m, expected in session if m["type"] in REQUEST_TYPES]
    assert [m["id"] for m, _ in requests] == sorted({m["id"] for m, _ in requests}), "ids increase"
    assert code == 0, err
    assert len(answers) == len(requests), f"one answer per request, none for events\n{err}"
    for (request, _), reply in zip(requests, answers, strict=True):
        check_legal(request, reply)
    return requests, answers, err


def describe(request: Message) -> Message:
    return {k: v for k, v in request.items() if k not in ("scores", "time_ms", "game_number")}


# ---------------------------------------------------------------- tests


@pytest.mark.parametrize("bot", BOTS, ids=lambda p: p.stem)
@pytest.mark.parametrize("game", SESSIONS)
def test_every_request_gets_one_legal_answer(bot: Path, game: str) -> None:
    run_session(bot, SESSIONS[game])


@pytest.mark.parametrize("game", SESSIONS)
def test_heuristic_bot_decisions(game: str) -> None:
    requests, answers, _ = run_session(HEURISTIC_BOT, SESSIONS[game])
    for (request, expected), reply in zip(requests, answers, strict=True):
        if expected is None:
            continue
        got = {k: v for k, v in reply.items() if k not in ("type", "id")}
        got = next(iter(got.values()))
        if isinstance(expected, list):
            got, expected = Counter(got), Counter(expected)
        assert got == expected, describe(request)


@pytest.mark.parametrize("bot", BOTS, ids=lambda p: p.stem)
def test_exit_zero_on_bye_while_stdin_stays_open(bot: Path) -> None:
    """bye alone must end the bot: stdin is left open and a request after bye is never answered."""
    lines = [hello(1, "hearts", 4, 0), BYE, play(2, "hearts", ["2C"])]
    with start_bot(bot) as proc:
        assert proc.stdin is not None and proc.stdout is not None
        proc.stdin.write("".join(json.dumps(m) + "\n" for m in lines))
        proc.stdin.flush()
        code = proc.wait(timeout=TIMEOUT)
        out = proc.stdout.read()
        proc.stdin.close()
    assert code == 0
    assert [json.loads(line)["id"] for line in out.splitlines()] == [1]


@pytest.mark.parametrize("bot", BOTS, ids=lambda p: p.stem)
def test_exit_zero_on_end_of_input(bot: Path) -> None:
    answers, code, _ = run_bot(bot, [hello(1, "kierki3", 3, 2), play(2, "no_tricks", ["AS", "2D"])])
    assert code == 0
    assert [a["id"] for a in answers] == [1, 2]


@pytest.mark.parametrize("bot", BOTS, ids=lambda p: p.stem)
def test_garbage_and_blank_lines_are_skipped(bot: Path) -> None:
    text = "\nnot json\n[1, 2]\n" + json.dumps(hello(1, "kierki", 4, 0)) + "\n"
    with start_bot(bot) as proc:
        out, err = proc.communicate(text, timeout=TIMEOUT)
    assert proc.returncode == 0
    assert [json.loads(line)["id"] for line in out.splitlines()] == [1]
    assert "not json" in err  # the complaint goes to stderr, never stdout


def test_random_bot_is_reproducible_and_seeded() -> None:
    hand = ["2C", "3C", "4C", "5C", "6C", "7C", "8C", "9C", "TC", "JC", "QC", "KC", "AC"]
    requests = [hello(1, "kierki", 4, 1)] + [play(i, "no_tricks", hand) for i in range(2, 22)]
    first, _, _ = run_bot(RANDOM_BOT, requests)
    again, _, _ = run_bot(RANDOM_BOT, requests)
    seeded, _, _ = run_bot(RANDOM_BOT, requests, ["--seed", "42"])
    seeded_again, _, _ = run_bot(RANDOM_BOT, requests, ["--seed", "42"])
    assert first == again
    assert seeded == seeded_again
    assert [a["card"] for a in first[1:]] != [a["card"] for a in seeded[1:]]


@pytest.mark.parametrize("bot", BOTS, ids=lambda p: p.stem)
def test_bot_files_are_standalone_scripts(bot: Path) -> None:
    source = bot.read_text()
    assert source.startswith("#!/usr/bin/env python3\n")
    assert bot.stat().st_mode & 0o111, "executable bit"
    for package in ("kierki_cli", "protocol", "referee"):
        assert f"import {package}" not in source and f"from {package}" not in source
