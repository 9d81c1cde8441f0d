"""``kierki check-bot``: a conformance check that tells a bot author what their bot does wrong, before a match does.

For each game checked the bot is started once and plays one real game in one seat. The game is a real
``GameState`` (a fixed seed, and for Hearts fixed deals that force a moon), and every message the bot gets is built
by ``referee.wire`` exactly as in a match, so the situations can never drift from the protocol. The bot is asked in
the situations worth checking (the *checkpoints*: a lead and a follow in a penalty deal, naming trump from the
first 5 cards, a trump deal, a loteryjka turn, passing, a first trick, a moon) and on its other turns in the same
deals, so its view of each deal it plays stays consistent; its turns in the other deals are played by the
referee's fallback, exactly as after a timeout in a match. Every event of the game reaches it.

Each answer is checked: it arrives in time, it is one well-formed line (``protocol.codec.decode_bot_line``), of the
right type and id, with nothing else written before it, and it is legal (``GameState.apply`` on a copy). One
unknown message type is sent mid-game and the next request carries an unknown field: the bot must ignore both and
keep answering. After ``game_end`` the bot gets ``bye`` and must exit; a second run of the bot gets only ``hello``
and then end of input, and must exit too.

When an answer does not come in time, the check waits a little longer (a slow bot answers anyway), then closes the
bot's stdin: an answer that arrives only then was stuck in the bot's output buffer, the commonest mistake of all.

Everything here waits under a deadline: no bot can hang the check.
"""

from __future__ import annotations

import json
import random
import tempfile
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final, Literal

from protocol import codec
from protocol import messages as m
from referee import wire
from referee.bots.process import BotProcess, BotStartError, Closed, Line, LineTooLong, Overflow, Timeout
from referee.rules import (
    Action,
    Card,
    DealKind,
    DealSpec,
    Game,
    GameState,
    IllegalActionError,
    Phase,
    Ruleset,
    kierki_scoring,
)
from referee.rules.cards import CLUBS, SUIT_LETTERS, make_card
from referee.rules.dealing import deal_cards, shuffle
from referee.rules.kierki_scoring import deal_kinds

__all__ = [
    "ALL_GAMES",
    "CheckOptions",
    "CheckReport",
    "CheckResult",
    "Checkpoint",
    "Scenario",
    "build_request",
    "check_bot",
    "format_result",
    "scenario",
    "walk",
]

ALL_GAMES: Final = ("kierki", "kierki3", "hearts", "cancellation")

Status = Literal["PASS", "FAIL", "SKIP"]

_SEED: Final = 1  # the deals of every check; the tests pin that every checkpoint is reached with it
_GAME_NUMBER: Final = 1
_LAST_LINES: Final = 8  # lines exchanged shown with a failure
_CLIP: Final = 160  # characters of one shown line
_STDERR_LINES: Final = 6
_EXIT_WAIT_S: Final = 0.2  # for the exit status of a bot whose stdout just ended
_UNKNOWN_MESSAGE: Final = {
    "type": "x_check_future_event",
    "note": "a message type from a later protocol version: bots must ignore it",
    "data": {"list": [1, "two", None, True], "nested": {"deep": []}},
}
_UNKNOWN_FIELD: Final = {"x_check_future_field": {"added": "in a later protocol version", "values": [1, 2]}}

# --- hints: the usual cause of each failure, in a bot author's terms --------------------------------------------

HINT_FLUSH: Final = (
    "flush stdout after every answer line: print(..., flush=True) in Python, fflush(stdout) in C, "
    "$| = 1 in Perl, System.out.flush() in Java (a pipe is block-buffered, so an unflushed answer waits in your "
    "bot until it exits)"
)
HINT_STUCK: Final = (
    'answer every request at once: read whole lines, answer each message that has an "id" with one line (and '
    "flush it), and do not wait for more input first"
)
HINT_SLOW: Final = "answer within the request's time_ms, with a margin of a few ms for the pipes"
HINT_DEBUG: Final = "a debug print on stdout? stdout is only for protocol messages: write logs to stderr"
HINT_CRASH: Final = "your bot exited or closed its stdout; its stderr (below) usually says why"
HINT_ID: Final = 'copy the request\'s "id" into your answer'
HINT_TYPE: Final = 'answer with the request\'s own "type" ("play" for a play request, and so on)'
HINT_EVENTS: Final = (
    'events (messages without an "id": game_start, deal, played, trick, deal_end, game_end, ...) need no answer, '
    "and messages of a type you do not know must be ignored"
)
HINT_UNKNOWN: Final = (
    'ignore messages whose "type" you do not know and fields you do not know: the protocol grows by adding them '
    "(a JSON library that maps to fixed classes must be told to ignore unknown fields)"
)
HINT_BYE: Final = 'exit when you read {"type": "bye"}: stop your read loop and return from main'
HINT_EOF: Final = "exit at end of input: when reading a line from stdin returns EOF, stop and exit"
HINT_STATUS: Final = "exit with status 0; a non-zero status usually means a crash: see the bot's stderr below"
HINT_PROTOCOL: Final = f'answer hello with "protocol": {codec.PROTOCOL_VERSION} (PROTOCOL.md)'
HINT_ILLEGAL: Final[dict[type[m.Request], str]] = {
    m.PlayRequest: 'play one of the cards listed in the request\'s "legal", exactly as written',
    m.PassRequest: 'pass exactly "count" cards of "hand" (different ones, unless you hold a card twice)',
    m.TrumpRequest: 'answer one of the request\'s "choices"',
    m.MoonRequest: 'answer "self" or "others"',
}


# --- what a check produces ---------------------------------------------------------------------------------------


@dataclass
class CheckResult:
    """One line of the report: a check that passed, failed, or could not run."""

    name: str
    status: Status
    detail: str = ""  # PASS/SKIP: a short note; FAIL: what was wrong
    hint: str = ""
    exchange: list[str] = field(default_factory=list)  # the last lines sent (->) and received (<-), clipped
    stderr: list[str] = field(default_factory=list)  # the last lines of the bot's stderr


@dataclass
class CheckReport:
    command: tuple[str, ...]
    games: tuple[str, ...]
    results: list[CheckResult] = field(default_factory=list)

    def count(self, status: Status) -> int:
        return sum(1 for r in self.results if r.status == status)

    @property
    def ok(self) -> bool:
        return self.count("FAIL") == 0 and self.count("PASS") > 0


@dataclass(frozen=True)
class CheckOptions:
    argv: tuple[str, ...]
    games: tuple[str, ...] = ALL_GAMES
    move_ms: int = 1000
    startup_ms: int = 5000
    exit_ms: int = 1000  # to exit after bye or end of input
    grace_ms: int = 500  # after a missed deadline, before closing stdin to look for an unflushed answer
    cwd: Path = field(default_factory=Path.cwd)


def format_result(result: CheckResult) -> str:
    """The report line of one check, with the failure's details indented below it."""
    head = f"{result.status}  {result.name}"
    if result.detail and result.status != "FAIL":
        head += f": {result.detail}"
    if result.status != "FAIL":
        return head
    lines = [head, f"      problem: {result.detail}"]
    if result.hint:
        lines.append(f"      hint: {result.hint}")
    if result.exchange:
        lines.append("      last lines exchanged (-> to the bot, <- from the bot):")
        lines += [f"        {line}" for line in result.exchange]
    if result.stderr:
        lines.append("      the bot's stderr (last lines):")
        lines += [f"        {_clip(line)}" for line in result.stderr]
    return "\n".join(lines)


# --- the scripted situations -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Checkpoint:
    """A situation to ask the bot about. ``deal`` says in which deals the bot is asked on every turn (so its view
    of that deal stays its own) until this checkpoint is met; ``matches`` recognises the situation itself."""

    deal: Callable[[GameState, int], bool]
    matches: Callable[[GameState], bool]


@dataclass(frozen=True)
class Scenario:
    game: str
    ruleset: Ruleset
    seat: int
    deals: tuple[DealSpec, ...]
    checkpoints: tuple[Checkpoint, ...]

    def new_state(self) -> GameState:
        return GameState(self.ruleset, seed=_SEED, deals=self.deals)


_PENALTY_KINDS: Final = frozenset((*kierki_scoring.PENALTY_KINDS, DealKind.ROBBER))


def _penalty_deal(state: GameState, seat: int) -> bool:
    return state.kind in _PENALTY_KINDS


def _own_trump_deal(state: GameState, seat: int) -> bool:
    return state.kind is DealKind.TRUMP and state.dealer == seat


def _lottery_deal(state: GameState, seat: int) -> bool:
    return state.kind is DealKind.LOTTERY


def _first_deal(state: GameState, seat: int) -> bool:
    return state.deal_number == 1


def _playing(state: GameState) -> bool:
    return state.phase is Phase.PLAY


def _leading(state: GameState) -> bool:
    return _playing(state) and not state.observation(state.to_act).trick


def _following(state: GameState) -> bool:
    return _playing(state) and bool(state.observation(state.to_act).trick)


def _lottery_opened(state: GameState) -> bool:
    return _playing(state) and state.observation(state.to_act).lottery_start_rank is not None


def _first_trick(state: GameState) -> bool:
    return _playing(state) and not state.observation(state.to_act).tricks


def _phase(phase: Phase) -> Callable[[GameState], bool]:
    return lambda state: state.phase is phase


_MOON_DEAL: Final = 4  # Hearts: the first deal without passing, so the moon hand below stays intact


def scenario(game: str) -> Scenario:
    """The game the bot plays in the check of ``game``: ruleset (default options), seat, deals and checkpoints."""
    ruleset = Ruleset.create(game)
    players = ruleset.players
    if ruleset.game in (Game.KIERKI, Game.KIERKI3):
        first_dealer = GameState(ruleset, seed=_SEED).dealer
        lottery_dealer = (first_dealer + len(deal_kinds(ruleset)) - 1) % players
        # The first seat to lead, unless it deals the loteryjka: its first turn there must come after the opening
        # card, so that everything before it is the fallback's and the turn is sure to come with the pinned seed.
        seat = (first_dealer + 1) % players
        if seat == lottery_dealer:
            seat = (seat + 1) % players
        checkpoints = (
            Checkpoint(_penalty_deal, _leading),
            Checkpoint(_penalty_deal, _following),
            Checkpoint(_own_trump_deal, _phase(Phase.TRUMP)),
            Checkpoint(_own_trump_deal, _playing),
            Checkpoint(_lottery_deal, _lottery_opened),
        )
        return Scenario(game, ruleset, seat, (), checkpoints)
    if ruleset.game is Game.HEARTS:
        seat = 1
        return Scenario(
            game,
            ruleset,
            seat,
            _moon_deals(ruleset, seat),
            (
                Checkpoint(_first_deal, _phase(Phase.PASS)),
                Checkpoint(_first_deal, _first_trick),
                Checkpoint(lambda state, s: state.deal_number == _MOON_DEAL, _phase(Phase.MOON)),
            ),
        )
    return Scenario(
        game,
        ruleset,
        1,
        (),
        (Checkpoint(_first_deal, _phase(Phase.PASS)), Checkpoint(_first_deal, _first_trick)),
    )


def _moon_deals(ruleset: Ruleset, seat: int) -> tuple[DealSpec, ...]:
    """Hearts deals 1-3 shuffled from the seed, then a deal in which ``seat`` holds all 13 clubs.

    Holding every club, the seat leads the 2♣ and wins every trick (nobody else can follow clubs), so it takes
    every heart and the Q♠ whatever anyone plays: it is asked the moon question. Deal 4 has no passing, so the
    hand reaches the play intact.
    """
    rng = random.Random(_SEED)
    players = ruleset.players
    deals = [deal_cards(ruleset, dealer % players, rng) for dealer in range(_MOON_DEAL - 1)]
    clubs = [make_card(rank, CLUBS) for rank in range(13)]
    rest = [card for card in range(52) if card not in clubs]
    shuffle(rest, rng)
    hands: list[tuple[Card, ...]] = []
    for s in range(players):
        if s == seat:
            hands.append(tuple(clubs))
        else:
            hands.append(tuple(rest[:13]))
            rest = rest[13:]
    deals.append(DealSpec(tuple(hands), (), (_MOON_DEAL - 1) % players))
    return tuple(deals)


def describe(state: GameState) -> str:
    """A check's name for the decision ``state`` asks of its seat to act, e.g. "play, deal 1 (no_tricks), ..."."""
    obs = state.observation(state.to_act)
    where = f"deal {state.deal_number} ({'loteryjka' if state.kind is DealKind.LOTTERY else state.kind.value})"
    if state.phase is Phase.TRUMP:
        return f"trump, deal {state.deal_number}, named from the first {len(obs.hand)} cards"
    if state.phase is Phase.PASS:
        direction = wire.pass_direction(obs.pass_offset, obs.players)
        return f"pass, {where}, 3 cards {direction}"
    if state.phase is Phase.MOON:
        return f"moon, {where}, after taking every point"
    if state.kind is DealKind.LOTTERY:
        laid = sum(1 for column in obs.lottery_columns if column is not None)
        return f"play, {where}, {laid} suit(s) open, trick null"
    trick = len(obs.tricks) + 1
    if state.kind is DealKind.TRUMP:
        trump = "no trump" if obs.trump is None else f"{SUIT_LETTERS[obs.trump]} trumps"
        where = f"deal {state.deal_number} (trump, {trump})"
    if obs.trick:
        return f"play, {where}, trick {trick}, following {len(obs.trick)} card(s)"
    return f"play, {where}, leading trick {trick}"


def walk(
    scn: Scenario,
    decide: Callable[[GameState, bool], Action | None],
    send: Callable[[m.RefereeMessage], None],
) -> list[Checkpoint]:
    """Play the scenario's game to its end; return the checkpoints never reached (none, with the pinned deals).

    ``send`` gets every message for the bot's seat (game_start and every event, as a match would send them).
    ``decide(state, named)`` is called on each turn the bot is asked, ``named`` when the turn is a checkpoint,
    and returns the bot's action (legal) or None for the fallback. The bot is asked on every turn of a deal in
    which a checkpoint is still pending; the fallback plays its other turns and every other seat.
    """
    seat = scn.seat
    state = scn.new_state()
    translator = wire.EventTranslator(state.players, _GAME_NUMBER)
    send(m.GameStartEvent(game_number=_GAME_NUMBER, players=state.players, seat=seat, dealer=state.dealer))
    done = 0
    pending = list(scn.checkpoints)
    while True:
        for event in state.events[done:]:
            for message in translator.messages(event)[seat]:
                send(message)
        done = len(state.events)
        if state.is_over:
            return pending
        action: Action | None = None
        if state.to_act == seat:
            hit = next((c for c in pending if c.deal(state, seat) and c.matches(state)), None)
            if hit is not None or any(c.deal(state, seat) for c in pending):
                if hit is not None:
                    pending.remove(hit)
                action = decide(state, hit is not None)
        state.apply(state.fallback_action() if action is None else action)


def build_request(state: GameState, request_id: int, time_ms: int) -> m.Request:
    """The request for the decision ``state`` waits for, to its seat to act, exactly as a match builds it."""
    return wire.request_for(state, request_id, _GAME_NUMBER, time_ms)


# --- a bot process we can also give end of input ----------------------------------------------------------------


class _CheckedProcess(BotProcess):
    """``BotProcess`` plus closing the bot's stdin while still reading its stdout (``terminate`` discards it)."""

    def close_input(self) -> None:
        stdin = self._proc.stdin
        if stdin is not None and not stdin.closed:
            stdin.close()
        self._stdin_broken = True
        self._pending = bytearray()


# --- one run of the bot ------------------------------------------------------------------------------------------


@dataclass
class _Answer:
    """What came back for one request: the answer (None if none usable) and what was wrong on the way."""

    answer: m.BotMessage | None
    elapsed_ms: float
    problems: list[tuple[str, str]]  # (problem, hint), in order
    exchange: list[str]
    stray: list[bytes]  # lines received before the answer that were not it
    dead: bool = False  # the bot cannot be asked anything more in this run


class _Run:
    """One start of the bot: send lines, read answers under deadlines, keep the last lines for reports."""

    def __init__(self, options: CheckOptions, log: Path) -> None:
        self.options = options
        self.log = log
        started = _CheckedProcess.start(
            options.argv,
            cwd=options.cwd,
            env=None,
            stderr_log=log,
            max_line_bytes=codec.MAX_BOT_LINE_BYTES,
        )
        assert isinstance(started, _CheckedProcess)
        self.bot = started
        self.lines: deque[str] = deque(maxlen=_LAST_LINES)
        self.queued: list[bytes] = []
        self.stray: list[bytes] = []
        self.dead = False

    def queue(self, line: bytes) -> None:
        self.queued.append(line if line.endswith(b"\n") else line + b"\n")

    def _send_queued(self) -> None:
        payload = b"".join(self.queued)
        self.queued.clear()
        for line in payload.splitlines():
            self.lines.append("-> " + _clip(line.decode("utf-8", "replace")))
        self.bot.send(payload)

    def _received(self, data: bytes) -> None:
        self.lines.append("<- " + _clip(data.decode("utf-8", "backslashreplace")))

    def stderr_tail(self) -> list[str]:
        self.bot.drain_stderr()
        try:
            text = self.log.read_bytes().decode("utf-8", "replace")
        except OSError:
            return []
        return text.splitlines()[-_STDERR_LINES:]

    def ask(self, request: m.Request, line: bytes, time_ms: int) -> _Answer:
        """Send the queued events and ``line`` (the encoded ``request``); wait for its answer until ``time_ms``."""
        expected = m.ANSWER_TYPES[type(request)]
        want = expected.__struct_config__.tag
        self.queue(line)
        started = time.monotonic()
        deadline = started + time_ms / 1000
        self._send_queued()
        problems: list[tuple[str, str]] = []
        self.stray = []
        while True:
            result = self.bot.read_line(deadline)
            if isinstance(result, Line):
                self._received(result.data)
                self.stray.append(result.data)
                try:
                    answer = codec.decode_bot_line(result.data)
                except codec.ProtocolError as error:
                    problems.append(_explain_bad_line(error))
                    continue
                if answer.id != request.id:
                    problems.append(
                        (
                            f'your bot answered with "id": {answer.id}, the request\'s id is {request.id}',
                            HINT_ID,
                        )
                    )
                    continue
                self.stray.pop()  # the answer to this request, of the right type or not
                if not isinstance(answer, expected):
                    got = type(answer).__struct_config__.tag
                    problems.append(
                        (f'request {request.id} asked for a "{want}" answer, your bot sent "{got}"', HINT_TYPE)
                    )
                    return self._done(None, started, problems)
                return self._done(answer, started, problems, elapsed_s=result.elapsed_s)
            if isinstance(result, LineTooLong):
                self._received(result.prefix + b"...")
                self.stray.append(result.prefix)
                problems.append(
                    (
                        f"your bot wrote a line longer than {codec.MAX_BOT_LINE_BYTES} bytes",
                        "answer with one short JSON object per line; " + HINT_DEBUG,
                    )
                )
                continue
            if isinstance(result, Timeout):
                if problems:  # it did write something: its real answer is what is wrong, not the clock
                    problems.append((f"no valid answer within {time_ms} ms", HINT_STUCK))
                    return self._done(None, started, problems)
                return self._missed_deadline(request, time_ms, started)
            assert isinstance(result, Closed | Overflow)
            problems.append((self._ended(result), HINT_CRASH))
            self.dead = True
            return self._done(None, started, problems, dead=True)

    def _ended(self, result: Closed | Overflow) -> str:
        """Why the bot can answer no more, with its exit status once it has one (it follows stdout's end closely)."""
        if isinstance(result, Overflow):
            return f"the bot stopped reading its input ({result.pending_bytes} bytes waiting) instead of answering"
        deadline = time.monotonic() + _EXIT_WAIT_S
        while self.bot.alive and time.monotonic() < deadline:
            time.sleep(0.002)
        status = self.bot.returncode
        if status is None:
            return "the bot closed its stdout instead of answering"
        how = f"exit status {status}" if status >= 0 else f"killed by signal {-status}"
        return f"the bot exited ({how}) instead of answering"

    def _done(
        self,
        answer: m.BotMessage | None,
        started: float,
        problems: list[tuple[str, str]],
        *,
        elapsed_s: float | None = None,
        dead: bool = False,
    ) -> _Answer:
        elapsed = (time.monotonic() - started) if elapsed_s is None else elapsed_s
        return _Answer(answer, elapsed * 1000, problems, list(self.lines), list(self.stray), dead)

    def _missed_deadline(self, request: m.Request, time_ms: int, started: float) -> _Answer:
        """No line at all by the deadline: too slow, stuck in a buffer, or not answering."""
        late = self.bot.read_line(time.monotonic() + self.options.grace_ms / 1000)
        if isinstance(late, Line):
            self._received(late.data)
            waited = (time.monotonic() - started) * 1000
            return self._done(
                None,
                started,
                [(f"the answer came after {waited:.0f} ms; the limit is {time_ms} ms", HINT_SLOW)],
            )
        self.dead = True
        if isinstance(late, Closed | Overflow):
            return self._done(None, started, [(self._ended(late), HINT_CRASH)], dead=True)
        # Close its stdin: a bot that exits at end of input flushes its buffer on the way out.
        self.bot.close_input()
        self.lines.append("-> (end of input: the check closed the bot's stdin)")
        after = self.bot.read_line(time.monotonic() + self.options.exit_ms / 1000)
        if isinstance(after, Line):
            self._received(after.data)
            problem = (
                f"no answer within {time_ms} ms; your answer arrived only when input closed: "
                "you are not flushing stdout after each line"
            )
            return self._done(None, started, [(problem, HINT_FLUSH)], dead=True)
        problem = f"no answer within {time_ms} ms (nor after another {self.options.grace_ms} ms, nor at end of input)"
        return self._done(None, started, [(problem, HINT_STUCK)], dead=True)

    def finish(self, deadline_ms: int) -> tuple[list[str], int | None, bool]:
        """Send what is queued, then wait for the bot to exit: (lines it still wrote, exit status, exited?)."""
        if self.queued and not self.dead:
            self._send_queued()
        deadline = time.monotonic() + deadline_ms / 1000
        extra: list[str] = []
        while True:
            result = self.bot.read_line(deadline)
            if isinstance(result, Line):
                self._received(result.data)
                extra.append(result.data.decode("utf-8", "backslashreplace"))
                continue
            if isinstance(result, LineTooLong):
                extra.append(result.prefix.decode("utf-8", "backslashreplace") + "...")
                continue
            break
        while self.bot.alive and time.monotonic() < deadline:
            time.sleep(0.002)
        status = self.bot.returncode
        return extra, status, status is not None

    def close_input(self) -> None:
        if self.queued:
            self._send_queued()
            self.bot.flush(time.monotonic() + self.options.exit_ms / 1000)
        self.bot.close_input()
        self.lines.append("-> (end of input: the check closed the bot's stdin)")

    def stop(self) -> None:
        self.bot.terminate(0)


def _explain_bad_line(error: codec.ProtocolError) -> tuple[str, str]:
    problem = f"your bot wrote a line that is not a valid answer: {error.problem}"
    if error.message_type is not None and error.message_type in _REFEREE_TYPES:
        return problem, HINT_EVENTS
    if error.problem.startswith(("not valid JSON", "expected a JSON object", "empty line", "the line is not valid")):
        return problem, HINT_DEBUG
    return problem, error.hint


_REFEREE_TYPES: Final = frozenset(
    {
        "game_start",
        "deal",
        "passed",
        "played",
        "lottery_pass",
        "trick",
        "deal_end",
        "game_end",
        "error",
        "bye",
        str(_UNKNOWN_MESSAGE["type"]),
    }
)


def _clip(text: str) -> str:
    text = text.rstrip("\r\n")
    return text if len(text) <= _CLIP else text[: _CLIP - 3] + "..."


# --- checking one game -------------------------------------------------------------------------------------------


class _GameCheck:
    """Play the scenario of one game with the bot in its seat, reporting one result per check."""

    def __init__(self, options: CheckOptions, game: str, log_dir: Path, emit: Callable[[CheckResult], None]) -> None:
        self.options = options
        self.game = game
        self.log_dir = log_dir
        self.emit = emit
        self.scenario = scenario(game)
        self.next_id = 0
        self.asked = 0
        self.last_answered = False  # whether the previous request got a usable answer
        self.unknown_sent = False
        self.other_decisions = 0
        self.other_failures = 0
        self.slowest_ms = 0.0

    def name(self, what: str) -> str:
        return f"{self.game}: {what}"

    def result(self, what: str, answer: _Answer, run: _Run, note: str = "") -> bool:
        """Emit PASS, or FAIL with the first problem; True when it passed."""
        if not answer.problems:
            self.emit(CheckResult(self.name(what), "PASS", note))
            return True
        problem, hint = answer.problems[0]
        more = len(answer.problems) - 1
        if more:
            problem += f" (and {more} more problem{'s' if more > 1 else ''})"
        self.emit(
            CheckResult(
                self.name(what),
                "FAIL",
                problem,
                hint,
                answer.exchange,
                run.stderr_tail(),
            )
        )
        return False

    def hello(self, seat: int, request_id: int) -> m.HelloRequest:
        ruleset = self.scenario.ruleset
        return m.HelloRequest(
            id=request_id,
            protocol=codec.PROTOCOL_VERSION,
            game=ruleset.game.value,
            players=ruleset.players,
            seat=seat,
            options=ruleset.options(),
            time=m.TimeControl(
                move_ms=self.options.move_ms, startup_ms=self.options.startup_ms, bank_ms=0, increment_ms=0
            ),
            games=1,
        )

    def handshake(self, run: _Run) -> bool:
        """hello -> hello; True when the bot can go on."""
        self.next_id += 1
        request = self.hello(self.scenario.seat, self.next_id)
        answer = run.ask(request, codec.encode(request), self.options.startup_ms)
        note = ""
        if answer.answer is not None:
            hello = answer.answer
            assert isinstance(hello, m.HelloAnswer)
            if hello.protocol != codec.PROTOCOL_VERSION:
                answer.problems.append(
                    (
                        f"your bot speaks protocol {hello.protocol}; this referee speaks {codec.PROTOCOL_VERSION}",
                        HINT_PROTOCOL,
                    )
                )
            note = f'"{hello.name}" version "{hello.version}", protocol {hello.protocol} ({answer.elapsed_ms:.0f} ms)'
        passed = self.result("handshake (hello)", answer, run, note)
        return passed or answer.answer is not None

    def run(self) -> bool:
        """Check this game; False when the bot failed its handshake (no point checking other games then)."""
        scn = self.scenario
        try:
            run = _Run(self.options, self.log_dir / f"{self.game}.stderr.log")
        except BotStartError as error:
            self.emit(CheckResult(self.name("start the bot"), "FAIL", str(error), "check the command after --"))
            return False
        try:
            if not self.handshake(run):
                self.skip_rest(len(scn.checkpoints))
                return False
            self.play(run)
            return True
        finally:
            run.stop()

    def skip_rest(self, situations: int) -> None:
        why = "not run: the bot stopped answering earlier"
        if situations:
            self.emit(CheckResult(self.name(f"{situations} more situation(s)"), "SKIP", why))
        if not self.unknown_sent:
            self.emit(CheckResult(self.name("unknown message type and fields ignored"), "SKIP", why))
        self.emit(CheckResult(self.name("results (trick, deal_end, game_end) need no answer"), "SKIP", why))
        self.emit(CheckResult(self.name("exits on bye"), "SKIP", why))

    def play(self, run: _Run) -> None:
        skipped = 0

        def decide(state: GameState, named: bool) -> Action | None:
            nonlocal skipped
            if run.dead:
                skipped += named
                return None
            return self.decide(run, state, named=named)

        pending = walk(self.scenario, decide, lambda message: run.queue(codec.encode(message)))
        if run.dead:
            self.skip_rest(skipped + len(pending))
            return
        if pending:  # cannot happen with the pinned deals (the tests prove it); say so rather than pass silently
            self.emit(CheckResult(self.name(f"{len(pending)} situation(s) not reached"), "SKIP", "a bug in check-bot"))
        if self.other_decisions and not self.other_failures:
            self.emit(
                CheckResult(
                    self.name(f"{self.other_decisions} more decision(s) in the same deals"),
                    "PASS",
                    f"well-formed, legal, in time (slowest {self.slowest_ms:.1f} ms)",
                )
            )
        self.finish(run)

    def decide(self, run: _Run, state: GameState, *, named: bool) -> Action | None:
        """Ask the bot for the decision of ``state``; return its action when legal, else None (the fallback)."""
        seat = self.scenario.seat
        self.next_id += 1
        time_ms = self.options.move_ms
        request = build_request(state, self.next_id, time_ms)
        line = codec.encode(request)
        unknown = self.asked == 1 and not self.unknown_sent
        if unknown:  # the second request: after an unknown message type, and with an unknown field
            self.unknown_sent = True
            run.queue(json.dumps(_UNKNOWN_MESSAGE, separators=(",", ":")).encode())
            fields = json.loads(line)
            fields.update(_UNKNOWN_FIELD)
            line = json.dumps(fields, separators=(",", ":")).encode() + b"\n"
        what = describe(state)
        self.asked += 1
        answer = run.ask(request, line, time_ms)
        action: Action | None = None
        if answer.answer is not None:
            try:
                chosen = wire.to_action(answer.answer)
                trial = state.copy()
                trial.apply(chosen, seat)
            except wire.AnswerError as error:
                answer.problems.append((f"your bot's answer cannot be read: {error}", HINT_ILLEGAL[type(request)]))
            except IllegalActionError as error:
                shown = codec.encode_answer(answer.answer).decode().strip()
                answer.problems.append(
                    (f"illegal answer {shown}: {error.message} [rule: {error.rule}]", HINT_ILLEGAL[type(request)])
                )
            else:
                action = chosen
        if unknown:
            self.unknown_result(run, answer)
        self.last_answered = answer.answer is not None
        note = f"{_show_answer(answer.answer)} ({answer.elapsed_ms:.1f} ms)" if answer.answer is not None else ""
        if named:
            self.result(what, answer, run, note)
        else:
            self.other_decisions += 1
            self.slowest_ms = max(self.slowest_ms, answer.elapsed_ms)
            if answer.problems:
                self.other_failures += 1
                self.result(what, answer, run)
        return action

    def unknown_result(self, run: _Run, answer: _Answer) -> None:
        """Judge the unknown message and field by the answer to the request after them.

        Only what they caused counts: a bot whose answers all come with a debug line fails that request's check,
        not this one. When the request before was not answered either, this check cannot tell anything.
        """
        name = self.name("unknown message type and fields ignored")
        tag = str(_UNKNOWN_MESSAGE["type"]).encode()
        answered_it = [line for line in answer.stray if tag in line]
        if answered_it:
            shown = _clip(answered_it[0].decode("utf-8", "replace"))
            problem = f"your bot answered a message of a type it does not know: {shown}"
        elif answer.answer is None and self.last_answered:
            reason = answer.problems[0][0] if answer.problems else "no answer"
            problem = (
                f"the request right after a message of an unknown type (itself with an unknown field) failed: {reason}"
            )
        elif answer.answer is None:
            self.emit(CheckResult(name, "SKIP", "cannot tell: the request before was not answered either"))
            return
        else:
            self.emit(CheckResult(name, "PASS"))
            return
        self.emit(CheckResult(name, "FAIL", problem, HINT_UNKNOWN, answer.exchange, run.stderr_tail()))

    def finish(self, run: _Run) -> None:
        """The game is over: the results are queued; then bye, and the bot must exit."""
        run.queue(codec.encode(m.ByeEvent(reason="match_over")))
        extra, status, exited = run.finish(self.options.exit_ms)
        results = self.name("results (trick, deal_end, game_end) need no answer")
        if extra:
            self.emit(
                CheckResult(
                    results,
                    "FAIL",
                    f"after the last events and bye, your bot wrote {len(extra)} line(s), first: {_clip(extra[0])}",
                    HINT_EVENTS,
                    list(run.lines),
                    run.stderr_tail(),
                )
            )
        else:
            self.emit(CheckResult(results, "PASS"))
        self.exit_result(run, self.name("exits on bye"), exited, status, HINT_BYE, "bye")

    def exit_result(self, run: _Run, name: str, exited: bool, status: int | None, hint: str, after: str) -> None:
        if not exited:
            self.emit(
                CheckResult(
                    name,
                    "FAIL",
                    f"still running {self.options.exit_ms} ms after {after}",
                    hint,
                    list(run.lines),
                    run.stderr_tail(),
                )
            )
        elif status != 0:
            self.emit(
                CheckResult(
                    name, "FAIL", f"exited with status {status}", HINT_STATUS, list(run.lines), run.stderr_tail()
                )
            )
        else:
            self.emit(CheckResult(name, "PASS", "exit status 0"))

    def end_of_input(self) -> None:
        """A second run of the bot: hello, then stdin closes; the bot must exit."""
        name = "end of input: exits when stdin closes"
        try:
            run = _Run(self.options, self.log_dir / f"{self.game}.eof.stderr.log")
        except BotStartError as error:
            self.emit(CheckResult(name, "FAIL", str(error)))
            return
        try:
            request = self.hello(self.scenario.seat, 1)
            if run.ask(request, codec.encode(request), self.options.startup_ms).answer is None:
                self.emit(CheckResult(name, "SKIP", "not run: no answer to hello"))
                return
            run.close_input()
            _extra, status, exited = run.finish(self.options.exit_ms)
            self.exit_result(run, name, exited, status, HINT_EOF, "its stdin was closed")
        finally:
            run.stop()


def _show_answer(answer: m.BotMessage | None) -> str:
    if isinstance(answer, m.PlayAnswer):
        return answer.card
    if isinstance(answer, m.PassAnswer):
        return " ".join(answer.cards)
    if isinstance(answer, m.TrumpAnswer):
        return answer.suit
    if isinstance(answer, m.MoonAnswer):
        return answer.choice
    return ""


# --- the whole check ---------------------------------------------------------------------------------------------


def check_bot(options: CheckOptions, emit: Callable[[CheckResult], None] | None = None) -> CheckReport:
    """Run every check on the bot ``options.argv``; ``emit`` gets each result as soon as it is known."""
    report = CheckReport(options.argv, options.games)

    def record(result: CheckResult) -> None:
        report.results.append(result)
        if emit is not None:
            emit(result)

    with tempfile.TemporaryDirectory(prefix="kierki-check-") as tmp:
        log_dir = Path(tmp)
        handshake_ok = True
        for index, game in enumerate(options.games):
            if not _GameCheck(options, game, log_dir, record).run():
                handshake_ok = False
                for rest in options.games[index + 1 :]:
                    record(CheckResult(f"{rest}: all checks", "SKIP", "not run: the bot failed the handshake"))
                break
        if handshake_ok:
            _GameCheck(options, options.games[0], log_dir, record).end_of_input()
        else:
            record(CheckResult("end of input: exits when stdin closes", "SKIP", "not run: the handshake failed"))
    return report
