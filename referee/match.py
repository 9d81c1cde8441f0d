"""A match: start the bots, play the games, enforce deadlines and legality, record everything, clean up.

Data flows one way: bot line -> protocol decoder -> ``to_action`` -> ``GameState.apply`` -> events -> per-seat
messages -> each bot. Whatever a bot does (time out, answer illegally or in garbage, crash) the referee plays a
deterministic fallback for it, tells it why, counts a strike, and goes on; other seats never notice. When the fault
policy (``referee.faults.FaultPolicy``: a crash, a fault it makes forfeit, ``max_strikes`` strikes) says so, the
seat is played by the fallback to the end and marked forfeited.
"""

from __future__ import annotations

import errno
import os
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Final

import msgspec

from protocol import codec
from protocol import messages as m
from referee import wire, wire_requests
from referee.bots import reaper
from referee.bots.cgroups import CgroupError
from referee.bots.disk_use import HOG_BYTES, disk_use, hog
from referee.bots.fairplay import FairPlayError, FairPlaySetup
from referee.bots.limits import ResourceLimits
from referee.bots.pipe_results import BotStartError
from referee.bots.process import BotProcess
from referee.bots.runtimes import RUNTIME_HINT, runtime_failure
from referee.bots.sandbox import SandboxError, bot_uid
from referee.bots.seat import BotSeat, Transport, converse_all
from referee.bots.stderr_log import last_lines
from referee.faults import Fault, FaultCode
from referee.game_loop import SeatMessages, drive_game
from referee.match_config import SAMPLE_BOTS as SAMPLE_BOTS
from referee.match_config import BotSpec as BotSpec
from referee.match_config import DiskFullError, SeatFilledDisk, make_out_dir
from referee.match_config import GameEndedCallback as GameEndedCallback
from referee.match_config import MatchConfig as MatchConfig
from referee.match_config import MatchSetupError as MatchSetupError
from referee.match_config import default_bots as default_bots
from referee.match_config import parse_bot_commands as parse_bot_commands
from referee.match_config import sample_bot_command as sample_bot_command
from referee.match_result import GameStatus as GameStatus
from referee.match_result import MatchResult as MatchResult
from referee.match_result import SeatResult as SeatResult
from referee.replay.errors import ReplayWriteError
from referee.replay.records import FORMAT, VERSION, BotRecord, ClockRecord, FaultRecord, Header, IsolationRecord
from referee.replay.writer import ReplayWriter, decision_record, event_record
from referee.rules import Action, Event, GameEnded, GameState, IllegalActionError, Phase

_PASS: Final = Phase.PASS  # read per decision: a constant, not looked up on its enum class (see rules/state.py)

TransportFactory = Callable[[int, "BotSpec"], Transport]  # seat, its spec -> a started transport


class Match:
    def __init__(
        self,
        config: MatchConfig,
        progress: GameEndedCallback | None = None,
        transport_factory: TransportFactory | None = None,
    ) -> None:
        """``transport_factory`` replaces starting real processes (protocol-level tests use a scripted fake).
        ``config`` checked itself as it was made (``MatchConfig.__post_init__``)."""
        self.config = config
        self.progress = progress
        self.transport_factory = transport_factory
        self.seats: list[BotSeat] = []  # the table of the game in progress, in seat order
        self.players: list[BotSeat] = []  # the same, in bot order (the order of config.spec.bots and of self.results)
        self.results: list[SeatResult] = []
        self.replays: list[str] = []
        self.game_seconds: list[float] = []  # wall time of each game, bots' start and stop excluded
        self._transcript_files: dict[int, Any] = {}
        # seat: request id, outcome, time, lines ignored meanwhile, CPU time (None: not measured)
        self._passes: dict[int, tuple[int, m.BotMessage | Fault, float, int, float | None]] = {}
        self._stopped = False  # a game was stopped after config.spec.deals_per_game deals
        self._fair: FairPlaySetup | None = None  # the control groups in force (None: scripted transports)
        self._cpu_marks: list[int] = []  # per bot: its CPU time (ns) when its last game (or its hello) ended

    # --- running -------------------------------------------------------------------------------------------

    def run(self) -> MatchResult:
        config = self.config
        make_out_dir(config.out_dir)
        status = GameStatus.COMPLETE
        reaper.become_subreaper()  # descendants that leave a bot's session come back to us when the bot dies
        children_before = reaper.child_pids()
        try:
            self._start_bots()
            self._handshake()
            for game_number in range(1, config.spec.games + 1):
                started = time.perf_counter()
                self._play_game(game_number)
                self.game_seconds.append(time.perf_counter() - started)
        except KeyboardInterrupt:
            status = GameStatus.INTERRUPTED
            raise
        except ReplayWriteError as error:  # a full disk: stop cleanly, earlier games' logs are already in place
            status = GameStatus.ERROR
            raise self._disk_failure(error) from None
        except BaseException:
            status = GameStatus.ERROR  # a failed handshake, a broken log: the other seats hear "aborted"
            raise
        finally:
            self._close_all("match_over" if status is GameStatus.COMPLETE and not self._stopped else "aborted")
            if self._fair is not None:
                self._fair.close()
            reaper.reap_orphans(children_before)
        return self._result(GameStatus.STOPPED if self._stopped and status is GameStatus.COMPLETE else status)

    def _disk_failure(self, error: ReplayWriteError) -> MatchSetupError:
        """The error a replay log that could not be written stops the match with: on a full disk whose space one
        bot's private directory holds (no sandbox, or ``--limit-disk 0``), that bot's doing (`SeatFilledDisk`)."""
        if error.errno not in (errno.ENOSPC, errno.EDQUOT) or self.transport_factory is not None:
            return MatchSetupError(str(error))
        uses = [disk_use(self.config.out_dir / f"seat{bot}") for bot in range(len(self.players))]
        bot = hog(uses)
        if bot is None:
            return DiskFullError(f"{error} (no bot's private directory holds the space)")
        reason = f"filled the disk: its private directory held {uses[bot]} when the replay log could not be written"
        return SeatFilledDisk(f"seat {bot} ({self.config.spec.bots[bot].command}) {reason}; {error}", bot, reason)

    def _disk_is_full(self) -> bool:
        """Whether the disk of the match's folder has no room left (blocks or inodes) for a bot's folder and log."""
        try:
            disk = os.statvfs(self.config.out_dir)
        except OSError:
            return False
        return disk.f_bavail * disk.f_frsize < HOG_BYTES or (disk.f_files > 0 and disk.f_favail == 0)

    def _start_bots(self) -> None:
        config = self.config
        limits = None
        if self.transport_factory is None:
            try:
                config.spec.isolation.check_here()
                self._fair = FairPlaySetup.open(config.spec.isolation)
                limits = self._fair.resource_limits(config.spec.games)
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
                    transport = self._start_process(seat, spec, limits)
                except MatchSetupError as unstartable:
                    if self._disk_is_full():  # its folder or log could not be made: the disk's doing, not the bot's
                        raise DiskFullError(f"{unstartable} (the disk is full)") from None
                    if not config.spec.forfeit_unstartable:
                        raise
                    failure = str(unstartable)
            transcript = self._transcript_writer(seat) if config.spec.transcript else None
            self.seats.append(BotSeat(seat, transport, spec.time or config.spec.time, transcript))
            self.seats[-1].freeze = self._fair is not None and self._fair.freezes
            self.players.append(self.seats[-1])
            self._cpu_marks.append(0)
            self.results.append(SeatResult(seat, f"seat{seat}", "", spec.command, start_failure=failure))

    def _start_process(self, seat: int, spec: BotSpec, limits: ResourceLimits | None) -> BotProcess:
        config = self.config
        try:
            bot = config.spec.isolation.prepare(
                spec.argv,
                user_cwd=spec.cwd,
                private_dir=config.out_dir / f"seat{seat}",
                out_dir=config.out_dir,
                own_env=spec.env,
                hidden=(Path(config.spec.deals_source),) if config.spec.deals_source else (),
            )
            group = None if self._fair is None else self._fair.bot_group(f"seat{seat}")
            return BotProcess.start(
                bot.argv,
                cwd=bot.cwd,
                env=bot.env,
                stderr_log=config.out_dir / f"seat{seat}.stderr.log",
                stderr_cap_bytes=config.spec.stderr_cap_bytes,
                max_line_bytes=codec.MAX_BOT_LINE_BYTES,
                limits=limits,
                launchers=bot.launchers,
                cgroup=group,
            )
        except (BotStartError, SandboxError, CgroupError) as error:
            raise MatchSetupError(f"seat {seat} ({spec.command}): {error}") from None

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
        ruleset = config.ruleset
        options = ruleset.options()
        starting = sum(1 for seat in self.seats if not seat.forfeited)  # bots still starting, all at once
        for seat in self.seats:
            if seat.forfeited:
                continue
            hello = m.HelloRequest(
                id=seat.new_id(),
                protocol=codec.PROTOCOL_VERSION,
                game=ruleset.game.value,
                players=ruleset.players,
                seat=seat.seat,
                options=options,
                time=seat.time.to_wire(),
                games=config.spec.games,
            )
            reply = seat.converse(hello, timeout_s=seat.time.startup_ms / 1000, startup=True, together=starting)
            starting -= 1
            answer = reply.outcome
            if reply.cpu_s is not None:
                self._result_of(seat).startup_cpu_ms = reply.cpu_s * 1000
                self._cpu_marks[self.players.index(seat)] = seat.cpu_ns()
            command = config.spec.bots[seat.seat].command
            claimed = next((h.error.protocol for h in reversed(reply.heard) if h.error is not None), None)
            try:
                if isinstance(answer, Fault) and claimed is not None and claimed not in codec.PROTOCOL_VERSIONS:
                    # A hello of another protocol version need not decode as ours: say what is wrong.
                    seat.close("protocol_mismatch")
                    raise MatchSetupError(_mismatch(seat.seat, command, claimed))
                if isinstance(answer, Fault):
                    tail = last_lines(seat.stderr_tail())
                    runtime = next((r for h in reply.heard if (r := runtime_failure(h.line)) is not None), None)
                    why = answer.message if runtime is None else f"{runtime} could not start ({RUNTIME_HINT})"
                    raise MatchSetupError(f"seat {seat.seat} ({command}) failed the handshake: {why}", tuple(tail))
                assert isinstance(answer, m.HelloAnswer)
                if answer.protocol not in codec.PROTOCOL_VERSIONS:
                    seat.close("protocol_mismatch")
                    raise MatchSetupError(_mismatch(seat.seat, command, answer.protocol))
            except MatchSetupError as error:
                if not config.spec.forfeit_unstartable:
                    raise
                self._forfeit_at_start(seat, str(error))
                continue
            seat.name = answer.name or f"seat{seat.seat}"
            seat.version = answer.version
            seat.protocol = answer.protocol  # what the seat is written in from now on (its error events)
            self._result_of(seat).name = seat.name
            self._result_of(seat).version = seat.version

    def _forfeit_at_start(self, seat: BotSeat, reason: str) -> None:
        seat.close("forfeited")
        seat.forfeited = True
        self._result_of(seat).start_failure = reason

    def _seat_players(self, game_number: int) -> None:
        """With ``rotate``, bot i sits at seat (i + game_number - 1) mod players in this game."""
        if not self.config.spec.rotate:
            return
        players = len(self.players)
        shift = (game_number - 1) % players
        self.seats = [self.players[(seat - shift) % players] for seat in range(players)]
        for seat, player in enumerate(self.seats):
            player.seat = seat

    def _result_of(self, seat: BotSeat) -> SeatResult:
        return self.results[self.players.index(seat)]

    def _play_game(self, game_number: int) -> None:
        config = self.config
        self._seat_players(game_number)
        number = config.spec.first_game + game_number - 1
        state = GameState(config.ruleset, seed=config.spec.seed, game=number, deals=config.spec.deals)
        messages = SeatMessages(config.ruleset.players, game_number)
        requests = wire_requests.RequestLines(game_number)
        name = f"game{game_number:03d}.replay.jsonl"
        writer = ReplayWriter(config.out_dir / name, self._header(game_number, state))
        for seat in self.seats:
            seat.queue(wire.game_start(state, seat.seat, game_number))
        prefix = list(config.spec.prefix) if game_number == 1 else []

        def decide(state: GameState) -> Sequence[Event]:
            if not prefix:
                return self._decide(state, game_number, writer, requests)
            seat_index, action = prefix.pop(0)
            events = state.apply(action, seat_index)
            writer.write(decision_record(seat_index, action, None, False, replayed=True))
            return events

        try:
            over = drive_game(
                state, decide, lambda events: self._dispatch(events, messages, writer), config.spec.deals_per_game
            )
        except BaseException as error:
            status = GameStatus.INTERRUPTED if isinstance(error, KeyboardInterrupt) else GameStatus.ERROR
            writer.finish(status, f"{type(error).__name__}: {error}")
            raise
        cpu = self._game_cpu()
        if over:
            writer.finish(GameStatus.COMPLETE, cpu_ms=cpu)
            final_places = state.final_places
        else:
            self._stopped = True
            detail = f"the referee stopped the game after deal {config.spec.deals_per_game}, as asked"
            writer.finish(GameStatus.STOPPED, detail, cpu_ms=cpu)
            final_places = state.places_by_totals()
        self.replays.append(str(writer.path))
        for seat in self.seats:
            seat.flush()
        assert final_places is not None
        for player, result in zip(self.players, self.results, strict=True):
            result.totals.append(state.totals[player.seat])
            result.places.append(final_places[player.seat])
        if self.progress and over:
            ended = state.events[-1]
            assert isinstance(ended, GameEnded)
            self.progress(game_number, config.spec.games, ended)

    def _game_cpu(self) -> list[float | None] | None:
        """Per seat, the CPU time (ms) its bot used in the game just played (and note it in the results); None
        without control groups."""
        if self._fair is None or self._fair.group is None:
            return None
        per_seat: list[float | None] = []
        for seat in self.seats:
            index = self.players.index(seat)
            now = seat.cpu_ns()
            if now < 0 or self.results[index].startup_cpu_ms is None:
                per_seat.append(None)
                continue
            used = (now - self._cpu_marks[index]) / 1e6
            self._cpu_marks[index] = now
            self.results[index].cpu_ms.append(used)
            per_seat.append(round(used, 3))
        return per_seat

    def _isolation(self) -> IsolationRecord | None:
        fair = self._fair
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

    def _header(self, game_number: int, state: GameState) -> Header:
        config = self.config
        ruleset = config.ruleset
        clock = config.spec.time
        return Header(
            format=FORMAT,
            version=VERSION,
            protocol=codec.PROTOCOL_VERSION,
            game=ruleset.game.value,
            players=ruleset.players,
            options=ruleset.options(),  # tuples encode as JSON arrays
            seed=state.seed,
            game_number=state.game,  # with the seed, it fixes the deals
            deals_file=config.spec.deals_source,
            max_strikes=config.spec.faults.max_strikes,
            consequences=dict(config.spec.faults.consequences),
            given_deals=len(config.spec.deals),
            bots=[
                BotRecord(
                    seat=s.seat,
                    name=s.name,
                    version=s.version,
                    command=self._result_of(s).command,
                    label=config.spec.bots[self.players.index(s)].label,
                )
                for s in self.seats
            ],
            time=ClockRecord(
                move_ms=clock.move_ms,
                startup_ms=clock.startup_ms,
                bank_ms=clock.bank_ms,
                increment_ms=clock.increment_ms,
            ),
            isolation=self._isolation(),
        )

    def _dispatch(self, events: Sequence[Event], messages: SeatMessages, writer: ReplayWriter) -> None:
        """Record ``events`` and queue each seat's messages of them (a message shared by seats is encoded once)."""
        for event in events:
            record = event_record(event)
            if record is not None:
                writer.write(record)
            for seat, line in zip(self.seats, messages.lines(event), strict=True):
                if line is not None:
                    seat.queue_encoded(line)

    def _decide(
        self, state: GameState, game_number: int, writer: ReplayWriter, requests: wire_requests.RequestLines
    ) -> list[Event]:
        """Make the decision of the seat to act (its bot's answer, or the fallback); return the events it caused."""
        index = state.to_act
        seat = self.seats[index]
        if seat.forfeited:
            action = state.fallback_action()
            events = state.apply(action)
            writer.write(decision_record(index, action, None, True))
            return events
        if state.phase is _PASS:
            if index not in self._passes:
                self._ask_passes(state, game_number)
            request_id, answer, spent, ignored, cpu = self._passes.pop(index)
        else:
            request_id = seat.new_id()
            request, line = requests.line_for(state, request_id, int(seat.deadline_s() * 1000))
            reply = seat.converse(request, line=line)
            answer, spent, ignored, cpu = reply.outcome, reply.elapsed_s, seat.ignored_since_request, reply.cpu_s
        fault: Fault
        if isinstance(answer, Fault):
            fault = answer
        else:
            try:
                action = wire.to_action(answer)
                events = state.apply(action, index)
            except wire.AnswerError as unreadable:  # (one name per type: mypyc types a name by its first use)
                fault = Fault(FaultCode.MALFORMED, str(unreadable))
            except IllegalActionError as illegal:
                fault = Fault(FaultCode.ILLEGAL, f"{illegal.message} [rule: {illegal.rule}]")
            else:
                cpu_ms = None if cpu is None else cpu * 1000
                writer.write(decision_record(index, action, spent * 1000, False, ignored=ignored, cpu_ms=cpu_ms))
                return events
        return self._fault(state, seat, request_id, fault, writer, spent, ignored, cpu)

    def _ask_passes(self, state: GameState, game_number: int) -> None:
        """Ask every seat still to pass at once (a pass depends only on the seat's own hand) and keep the replies.

        They are applied one by one in the rules' order as each seat's turn comes, so the replay log and every
        message are as if asked in turn; only the waiting overlaps.
        """
        asks = []
        for index in range(state.players):
            seat = self.seats[index]
            if not seat.forfeited and not state.observation(index).passed:
                request_id = seat.new_id()
                time_ms = int(seat.deadline_s() * 1000)
                asks.append((seat, wire_requests.pass_request_for(state, index, request_id, game_number, time_ms)))
        for (seat, request), reply in zip(asks, converse_all(asks), strict=True):
            outcome = (request.id, reply.outcome, reply.elapsed_s, seat.ignored_since_request, reply.cpu_s)
            self._passes[seat.seat] = outcome

    def _fault(
        self,
        state: GameState,
        seat: BotSeat,
        request_id: int,
        fault: Fault,
        writer: ReplayWriter,
        spent: float,
        ignored: int = 0,
        cpu: float | None = None,
    ) -> list[Event]:
        """Tell the bot what it did wrong, play the fallback for it, and forfeit the seat when the policy says so."""
        seat.record_fault(fault)
        action: Action = state.fallback_action()
        forfeit = self.config.spec.faults.forfeits(fault.code, seat.strikes)
        writer.write(
            FaultRecord(
                seat=seat.seat,
                code=fault.code,
                message=fault.message,
                strikes=seat.strikes,
                forfeited=forfeit,
            )
        )
        seat.queue(
            m.ErrorEvent(
                request_id=request_id,
                code=fault.code.value,
                message=fault.message + ("; the seat is forfeited" if forfeit else "; a fallback was played"),
                fallback=wire.to_answer(action, request_id),
                strikes=seat.strikes,
                forfeited=forfeit,
            ).in_protocol(seat.protocol)
        )
        if forfeit:
            seat.close("forfeited")
            seat.forfeited = True
            result = self._result_of(seat)
            if result.forfeited_in_game is None:
                result.forfeited_in_game = len(result.totals) + 1
                result.forfeit_reason = f"{fault.code.value} (strike {seat.strikes}): {fault.message}"
        events = state.apply(action)
        cpu_ms = None if cpu is None else cpu * 1000
        writer.write(decision_record(seat.seat, action, spent * 1000, True, ignored=ignored, cpu_ms=cpu_ms))
        return events

    def _close_all(self, reason: m.ByeReason) -> None:
        for seat in self.seats:
            if not seat.forfeited:
                seat.close(reason)
            elif seat.process is not None:
                seat.process.terminate(0)
        for file in self._transcript_files.values():
            file.close()

    def result_so_far(self, status: GameStatus = GameStatus.INTERRUPTED) -> MatchResult:
        """The result of the games finished so far (after Ctrl-C: what the standings were when it came)."""
        return self._result(status)

    def _result(self, status: GameStatus) -> MatchResult:
        for seat, result in zip(self.players, self.results, strict=True):
            stats = seat.stats
            result.strikes = seat.strikes
            result.faults = dict(stats.faults)
            result.decisions = stats.decisions
            result.mean_ms = 1000 * stats.thinking_s / stats.decisions if stats.decisions else 0.0
            result.max_ms = 1000 * stats.slowest_s
            result.stderr_log_error = getattr(seat.process, "stderr_log_error", None)
            result.ignored_lines = stats.ignored_lines
        ruleset = self.config.ruleset
        isolation = self._isolation()
        return MatchResult(
            game=ruleset.game.value,
            players=ruleset.players,
            options=ruleset.options(),
            seed=self.config.spec.seed,
            games_played=len(self.results[0].totals) if self.results else 0,
            seats=self.results,
            replays=self.replays,
            out_dir=os.fspath(self.config.out_dir),
            status=status,
            rotated=self.config.spec.rotate and self.config.spec.games > 1,
            isolation=None if isolation is None else msgspec.structs.asdict(isolation),
        )


def _mismatch(seat: int, command: str, protocol: int) -> str:
    versions = " and ".join(str(v) for v in codec.PROTOCOL_VERSIONS)
    return (
        f"seat {seat} ({command}) speaks protocol {protocol}; this referee speaks {versions}: "
        "update the bot (see PROTOCOL.md)"
    )


def run_match(config: MatchConfig, progress: GameEndedCallback | None = None) -> MatchResult:
    return Match(config, progress).run()
