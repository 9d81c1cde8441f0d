"""What check-bot produces (one result per check, the report, the options) and the hints it gives bot authors.

Presentation (the PASS/FAIL text) is ``kierki_cli.checkbot_cmd``'s; this is data.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Final, Literal

from protocol import codec
from protocol import messages as m
from referee.bots.isolation import Isolation
from referee.bots.time_control import TimeControl
from referee.checkbot.scenarios import ALL_GAMES

Status = Literal["PASS", "FAIL", "SKIP", "NOTE"]  # NOTE: worth knowing, but nothing a match counts against the bot

# --- hints: the usual cause of each failure, in a bot author's terms --------------------------------------------

HINT_FLUSH: Final = (
    "flush stdout after every answer line (a pipe is block-buffered: an unflushed answer waits in your bot until "
    "it exits). Python: print(..., flush=True), or run python3 -u; C: fflush(stdout) after each answer, or "
    "setvbuf(stdout, NULL, _IOLBF, 0) once; C++: std::endl or std::flush; Perl: $| = 1; Java: System.out.flush() "
    "(or new PrintWriter(System.out, true)); Go: Flush() your bufio.Writer (fmt.Println on os.Stdout is "
    "unbuffered); Rust: .flush() a BufWriter (println! writes each line); Node: process.stdout.write is "
    "synchronous on a pipe, nothing to do; bash: echo and printf write at once, but jq needs --unbuffered, sed -u, "
    "grep --line-buffered, awk fflush(); any other C-stdio program: run it under stdbuf -oL"
)
HINT_STUCK: Final = (
    'answer every request at once: read whole lines, answer each message that has an "id" with one line (and '
    "flush it), and do not wait for more input first"
)
HINT_SLOW: Final = (
    "answer within the request's time_ms, with a margin of a few ms for the pipes; the events sent before a "
    "request count against its time too, so read them quickly (one process for the whole match, not one per line)"
)
HINT_DEBUG: Final = "a debug print on stdout? stdout is only for protocol messages: write logs to stderr"
HINT_MULTILINE: Final = (
    "one answer spread over several lines (pretty-printed JSON)? each answer must be a single line: jq -c, "
    "json.dumps(answer) without indent, JSON.stringify(answer) without a spacing argument"
)
HINT_CRASH: Final = "your bot exited or closed its stdout; its stderr (below) usually says why"
HINT_ID: Final = 'copy the request\'s "id" into your answer'
HINT_TYPE: Final = 'answer with the request\'s own "type" ("play" for a play request, and so on)'
HINT_EVENTS: Final = (
    'events (messages without an "id": game_start, deal, played, trick, deal_end, game_end, error, ...) need no '
    "answer, and messages of a type you do not know must be ignored"
)
EVENTS_CHECK: Final = "events (error included) need no answer"
SAMPLE_ERROR_MESSAGE: Final = (
    "check-bot: a sample error event, nothing went wrong; it is an event like any other: answer nothing"
)
NOTE_PROTOCOL_1: Final = (
    f'served as protocol 1 (its error events name their request in "id"; protocol {codec.PROTOCOL_VERSION} '
    'calls it "request_id", PROTOCOL.md section 4)'
)
HINT_UNKNOWN: Final = (
    'ignore messages whose "type" you do not know and fields you do not know: the protocol grows by adding them '
    "(a JSON library that maps to fixed classes must be told to ignore unknown fields)"
)
HINT_BYE: Final = 'exit when you read {"type": "bye"}: stop your read loop and return from main'
HINT_EOF: Final = "exit at end of input: when reading a line from stdin returns EOF, stop and exit"
HINT_STATUS: Final = "exit with status 0; a non-zero status usually means a crash: see the bot's stderr below"
HINT_PROTOCOL: Final = f'answer hello with "protocol": {codec.PROTOCOL_VERSION} (PROTOCOL.md section 4)'
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
    """The bot's command and where it runs, the games to check, and the clock: ``time`` is a match's own
    `TimeControl` (its move and start-up deadlines; no bank); ``players`` and ``rule_options`` set the table and
    the rules as in a match (the default otherwise); ``exit_ms`` bounds the exit after bye or end of input,
    ``grace_ms`` the wait after a missed deadline before stdin is closed to look for an unflushed answer."""

    argv: tuple[str, ...]
    games: tuple[str, ...] = ALL_GAMES
    time: TimeControl = field(default_factory=TimeControl)
    exit_ms: int = 1000
    grace_ms: int = 500
    cwd: Path = field(default_factory=Path.cwd)
    players: int | None = None  # as a match's --players (with one game)
    rule_options: dict[str, str] = field(default_factory=dict)  # as a match's --option KEY=VALUE (with one game)
    # A match's isolation (referee/bots/isolation.py): the bot runs under the limits and sandbox it will play
    # under, so a bot that needs more memory, or reads files a sandbox hides, fails here and not in its match.
    isolation: Isolation = field(default_factory=Isolation)
