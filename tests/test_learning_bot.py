"""From training to the ladder: a policy wrapped as a protocol bot (referee.learning.bot) sees, at every request,
the observation the environment gives its seat, and so makes every decision the same.

In process, through the referee's own match loop with scripted transports, every request of whole games of every
game: the bot's rebuilt Observation is the rules core's own (the environment's, for the same seed and the same
decisions), field for field, and the encoded arrays are identical. Then once through ``kierki match`` with real bot
processes, against the heuristic sample bot too: every decision's observation and action are the environment's.
"""

from __future__ import annotations

import dataclasses
import re
import subprocess
import sys
from pathlib import Path

import pytest
from fake_transport import ScriptedBot, answer_line
from learning_helpers import digest, linear_policy

from protocol import messages as m
from referee.learning import KierkiEnv, Layout, heuristic_action
from referee.learning.bot import PolicyBot
from referee.learning.encoding import encode
from referee.match import Match
from referee.match_config import BotSpec, MatchConfig, MatchSpec, RulesetSpec
from referee.rules import Observation, Ruleset

ROOT = Path(__file__).resolve().parents[1]
KIERKI = "import sys; from kierki_cli.launch import main; sys.argv[0] = 'kierki'; main()"  # the installed command
Decision = tuple[Observation, str, int]  # the seat's observation, the digest of its encoding, the action


class RecordingBot(PolicyBot):
    def __init__(self, policy: object) -> None:
        super().__init__(policy)  # type: ignore[arg-type]
        self.decisions: list[Decision] = []

    def _decide(self, seen: Observation, selected: list[int] | None = None) -> int:
        assert self._layout is not None
        action = super()._decide(seen, selected)
        self.decisions.append((seen, digest(encode(self._layout, seen, selected or ())), action))
        return action


def _answer(bot: PolicyBot, request: m.Request) -> bytes:
    if isinstance(request, m.HelloRequest):
        bot.on_hello(request)
        return answer_line(m.HelloAnswer(id=request.id, name="policy", version="1", protocol=1))
    if isinstance(request, m.PlayRequest):
        return answer_line(m.PlayAnswer(id=request.id, card=bot.play(request)))
    if isinstance(request, m.PassRequest):
        return answer_line(m.PassAnswer(id=request.id, cards=tuple(bot.pass_cards(request))))
    if isinstance(request, m.TrumpRequest):
        suit = bot.trump(request) or "NT"
        return answer_line(m.TrumpAnswer(id=request.id, suit=suit))  # type: ignore[arg-type]
    assert isinstance(request, m.MoonRequest)
    return answer_line(m.MoonAnswer(id=request.id, choice=bot.moon(request)))  # type: ignore[arg-type]


def _transport(bot: PolicyBot) -> ScriptedBot:
    """A scripted transport that hands the policy bot every message, events first, as the bot library does."""
    transport = ScriptedBot()
    done = [0]

    def script(request: m.Request) -> list[bytes]:
        for message in transport.received[done[0] : -1]:
            assert not isinstance(message, m.Request)  # the earlier ones were answered: only events are new
            bot.on_event(message)
        done[0] = len(transport.received)
        return [_answer(bot, request)]

    transport.script = script
    return transport


def _policy_for(ruleset: Ruleset) -> object:
    return linear_policy(Layout.of(ruleset).size, seed=1)


def _match(tmp_path: Path, ruleset: Ruleset, seed: str) -> list[list[Decision]]:
    bots = [RecordingBot(_policy_for(ruleset)) for _ in range(ruleset.players)]
    transports = [_transport(bot) for bot in bots]
    config = MatchConfig.from_spec(
        MatchSpec(rules=RulesetSpec.of(ruleset), bots=tuple(BotSpec(("policy",)) for _ in bots), seed=seed), tmp_path
    )
    Match(config, transport_factory=lambda seat, spec: transports[seat]).run()
    return [bot.decisions for bot in bots]


def _env(ruleset: Ruleset, seed: str, opponents: dict[int, str] | None = None) -> list[list[Decision]]:
    """The same game in the environment: the policy (or the heuristic, for the seats in ``opponents``) at each seat."""
    env = KierkiEnv(ruleset.game, ruleset.players, ruleset.options())
    policy = _policy_for(ruleset)
    decisions: list[list[Decision]] = [[] for _ in range(ruleset.players)]
    env.reset(seed=int(seed))
    for agent in env.agent_iter():
        observation, _, terminated, _, _ = env.last()
        if terminated:
            env.step(None)
            continue
        assert observation is not None
        seat = env.possible_agents.index(agent)
        seen = env.seat_observation(agent)
        if opponents and seat in opponents:
            action = heuristic_action(env.ruleset, seen, env.selected(agent))
        else:
            action = policy(observation)  # type: ignore[operator]
            decisions[seat].append((seen, digest(observation), action))
        env.step(action)
    return decisions


def _comparable(seen: Observation) -> Observation:
    """The wire gives passed and received cards by suit, not in the order they were chosen."""
    return dataclasses.replace(seen, passed=tuple(sorted(seen.passed)), received=tuple(sorted(seen.received)))


GAMES = [
    ("kierki", None, {}),
    ("kierki3", None, {"lottery_start": "8"}),
    ("kierki", None, {"allow_no_trump": True, "lottery_start": "7"}),
    ("hearts", None, {"target": 60}),
    ("hearts", None, {"target": 40, "qs_breaks_hearts": True, "passing": "left", "moon_value": 52}),
    ("cancellation", 6, {"target": 60}),
    ("cancellation", 9, {"target": 40, "last_cancelled": "leader"}),
]


@pytest.mark.parametrize(("game", "players", "options"), GAMES, ids=lambda v: str(v))
def test_the_bot_rebuilds_every_observation_the_environment_gives(
    tmp_path: Path, game: str, players: int | None, options: dict[str, object]
) -> None:
    ruleset = Ruleset.create(game, players, options)
    through_protocol = _match(tmp_path, ruleset, "8")
    in_env = _env(ruleset, "8")
    for seat, (theirs, ours) in enumerate(zip(through_protocol, in_env, strict=True)):
        assert len(theirs) == len(ours) > 10, f"seat {seat}"
        for index, ((bot_seen, bot_digest, bot_action), (env_seen, env_digest, env_action)) in enumerate(
            zip(theirs, ours, strict=True)
        ):
            where = f"seat {seat}, decision {index} ({env_seen.phase.value}, deal {env_seen.deal})"
            assert _comparable(bot_seen) == _comparable(env_seen), where
            assert (bot_digest, bot_action) == (env_digest, env_action), where


def test_an_illegal_choice_of_the_policy_plays_the_lowest_legal_action(capsys: pytest.CaptureFixture[str]) -> None:
    env = KierkiEnv("hearts")
    env.reset(seed=2)
    bot = PolicyBot(lambda observation: 58, name="stubborn")  # the moon's "others": not legal for a pass
    bot._layout = env.layout
    seen = env.seat_observation(env.agent_selection)
    assert bot._decide(seen) == min(seen.hand)
    assert "the policy chose 58, not a legal action: playing" in capsys.readouterr().err


def test_kierki_match_with_the_wrapped_policy_makes_every_decision_the_environment_makes(tmp_path: Path) -> None:
    """A real `kierki match` (bot processes, the CLI's seed): two seats play the wrapped policy and two the
    heuristic sample bot; the policy's every observation and action are those of the same game in the
    environment, where the other two seats play the heuristic's in-process logic (policies.heuristic_action)."""
    ruleset = Ruleset.create("hearts", None, {"target": 40})
    bot = [sys.executable, str(ROOT / "tests" / "bots" / "linear_policy_bot.py"), "hearts", "4", "1"]
    command = [
        sys.executable, "-c", KIERKI, "match", "--game", "hearts", "--option", "target=40",
        "--seed", "8", "--out", str(tmp_path / "out"), " ".join(bot), "sample:heuristic", " ".join(bot),
        "sample:heuristic",
    ]  # fmt: skip
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=240)
    assert done.returncode == 0, done.stdout + done.stderr
    in_env = _env(ruleset, "8", opponents={1: "heuristic", 3: "heuristic"})
    for seat in (0, 2):
        log = (tmp_path / "out" / f"seat{seat}.stderr.log").read_text()
        decisions = re.findall(r"^decision (\w+) (\d+)$", log, flags=re.MULTILINE)
        assert len(decisions) > 40
        assert decisions == [(d, str(a)) for _, d, a in in_env[seat]]
