"""Instruction counts of the tracked benchmarks' workloads, under valgrind's callgrind: what a speed trick buys,
measured on a shared machine (other programs slow a run down; they do not change how many instructions it runs).

    python bench/instructions.py                          # every workload, this checkout
    python bench/instructions.py games_hearts playout     # some
    python bench/instructions.py --tree DIR ...           # another tree's ``referee`` first on the path (a checkout
                                                          # of another commit, or tools/build_compiled.py's DIR)

Each workload is the ``ours`` side of a benchmark of bench/run.py (or bench/referee_bench.py) made deterministic:
a fixed number of games, hands or playouts from fixed seeds (``PYTHONHASHSEED=0``). Only the workload is counted:
the interpreter's start, the imports and the setup run uninstrumented (bench/callgrind_toggle.c starts and stops
the count). One JSON object per workload: ``instructions`` per ``unit`` and the units counted. ``match_loop`` is
the referee's side of ``referee_overhead``: a match of three games minus one of a single game, per decision of the
two games between (the bots' starts, the handshake and the stops cancel out); its bots are trivial C programs that
valgrind does not follow. ``import_match`` counts a whole ``python -c "import referee.match, referee.replay.view"``.
Needs valgrind, its headers and a C compiler; figures are in BENCHMARKS.md ("What each speed trick buys").
"""

from __future__ import annotations

import argparse
import compileall
import ctypes
import json
import os
import random
import re
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
HERE = Path(__file__).resolve().parent

Workload = Callable[[], tuple[int, str]]  # runs the counted work; returns (units, unit)
SETUPS: dict[str, Callable[[], Workload]] = {}


def workload(name: str) -> Callable[[Callable[[], Workload]], Callable[[], Workload]]:
    def register(setup: Callable[[], Workload]) -> Callable[[], Workload]:
        SETUPS[name] = setup
        return setup

    return register


def _games(game: str, count: int) -> Workload:
    from bench.run import play_random
    from referee.rules import GameState, Ruleset

    ruleset = Ruleset.create(game)

    def run() -> tuple[int, str]:
        rng = random.Random(1)
        return sum(play_random(GameState(ruleset, seed=rng.getrandbits(32)), rng) for _ in range(count)), "decision"

    return run


@workload("games_kierki")
def games_kierki() -> Workload:
    return _games("kierki", 3)


@workload("games_kierki3")
def games_kierki3() -> Workload:
    return _games("kierki3", 3)


@workload("games_hearts")
def games_hearts() -> Workload:
    return _games("hearts", 3)


@workload("games_cancellation")
def games_cancellation() -> Workload:
    return _games("cancellation", 2)


@workload("hearts_vs_openspiel")
def hearts_hands() -> Workload:
    from bench.run import our_hearts_runner, pre_dealt_hands

    one_hand = our_hearts_runner(pre_dealt_hands(0, 64))

    def run() -> tuple[int, str]:
        rng = random.Random(7)
        for _ in range(64):
            one_hand(rng)
        return 64, "hand"

    return run


@workload("playout_vs_openspiel")
def playouts() -> Workload:
    from bench.run import pick3, pre_dealt_hands
    from referee.rules import DealSpec, GameState, PassCards, Ruleset, playout

    rng = random.Random(0)
    left = Ruleset.create("hearts", 4, {"passing": "left", "target": 1})
    held = Ruleset.create("hearts", 4, {"passing": "none", "target": 1})
    states = []
    for deal in pre_dealt_hands(0, 64):
        state = GameState(left if deal.offset else held, deals=[DealSpec(deal.hands, dealer=3)])
        if deal.offset:
            for seat in range(4):
                state.apply(PassCards(tuple(pick3(state.hand(seat), rng.random))), seat=seat)
        states.append(state)

    def run() -> tuple[int, str]:
        rng = random.Random(7)
        for state in states * 4:
            playout(state, rng)
        return 4 * len(states), "playout"

    return run


def _deals(runner: Callable[[], Callable[[random.Random], int]], deals: int) -> Workload:
    one_deal = runner()

    def run() -> tuple[int, str]:
        rng = random.Random(7)
        for _ in range(deals):
            one_deal(rng)
        return deals, "deal"

    return run


@workload("env_vs_playout")
def env_deals() -> Workload:
    """bench/run.py's env_vs_playout, its environment's side: random Hearts deals stepped through KierkiEnv."""
    from bench import learning_bench

    return _deals(learning_bench.env_runner, 64)


@workload("env_playout_side")
def env_playout_side() -> Workload:
    """env_vs_playout's baseline: the same deals, each dealt from its seed and played out by ``playout``."""
    from bench import learning_bench

    return _deals(learning_bench.playout_runner, 64)


@workload("sampled_playouts")
def sampled_playouts() -> Workload:
    """bench/run.py's sampled_playouts: a world sampled from a seat's observation, then played out."""
    from bench.run import hearts_observations
    from referee.rules import playout, sample_state

    ruleset, seen = hearts_observations()

    def run() -> tuple[int, str]:
        rng = random.Random(7)
        for observation in seen:
            playout(sample_state(ruleset, observation, rng), rng)
        return len(seen), "world"

    return run


@workload("replay_verify")
def replay_verify() -> Workload:
    from referee.replay.reader import parse
    from referee.replay.timeline import verify

    data = (ROOT / "tests" / "golden" / "kierki-seed3.replay.jsonl").read_bytes()

    def run() -> tuple[int, str]:
        return sum(verify(parse(data)).decisions for _ in range(2)), "decision"

    return run


@workload("replay_view")
def replay_view() -> Workload:
    """Every step of a golden log as seat 0 sees it, its records included (``kierki replay --seat 0 --json``'s
    model; no benchmark of its own)."""
    from referee.replay.reader import parse
    from referee.replay.timeline import build_timeline
    from referee.replay.view import step_view

    data = (ROOT / "tests" / "golden" / "kierki-seed3.replay.jsonl").read_bytes()

    def run() -> tuple[int, str]:
        timeline = build_timeline(parse(data))
        for index in range(len(timeline.frames)):
            step_view(timeline, index, 0)
        return len(timeline.frames), "step"

    return run


@workload("referee_path")
def referee_path() -> Workload:
    """The referee's own work per decision in a match, in process and without bots (``match_loop``'s, less the
    transport, whose poll loop runs as many times as the bots' timing makes it): the request built and encoded,
    the bot's answer decoded and made an action, ``apply``, the decision's and the events' replay records encoded,
    and each seat's event lines. The answers are the first legal card, the first three cards, the first trump."""
    import msgspec

    from protocol import codec
    from protocol import messages as m
    from referee import wire
    from referee.game_loop import SeatMessages
    from referee.replay.writer import decision_record, event_record
    from referee.rules import GameState, Phase, Ruleset

    encode_record = msgspec.json.Encoder().encode
    ruleset = Ruleset.create("kierki")

    def answer(request: m.Request) -> bytes:
        if isinstance(request, m.PlayRequest):
            reply: m.BotMessage = m.PlayAnswer(id=request.id, card=request.legal[0])
        elif isinstance(request, m.PassRequest):
            reply = m.PassAnswer(id=request.id, cards=request.hand[:3])
        elif isinstance(request, m.TrumpRequest):
            reply = m.TrumpAnswer(id=request.id, suit=request.choices[0])
        else:
            reply = m.MoonAnswer(id=request.id, choice="others")
        return codec.encode_answer(reply)

    def one_game(game: int) -> int:
        state = GameState(ruleset, seed="2", game=game)
        messages = SeatMessages(4, game)
        try:
            from referee import wire_requests

            requests: Any = wire_requests
            line_for = wire_requests.RequestLines(game).line_for
        except ImportError:  # before issue 25's merge: the requests in wire (RequestLines there since issue 21)
            requests = wire
            if hasattr(wire, "RequestLines"):
                line_for = wire.RequestLines(game).line_for
            else:  # the tree before issue 21: module-level caches

                def line_for(state: GameState, request_id: int, time_ms: int) -> tuple[m.Request, bytes]:
                    return wire.request_line_for(state, request_id, game, time_ms)  # type: ignore[attr-defined, no-any-return]

        sent = 0
        for event in state.events:
            sent += sum(len(line) for line in messages.lines(event) if line is not None)
        decisions = 0
        passes: dict[int, bytes] = {}
        while not state.is_over:
            seat = state.to_act
            if state.phase is Phase.PASS:
                if not passes:
                    for other in range(4):
                        request = requests.pass_request_for(state, other, decisions, game, 1000)
                        sent += len(codec.encode(request))
                        passes[other] = answer(request)
                line = passes.pop(seat)
            else:
                request, encoded = line_for(state, decisions, 1000)
                sent += len(encoded)
                line = answer(request)
            action = wire.to_action(codec.decode_bot_line(line))
            events = state.apply(action, seat)
            sent += len(encode_record(decision_record(seat, action, 1.0, False)))
            for event in events:
                record = event_record(event)
                if record is not None:
                    sent += len(encode_record(record))
                sent += sum(len(line) for line in messages.lines(event) if line is not None)
            decisions += 1
        assert sent > 0
        return decisions

    def run() -> tuple[int, str]:
        return sum(one_game(game) for game in (1, 2)), "decision"

    return run


def _match(games: int) -> Workload:
    """A match of four trivial C bots, the same work in every tree: without control groups (where the tree has
    them, ``fair_play="none"``: the trees before issue 23 have none), configured the way the tree configures one."""
    from referee.match import Match
    from referee.rules import Ruleset

    try:  # each from its own module where the tree has it; older trees had them in the match and the seat
        from referee.bots.time_control import TimeControl
        from referee.match_config import BotSpec, MatchConfig
    except ImportError:
        from referee.bots.seat import TimeControl
        from referee.match import BotSpec, MatchConfig

    work = Path(tempfile.mkdtemp(prefix="kierki-instructions-"))
    bot = work / "trivial_bot"
    subprocess.run(["cc", "-O2", "-o", str(bot), str(HERE / "trivial_bot.c")], check=True)
    ruleset = Ruleset.create("kierki")
    bots = tuple(BotSpec((str(bot),)) for _ in range(4))
    time = TimeControl(move_ms=60_000, startup_ms=60_000)
    try:
        from referee.match_config import MatchSpec
    except ImportError:  # the tree before issue 21: MatchConfig built directly
        config = MatchConfig(ruleset=ruleset, bots=bots, out_dir=work / "out", seed="2", games=games, time=time)
    else:
        fields: dict[str, Any] = {}
        try:
            from referee.bots.isolation import Isolation

            if "fair_play" in Isolation.__struct_fields__:
                fields["isolation"] = Isolation(fair_play="none")
        except ImportError:
            pass
        try:
            from referee.match_config import RulesetSpec
        except ImportError:  # the trees of issue 21 to 31: the ruleset's fields copied by MatchSpec.of
            spec = MatchSpec.of(ruleset, bots=bots, seed="2", games=games, time=time, **fields)  # type: ignore[attr-defined]
        else:
            spec = MatchSpec(rules=RulesetSpec.of(ruleset), bots=bots, seed="2", games=games, time=time, **fields)
        config = MatchConfig.from_spec(spec, work / "out")

    def run() -> tuple[int, str]:
        match = Match(config)
        match.run()
        return sum(s.stats.decisions for s in match.seats), "decision"

    return run


@workload("match_loop_1")
def match_one() -> Workload:
    return _match(1)


@workload("match_loop_3")
def match_three() -> Workload:
    return _match(3)


def child(name: str, library: str) -> None:
    """Run one workload with counting on only around it, and print its units."""
    toggle = ctypes.CDLL(library)
    run = SETUPS[name]()
    run()  # once uncounted: caches filled, lazy imports done
    toggle.kierki_callgrind_start()
    units, unit = run()
    toggle.kierki_callgrind_stop()
    from referee.rules import state

    print(json.dumps({"units": units, "unit": unit, "rules_from": state.__file__}))


def _toggle_library(work: Path) -> Path:
    library = work / "libcallgrind_toggle.so"
    subprocess.run(["cc", "-shared", "-fPIC", "-O2", "-o", str(library), str(HERE / "callgrind_toggle.c")], check=True)
    return library


def _counted(command: list[str], env: dict[str, str], work: Path, instr_at_start: bool) -> tuple[int, str]:
    """Run ``command`` under callgrind; return the instructions of its ``workload`` dump (or of the whole run)
    and its stdout."""
    out = work / "callgrind.out"
    for old in work.glob("callgrind.out*"):
        old.unlink()
    done = subprocess.run(
        [
            "valgrind",
            "--tool=callgrind",
            f"--instr-atstart={'yes' if instr_at_start else 'no'}",
            f"--callgrind-out-file={out}",
            *command,
        ],
        env=env,
        cwd=work,  # not the checkout: ``python -c`` puts the current folder first on sys.path
        capture_output=True,
        text=True,
    )
    if done.returncode:
        raise SystemExit(f"{' '.join(command)} failed under valgrind:\n{done.stdout}\n{done.stderr[-3000:]}")
    total = 0
    for dump in sorted(work.glob("callgrind.out*")):
        text = dump.read_text(errors="replace")
        if instr_at_start or "workload" in text.split("\nevents:", 1)[0]:
            found = re.search(r"^totals: (\d+)", text, re.MULTILINE)
            total += int(found.group(1)) if found else 0
    return total, done.stdout


def measure(name: str, tree: Path | None, work: Path, library: Path) -> dict[str, Any]:
    env = {**os.environ, "PYTHONHASHSEED": "0"}
    env.pop("KIERKI_COMPILED", None)
    if tree is not None:
        env["KIERKI_COMPILED"] = str(tree)  # bench/run.py puts it first on sys.path
    if name == "import_match":
        env["PYTHONPATH"] = str(tree or ROOT)
        for package in ("referee", "protocol"):  # bytecode written first: the count is of the imports, not of compiling
            if (Path(env["PYTHONPATH"]) / package).is_dir():
                compileall.compile_dir(Path(env["PYTHONPATH"]) / package, quiet=1)
        instructions, _ = _counted(
            [sys.executable, "-c", "import referee.match, referee.replay.view"], env, work, instr_at_start=True
        )
        return {"name": name, "instructions": instructions, "unit": "process", "units": 1}
    if name == "match_loop":
        one = measure("match_loop_1", tree, work, library)
        three = measure("match_loop_3", tree, work, library)
        units = three["units"] - one["units"]
        per = (three["instructions"] * three["units"] - one["instructions"] * one["units"]) / units
        return {"name": name, "instructions": round(per), "unit": "decision", "units": units}
    instructions, stdout = _counted(
        [sys.executable, str(Path(__file__).resolve()), "--child", name, "--library", str(library)],
        env,
        work,
        instr_at_start=False,
    )
    result = json.loads(stdout.strip().splitlines()[-1])
    return {
        "name": name,
        "instructions": round(instructions / result["units"]),
        "unit": result["unit"],
        "units": result["units"],
        "rules_from": result["rules_from"],
    }


NAMES = [n for n in SETUPS if not n.startswith("match_loop_")] + ["match_loop", "import_match"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    parser.add_argument("names", nargs="*", metavar="NAME", help=f"workloads (default: all): {', '.join(NAMES)}")
    parser.add_argument("--tree", type=Path, help="a tree whose referee package is put first on sys.path")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--library", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        sys.path.insert(0, str(ROOT))
        import bench.run  # noqa: F401  (puts KIERKI_COMPILED, the tree, first on sys.path)

        child(args.child, args.library)
        return
    unknown = [n for n in args.names if n not in NAMES]
    if unknown:
        parser.error(f"unknown workload {', '.join(unknown)}: choose from {', '.join(NAMES)}")
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        library = _toggle_library(work)
        tree = args.tree.resolve() if args.tree else None
        for name in args.names or NAMES:
            print(json.dumps({**measure(name, tree, work, library), "tree": str(tree or ROOT)}), flush=True)


if __name__ == "__main__":
    main()
