"""Seating bots: start a bot, say hello, check the protocol version it answers with; a match's table of seats.

What a match, check-bot and ``kierki play`` (the person's seat) share before the first request lives here once:
``start_bot`` (a bot's process under its isolation, control group and limits), ``hello_request`` and
``version_problem``, the one check of the protocol version a bot answers hello with against those this referee
speaks (``protocol.codec.PROTOCOL_VERSIONS``; the person's seat answers with ``protocol.codec.PROTOCOL_VERSION``).
`Seating` is a match's: its bots started together, the hello with each, who sits where in each game, the results
and CPU time kept per bot, and the bye at the end.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import IO

from protocol import codec
from protocol import messages as m
from referee.bots.cgroups import CgroupError
from referee.bots.disk_use import HOG_BYTES
from referee.bots.fairplay import FairPlayError, FairPlaySetup
from referee.bots.isolation import Isolation
from referee.bots.limits import ResourceLimits
from referee.bots.pipe_results import BotStartError
from referee.bots.process import BotProcess
from referee.bots.runtimes import RUNTIME_HINT, runtime_failure
from referee.bots.sandbox import SandboxError, bot_uid
from referee.bots.seat import BotSeat, Transport
from referee.bots.stderr_log import last_lines
from referee.bots.time_control import TimeControl
from referee.match_config import BotSpec, DiskFullError, MatchConfig, MatchSetupError
from referee.replay.records import BotRecord, IsolationRecord
from referee.rules import Ruleset
from referee.vocabulary.faults import Fault
from referee.vocabulary.match_result import SeatResult

__all__ = ["Seating", "TransportFactory", "hello_request", "start_bot", "version_problem"]

TransportFactory = Callable[[int, BotSpec], Transport]  # seat, its spec -> a started transport


def version_problem(protocol: int) -> str | None:
    """What is wrong with a bot that answers hello with ``protocol`` ("speaks protocol 3; this referee speaks 1
    and 2"), or None when this referee speaks that version."""
    if protocol in codec.PROTOCOL_VERSIONS:
        return None
    versions = " and ".join(str(v) for v in codec.PROTOCOL_VERSIONS)
    return f"speaks protocol {protocol}; this referee speaks {versions}"


def hello_request(request_id: int, ruleset: Ruleset, seat: int, clock: TimeControl, games: int) -> m.HelloRequest:
    """The hello a bot gets at ``seat`` of a match of ``games`` games of ``ruleset``, in this referee's version."""
    return m.HelloRequest(
        id=request_id,
        protocol=codec.PROTOCOL_VERSION,
        game=ruleset.game.value,
        players=ruleset.players,
        seat=seat,
        options=ruleset.options(),
        time=clock.to_wire(),
        games=games,
    )


def start_bot(
    isolation: Isolation,
    argv: Sequence[str],
    *,
    user_cwd: Path,
    name: str,
    out_dir: Path,
    fair: FairPlaySetup | None,
    limits: ResourceLimits | None,
    own_env: Sequence[tuple[str, str]] = (),
    hidden: Sequence[Path] = (),
    stderr_cap_bytes: int = 1_000_000,
) -> BotProcess:
    """Start a bot as a match does: in its private folder ``out_dir/name`` with the environment ``isolation``
    builds (not the user's), in a control group of its own (with ``fair``), under ``limits`` and the sandbox, its
    stderr to ``out_dir/name.stderr.log``. Raises `BotStartError` saying why it could not start."""
    try:
        bot = isolation.prepare(
            argv, user_cwd=user_cwd, private_dir=out_dir / name, out_dir=out_dir, own_env=own_env, hidden=hidden
        )
        group = None if fair is None else fair.bot_group(name)
    except (SandboxError, CgroupError) as error:
        raise BotStartError(str(error)) from None
    return BotProcess.start(
        bot.argv,
        cwd=bot.cwd,
        env=bot.env,
        stderr_log=out_dir / f"{name}.stderr.log",
        stderr_cap_bytes=stderr_cap_bytes,
        max_line_bytes=codec.MAX_BOT_LINE_BYTES,
        limits=limits,
        launchers=bot.launchers,
        cgroup=group,
    )


class Seating:
    """A match's bots: started together, greeted, seated for each game (``rotate``), their results, their bye.

    ``seats`` is the table of the game in progress, in seat order; ``players`` the same bots in the order of
    ``config.spec.bots``, as ``results`` are. ``transport_factory`` replaces starting processes (scripted fakes, the
    person's seat).
    """

    def __init__(self, config: MatchConfig, transport_factory: TransportFactory | None = None) -> None:
        self.config = config
        self.transport_factory = transport_factory
        self.seats: list[BotSeat] = []
        self.players: list[BotSeat] = []
        self.results: list[SeatResult] = []
        self.fair: FairPlaySetup | None = None  # the control groups in force (None: scripted transports)
        self.cpu_marks: list[int] = []  # per bot: its CPU time (ns) when its last game (or its hello) ended
        self._transcript_files: dict[int, IO[bytes]] = {}

    def open(self) -> None:
        """Start every bot and say hello to each; a bot that cannot start or fails its hello stops the match (or,
        with ``forfeit_unstartable``, forfeits its seat)."""
        self._start_bots()
        self._handshake()

    def _start_bots(self) -> None:
        config = self.config
        limits = None
        if self.transport_factory is None:
            try:
                config.spec.isolation.check_here()
                self.fair = FairPlaySetup.open(config.spec.isolation)
                limits = self.fair.resource_limits(config.spec.games)
            except (SandboxError, FairPlayError) as error:
                raise MatchSetupError(str(error)) from None
        absent = dict(config.spec.absent)
        for seat, spec in enumerate(config.spec.bots):
            failure = absent.get(seat)
            transport: Transport | None = None
            if failure is not None:
                pass
            elif self.transport_factory is not None:
                transport = self.transport_factory(seat, spec)
            else:
                try:
                    transport = self.start_process(seat, spec, limits)
                except MatchSetupError as unstartable:
                    if self._disk_is_full():  # its folder or log could not be made: the disk's doing, not the bot's
                        raise DiskFullError(f"{unstartable} (the disk is full)") from None
                    if not config.spec.forfeit_unstartable:
                        raise
                    failure = str(unstartable)
            transcript = self._transcript_writer(seat) if config.spec.transcript else None
            self.seats.append(BotSeat(seat, transport, spec.time or config.spec.time, transcript))
            self.seats[-1].freeze = self.fair is not None and self.fair.freezes
            self.players.append(self.seats[-1])
            self.cpu_marks.append(0)
            self.results.append(SeatResult(seat, f"seat{seat}", "", spec.command, start_failure=failure))

    def start_process(self, seat: int, spec: BotSpec, limits: ResourceLimits | None) -> BotProcess:
        """The bot of ``seat`` started as a process (`start_bot`); `MatchSetupError` naming the seat if it cannot."""
        config = self.config
        try:
            return start_bot(
                config.spec.isolation,
                spec.argv,
                user_cwd=spec.cwd,
                name=f"seat{seat}",
                out_dir=config.out_dir,
                fair=self.fair,
                limits=limits,
                own_env=spec.env,
                hidden=(Path(config.spec.deals_source),) if config.spec.deals_source else (),
                stderr_cap_bytes=config.spec.stderr_cap_bytes,
            )
        except BotStartError as error:
            raise MatchSetupError(f"seat {seat} ({spec.command}): {error}") from None

    def _disk_is_full(self) -> bool:
        """Whether the disk of the match's folder has no room left (blocks or inodes) for a bot's folder and log."""
        try:
            disk = os.statvfs(self.config.out_dir)
        except OSError:
            return False
        return disk.f_bavail * disk.f_frsize < HOG_BYTES or (disk.f_files > 0 and disk.f_favail == 0)

    def _transcript_writer(self, bot: int) -> Callable[[int, str, bytes], None]:
        """One log per bot, named by its first seat (with ``rotate`` its seat changes from game to game)."""

        def write(seat: int, direction: str, line: bytes) -> None:
            file = self._transcript_files.get(bot)
            if file is None:
                path = self.config.out_dir / f"seat{bot}.transcript.log"
                file = self._transcript_files[bot] = open(path, "ab")  # noqa: SIM115 - closed at the end
            file.write(f"{time.time():.6f} {direction} ".encode() + line + b"\n")

        return write

    def _handshake(self) -> None:
        config = self.config
        starting = sum(1 for seat in self.seats if not seat.forfeited)  # bots still starting, all at once
        for seat in self.seats:
            if seat.forfeited:
                continue
            hello = hello_request(seat.new_id(), config.ruleset, seat.seat, seat.clock.time, config.spec.games)
            reply = seat.converse(hello, timeout_s=seat.clock.time.startup_ms / 1000, startup=True, together=starting)
            starting -= 1
            answer = reply.outcome
            if reply.cpu_s is not None:
                self.result_of(seat).startup_cpu_ms = reply.cpu_s * 1000
                self.cpu_marks[self.players.index(seat)] = seat.clock.cpu_ns()
            command = config.spec.bots[seat.seat].command
            # A hello of another protocol version need not decode as ours: what it claims is still checked.
            claimed = next((h.error.protocol for h in reversed(reply.heard) if h.error is not None), None)
            spoken = answer.protocol if isinstance(answer, m.HelloAnswer) else claimed
            problem = None if spoken is None else version_problem(spoken)
            try:
                if problem is not None:
                    seat.close("protocol_mismatch")
                    raise MatchSetupError(f"seat {seat.seat} ({command}) {problem}: update the bot (see PROTOCOL.md)")
                if isinstance(answer, Fault):
                    tail = last_lines(seat.stderr_tail())
                    runtime = next((r for h in reply.heard if (r := runtime_failure(h.line)) is not None), None)
                    why = answer.message if runtime is None else f"{runtime} could not start ({RUNTIME_HINT})"
                    raise MatchSetupError(f"seat {seat.seat} ({command}) failed the handshake: {why}", tuple(tail))
            except MatchSetupError as error:
                if not config.spec.forfeit_unstartable:
                    raise
                self._forfeit_at_start(seat, str(error))
                continue
            assert isinstance(answer, m.HelloAnswer)
            seat.name = answer.name or f"seat{seat.seat}"
            seat.version = answer.version
            seat.protocol = answer.protocol  # what the seat is written in from now on (its error events)
            self.result_of(seat).name = seat.name
            self.result_of(seat).version = seat.version

    def _forfeit_at_start(self, seat: BotSeat, reason: str) -> None:
        seat.close("forfeited")
        seat.forfeited = True
        self.result_of(seat).start_failure = reason

    def seat_for_game(self, game_number: int) -> None:
        """With ``rotate``, bot i sits at seat (i + game_number - 1) mod players in this game."""
        if not self.config.spec.rotate:
            return
        players = len(self.players)
        shift = (game_number - 1) % players
        self.seats = [self.players[(seat - shift) % players] for seat in range(players)]
        for seat, player in enumerate(self.seats):
            player.seat = seat

    def result_of(self, seat: BotSeat) -> SeatResult:
        return self.results[self.players.index(seat)]

    def game_cpu(self) -> list[float | None] | None:
        """Per seat, the CPU time (ms) its bot used in the game just played (and note it in the results); None
        without control groups."""
        if self.fair is None or self.fair.group is None:
            return None
        per_seat: list[float | None] = []
        for seat in self.seats:
            index = self.players.index(seat)
            now = seat.clock.cpu_ns()
            if now < 0 or self.results[index].startup_cpu_ms is None:
                per_seat.append(None)
                continue
            used = (now - self.cpu_marks[index]) / 1e6
            self.cpu_marks[index] = now
            self.results[index].cpu_ms.append(used)
            per_seat.append(round(used, 3))
        return per_seat

    def bot_records(self) -> list[BotRecord]:
        """The bots of the game in progress as its replay header names them, in seat order."""
        return [
            BotRecord(
                seat=seat.seat,
                name=seat.name,
                version=seat.version,
                command=self.result_of(seat).command,
                label=self.config.spec.bots[self.players.index(seat)].label,
            )
            for seat in self.seats
        ]

    def isolation_record(self) -> IsolationRecord | None:
        """The isolation in force, for the replay header and the result (None: scripted transports)."""
        fair = self.fair
        if fair is None:
            return None
        return IsolationRecord(
            sandbox=self.config.spec.isolation.sandbox,
            cgroups=fair.version,
            clock="cpu" if fair.group is not None else "wall",
            freeze=fair.freezes,
            memory="cgroup" if fair.controls("memory") else "rlimit",
            processes="cgroup" if fair.controls("pids") else "rlimit",
            bot_uid=bot_uid(self.config.spec.isolation.sandbox),
        )

    def close(self, reason: m.ByeReason) -> None:
        """Bye to every seat still playing, every bot stopped, the transcripts closed, the control groups removed."""
        for seat in self.seats:
            if not seat.forfeited:
                seat.close(reason)
            elif seat.process is not None:
                seat.process.terminate(0)
        for file in self._transcript_files.values():
            file.close()
        if self.fair is not None:
            self.fair.close()
