"""The one fault policy (referee/vocabulary/faults.py), as the CLI builds it and the match applies it."""

from __future__ import annotations

import typing

import click
import msgspec
import pytest

from kierki_cli.main import parse_fault_policy
from protocol import messages as m
from referee.vocabulary.faults import Consequence, FaultCode, FaultPolicy


def test_fault_codes_are_the_wire_error_codes() -> None:
    assert {code.value for code in FaultCode} == set(typing.get_args(m.ErrorCode))


def test_default_policy_forfeits_on_a_crash_or_the_third_strike() -> None:
    policy = FaultPolicy()
    assert not policy.forfeits(FaultCode.TIMEOUT, 2)
    assert policy.forfeits(FaultCode.TIMEOUT, 3)
    assert policy.forfeits(FaultCode.CRASH, 1)
    encoded = msgspec.json.decode(msgspec.json.encode(policy))["consequences"]
    assert list(encoded.items()) == [  # the replay header's "consequences", in this order
        ("timeout", "fallback"),
        ("illegal", "fallback"),
        ("malformed", "fallback"),
        ("wrong_type", "fallback"),
        ("crash", "forfeit"),
    ]


def test_on_fault_pairs_become_a_policy_and_a_crash_still_forfeits() -> None:
    policy = parse_fault_policy(5, ("timeout=forfeit", "illegal=fallback"))
    assert policy.max_strikes == 5
    assert policy.consequences[FaultCode.TIMEOUT] is Consequence.FORFEIT
    assert policy.forfeits("timeout", 1) and not policy.forfeits("illegal", 4)
    assert FaultPolicy(consequences={FaultCode.CRASH: Consequence.FALLBACK}).forfeits(FaultCode.CRASH, 1)


@pytest.mark.parametrize("pair", ["crash=fallback", "timeout", "timeout=maybe", "slow=forfeit"])
def test_on_fault_rejects_what_it_cannot_read(pair: str) -> None:
    with pytest.raises(click.UsageError) as raised:
        parse_fault_policy(3, (pair,))
    message = raised.value.format_message()
    assert (
        f"--on-fault: {pair!r}: write CODE=fallback|forfeit, e.g. timeout=forfeit (a crash always forfeits)" in message
    )
