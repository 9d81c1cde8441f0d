"""What several commands share besides their options (those are `kierki_cli.shared_options`): the one parser of
``KEY=VALUE`` pairs, the seed a run gets, its default output folder."""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable
from pathlib import Path

import click

from referee.api import printable


def parse_pairs(
    pairs: Iterable[str],
    option_name: str,
    example: str,
    *,
    metavar: str = "KEY=VALUE",
    keys: Collection[str] | re.Pattern[str] | None = None,
    values: Collection[str] | None = None,
    strip: bool = False,
) -> list[tuple[str, str]]:
    """Split the ``KEY=VALUE`` texts of a repeatable option, in the order given: the one parser for them all.

    ``keys`` (the names allowed, or a pattern a name must match) and ``values`` (the values allowed) narrow what is
    accepted; ``strip`` drops spaces around the key and the value. A bad pair is a usage error (exit 2) naming the
    option, the pair, and a correct example.
    """
    parsed = []
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if strip:
            key, value = key.strip(), value.strip()
        if not sep or not key:
            problem = ""
        elif isinstance(keys, re.Pattern) and not keys.fullmatch(key):
            problem = f"; {key!r} is not a valid name"
        elif isinstance(keys, Collection) and key not in keys:
            problem = f"; the key is one of {', '.join(keys)}"
        elif values is not None and value not in values:
            problem = f"; the value is one of {', '.join(values)}"
        else:
            parsed.append((key, value))
            continue
        raise click.BadParameter(f"{pair!r}: write {metavar}, e.g. {example}{problem}", param_hint=option_name)
    return parsed


SHORT_SEED = 16  # characters; the default seed has 32 (128 bits in hex)


def new_seed() -> str:
    """128 bits from the operating system, as 32 hex digits: no bot can search them."""
    import secrets  # here: a match given --seed never needs it

    return secrets.token_hex(16)


def warn_short_seed(seed: str) -> None:
    """A note on stderr when ``--seed`` is short enough for a bot to search from its own cards."""
    if len(seed) < SHORT_SEED:
        click.echo(
            f"note: seed {printable(seed)!r} is short: a bot can find it from its own cards and predict every deal; "
            "fine for tests, leave --seed out for a competition",
            err=True,
        )


def fresh_out_dir(base: Path) -> Path:
    """The default output folder, never one an earlier run (of the same second) wrote into."""
    out_dir, suffix = base, 2
    while out_dir.exists():
        out_dir, suffix = base.with_name(f"{base.name}-{suffix}"), suffix + 1
    return out_dir


def make_out_dir(out_dir: Path) -> None:
    """Create a match's output folder before the header that names it, so that a folder that cannot be made is
    reported by its one-line error alone (the match itself would report it after the header)."""
    from referee import api  # its names load the match configuration: the match command's import, not every command's

    try:
        api.make_out_dir(out_dir)
    except api.MatchSetupError as error:
        raise click.ClickException(printable(str(error))) from None
