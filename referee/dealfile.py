"""The deal file: given hands for a game, so any situation can be reproduced (``kierki match --deals FILE``).

Format (JSON, documented in docs/rules/dealing.md)::

    {"format": "kierki-deals", "version": 1, "game": "kierki", "players": 4,
     "deals": [{"dealer": 0, "hands": [["AS", "KS", ...], ...], "kitty": []}, ...]}

Each hand lists its cards in dealing order (the Kierki trump chooser sees the first 5 or 6). Deals are used
in order; a game that needs more deals than the file has deals the rest from the seed.
"""

from __future__ import annotations

from dataclasses import dataclass

import msgspec

from referee.rules import DealSpec, Ruleset, parse_card
from referee.rules.cards import CardParseError
from referee.rules.dealing import validate_deals
from referee.rules.records import DealSpecError

FORMAT = "kierki-deals"
VERSION = 1


class _DealEntry(msgspec.Struct, forbid_unknown_fields=True):
    hands: list[list[str]]
    kitty: list[str] = []
    dealer: int | None = None


class _DealFile(msgspec.Struct, forbid_unknown_fields=True):
    format: str
    version: int
    game: str
    deals: list[_DealEntry]
    players: int | None = None


@dataclass(frozen=True)
class DealFile:
    game: str
    players: int | None
    deals: tuple[DealSpec, ...]


def parse_deal_file(data: bytes | str) -> DealFile:
    """Parse and check a deal file; raise DealSpecError saying what is wrong and where."""
    try:
        raw = msgspec.json.decode(data, type=_DealFile)
    except msgspec.DecodeError as error:
        raise DealSpecError(f"not a valid deal file: {error}") from None
    if raw.format != FORMAT or raw.version != VERSION:
        raise DealSpecError(
            f'a deal file starts with "format": "{FORMAT}", "version": {VERSION}; '
            f"this one has {raw.format!r} version {raw.version}"
        )
    specs = []
    for number, entry in enumerate(raw.deals, 1):
        try:
            hands = tuple(tuple(parse_card(c) for c in hand) for hand in entry.hands)
            kitty = tuple(parse_card(c) for c in entry.kitty)
        except CardParseError as error:
            raise DealSpecError(f"deal {number}: {error}") from None
        specs.append(DealSpec(hands, kitty, entry.dealer))
    return DealFile(raw.game, raw.players, tuple(specs))


def check_deal_file(deal_file: DealFile, ruleset: Ruleset) -> None:
    if deal_file.game != ruleset.game.value:
        raise DealSpecError(f"the deal file is for {deal_file.game}, not {ruleset.game.value}")
    if deal_file.players not in (None, ruleset.players):
        raise DealSpecError(f"the deal file is for {deal_file.players} players, not {ruleset.players}")
    validate_deals(ruleset, deal_file.deals)
