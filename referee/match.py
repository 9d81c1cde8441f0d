"""A match: start the bots, play the games, enforce deadlines and legality, record everything, clean up.

Data flows one way: bot line -> protocol decoder -> ``to_action`` -> ``GameState.apply`` -> events -> per-seat
messages -> each bot. Whatever a bot does (time out, answer illegally or in garbage, crash) the referee plays a
deterministic fallback for it, tells it why, counts a strike, and goes on; other seats never notice. When the fault
policy (``referee.vocabulary.faults.FaultPolicy``: a crash, a fault it makes forfeit, ``max_strikes`` strikes) says
so, the seat is played by the fallback to the end and marked forfeited.
"""

from __future__ import annotations

import errno
import os
import time
from collections.abc import Sequence
from typing import Final

import msgspec

from protocol import codec
from protocol import messages as m
from referee import wire, wire_requests
from referee.bots import reaper
from referee.bots.disk_use import disk_use, hog
from referee.bots.seat import BotSeat, converse_all
from referee.decision import SeatAnswer, SeatDecision
from referee.game_loop import SeatMessages, drive_game
from referee.match_config import (
    DiskFullError,
    GameEndedCallback,
    MatchConfig,
    MatchSetupError,
    SeatFilledDisk,
    make_out_dir,
)
from referee.replay.errors import ReplayWriteError
from referee.replay.records import FORMAT, VERSION, ClockRecord, FaultRecord, Header
from referee.replay.writer import ReplayWriter, decision_record, event_record
from referee.rules import Action, Event, GameEnded, GameState, IllegalActionError, Phase
from referee.seating import Seating, TransportFactory
from referee.vocabulary.faults import Fault, FaultCode
from referee.vocabulary.match_result import GameStatus, MatchResult, SeatResult

_PASS: Final = Phase.PASS  # read per decision: a constant, not looked up on its enum class (see rules/state.py)


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
        self.seating = Seating(config, transport_factory)  # the bots, their seats and results
        self.replays: list[str] = []
        self.game_seconds: list[float] = []  # wall time of each game, bots' start and stop excluded
        self._passes: dict[int, SeatAnswer] = {}  # seat -> its pass, asked of every seat at once, until its turn
        self._stopped = False  # a game was stopped after config.spec.deals_per_game deals

    @property
    def seats(self) -> list[BotSeat]:
        """The table of the game in progress (or the last one played), in seat order."""
        return self.seating.seats

    @property
    def results(self) -> list[SeatResult]:
        """Each bot's results so far, in the order of ``config.spec.bots``."""
        return self.seating.results

    # --- running -------------------------------------------------------------------------------------------

    def run(self) -> MatchResult:
        config = self.config
        make_out_dir(config.out_dir)
        status = GameStatus.COMPLETE
        reaper.become_subreaper()  # descendants that leave a bot's session come back to us when the bot dies
        children_before = reaper.child_pids()
        try:
            self.seating.open()
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
            self.seating.close("match_over" if status is GameStatus.COMPLETE and not self._stopped else "aborted")
            reaper.reap_orphans(children_before)
        return self._result(GameStatus.STOPPED if self._stopped and status is GameStatus.COMPLETE else status)

    def _disk_failure(self, error: ReplayWriteError) -> MatchSetupError:
        """The error a replay log that could not be written stops the match with: on a full disk whose space one
        bot's private directory holds (no sandbox, or ``--limit-disk 0``), that bot's doing (`SeatFilledDisk`)."""
        if error.errno not in (errno.ENOSPC, errno.EDQUOT) or self.seating.transport_factory is not None:
            return MatchSetupError(str(error))
        uses = [disk_use(self.config.out_dir / f"seat{bot}") for bot in range(len(self.seating.players))]
        bot = hog(uses)
        if bot is None:
            return DiskFullError(f"{error} (no bot's private directory holds the space)")
        reason = f"filled the disk: its private directory held {uses[bot]} when the replay log could not be written"
        return SeatFilledDisk(f"seat {bot} ({self.config.spec.bots[bot].command}) {reason}; {error}", bot, reason)

    def _play_game(self, game_number: int) -> None:
        config = self.config
        seating = self.seating
        seating.seat_for_game(game_number)
        number = config.spec.first_game + game_number - 1
        state = GameState(config.ruleset, seed=config.spec.seed, game=number, deals=config.spec.deals)
        messages = SeatMessages(config.ruleset.players, game_number)
        requests = wire_requests.RequestLines(game_number)
        name = f"game{game_number:03d}.replay.jsonl"
        writer = ReplayWriter(config.out_dir / name, self._header(game_number, state))
        for seat in seating.seats:
            seat.queue(wire.game_start(state, seat.seat, game_number))
        prefix = list(config.spec.prefix) if game_number == 1 else []

        def decide(state: GameState) -> Sequence[Event]:
            if not prefix:
                return self._decide(state, game_number, writer, requests)
            seat_index, action = prefix.pop(0)
            events = state.apply(action, seat_index)
            self._record(writer, SeatDecision(seat_index, action, None, replayed=True))
            return events

        try:
            over = drive_game(
                state, decide, lambda events: self._dispatch(events, messages, writer), config.spec.deals_per_game
            )
        except BaseException as error:
            status = GameStatus.INTERRUPTED if isinstance(error, KeyboardInterrupt) else GameStatus.ERROR
            writer.finish(status, f"{type(error).__name__}: {error}")
            raise
        cpu = seating.game_cpu()
        if over:
            writer.finish(GameStatus.COMPLETE, cpu_ms=cpu)
            final_places = state.final_places
        else:
            self._stopped = True
            detail = f"the referee stopped the game after deal {config.spec.deals_per_game}, as asked"
            writer.finish(GameStatus.STOPPED, detail, cpu_ms=cpu)
            final_places = state.places_by_totals()
        self.replays.append(str(writer.path))
        for seat in seating.seats:
            seat.flush()
        assert final_places is not None
        for player, result in zip(seating.players, seating.results, strict=True):
            result.totals.append(state.totals[player.seat])
            result.places.append(final_places[player.seat])
        if self.progress and over:
            ended = state.events[-1]
            assert isinstance(ended, GameEnded)
            self.progress(game_number, config.spec.games, ended)

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
            bots=self.seating.bot_records(),
            time=ClockRecord(
                move_ms=clock.move_ms,
                startup_ms=clock.startup_ms,
                bank_ms=clock.bank_ms,
                increment_ms=clock.increment_ms,
            ),
            isolation=self.seating.isolation_record(),
        )

    def _dispatch(self, events: Sequence[Event], messages: SeatMessages, writer: ReplayWriter) -> None:
        """Record ``events`` and queue each seat's messages of them (a message shared by seats is encoded once)."""
        seats = self.seating.seats
        for event in events:
            record = event_record(event)
            if record is not None:
                writer.write(record)
            for seat, line in zip(seats, messages.lines(event), strict=True):
                if line is not None:
                    seat.queue_encoded(line)

    def _decide(
        self, state: GameState, game_number: int, writer: ReplayWriter, requests: wire_requests.RequestLines
    ) -> list[Event]:
        """Make the decision of the seat to act (its bot's answer, or the fallback); return the events it caused."""
        index = state.to_act
        seat = self.seating.seats[index]
        if seat.forfeited:
            action = state.fallback_action()
            events = state.apply(action)
            self._record(writer, SeatDecision(index, action, None, fallback=True))
            return events
        if state.phase is _PASS:
            if index not in self._passes:
                self._ask_passes(state, game_number)
            answer = self._passes.pop(index)
        else:
            request_id = seat.new_id()
            request, line = requests.line_for(state, request_id, int(seat.clock.deadline_s() * 1000))
            reply = seat.converse(request, line=line)
            answer = SeatAnswer(request_id, reply.outcome, reply.elapsed_s, seat.ignored_since_request, reply.cpu_s)
        outcome = answer.outcome
        fault: Fault
        if isinstance(outcome, Fault):
            fault = outcome
        else:
            try:
                action = wire.to_action(outcome)
                events = state.apply(action, index)
            except wire.AnswerError as unreadable:  # (one name per type: mypyc types a name by its first use)
                fault = Fault(FaultCode.MALFORMED, str(unreadable))
            except IllegalActionError as illegal:
                fault = Fault(FaultCode.ILLEGAL, f"{illegal.message} [rule: {illegal.rule}]")
            else:
                self._record(writer, SeatDecision(index, action, answer))
                return events
        return self._fault(state, seat, answer, fault, writer)

    def _ask_passes(self, state: GameState, game_number: int) -> None:
        """Ask every seat still to pass at once (a pass depends only on the seat's own hand) and keep the replies.

        They are applied one by one in the rules' order as each seat's turn comes, so the replay log and every
        message are as if asked in turn; only the waiting overlaps.
        """
        asks = []
        for index in range(state.players):
            seat = self.seating.seats[index]
            if not seat.forfeited and not state.observation(index).passed:
                request_id = seat.new_id()
                time_ms = int(seat.clock.deadline_s() * 1000)
                asks.append((seat, wire_requests.pass_request_for(state, index, request_id, game_number, time_ms)))
        for (seat, request), reply in zip(asks, converse_all(asks), strict=True):
            answer = SeatAnswer(request.id, reply.outcome, reply.elapsed_s, seat.ignored_since_request, reply.cpu_s)
            self._passes[seat.seat] = answer

    def _fault(
        self, state: GameState, seat: BotSeat, answer: SeatAnswer, fault: Fault, writer: ReplayWriter
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
        request_id = answer.request_id
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
            result = self.seating.result_of(seat)
            if result.forfeited_in_game is None:
                result.forfeited_in_game = len(result.totals) + 1
                result.forfeit_reason = f"{fault.code.value} (strike {seat.strikes}): {fault.message}"
        events = state.apply(action)
        self._record(writer, SeatDecision(seat.seat, action, answer, fallback=True))
        return events

    def _record(self, writer: ReplayWriter, decision: SeatDecision) -> None:
        """Write ``decision`` to the replay log: the one place a decision is recorded."""
        answer = decision.answer
        if answer is None:  # the referee decided without asking: no time, written as null
            record = decision_record(decision.seat, decision.action, None, decision.fallback, decision.replayed)
        else:
            cpu_ms = None if answer.cpu_s is None else answer.cpu_s * 1000
            record = decision_record(
                decision.seat,
                decision.action,
                answer.spent_s * 1000,
                decision.fallback,
                decision.replayed,
                answer.ignored,
                cpu_ms,
            )
        writer.write(record)

    def result_so_far(self, status: GameStatus = GameStatus.INTERRUPTED) -> MatchResult:
        """The result of the games finished so far (after Ctrl-C: what the standings were when it came)."""
        return self._result(status)

    def _result(self, status: GameStatus) -> MatchResult:
        seating = self.seating
        for seat, result in zip(seating.players, seating.results, strict=True):
            stats = seat.stats
            result.strikes = seat.strikes
            result.faults = dict(stats.faults)
            result.decisions = stats.decisions
            result.mean_ms = 1000 * stats.thinking_s / stats.decisions if stats.decisions else 0.0
            result.max_ms = 1000 * stats.slowest_s
            result.stderr_log_error = getattr(seat.process, "stderr_log_error", None)
            result.ignored_lines = stats.ignored_lines
        ruleset = self.config.ruleset
        isolation = self.seating.isolation_record()
        return MatchResult(
            game=ruleset.game.value,
            players=ruleset.players,
            options=ruleset.options(),
            seed=self.config.spec.seed,
            games=len(seating.results[0].totals) if seating.results else 0,
            seats=seating.results,
            replays=self.replays,
            out_dir=os.fspath(self.config.out_dir),
            status=status,
            rotated=self.config.spec.rotate and self.config.spec.games > 1,
            isolation=None if isolation is None else msgspec.structs.asdict(isolation),
        )


def run_match(config: MatchConfig, progress: GameEndedCallback | None = None) -> MatchResult:
    return Match(config, progress).run()
