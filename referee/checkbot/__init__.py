"""``kierki check-bot``: a conformance check that tells a bot author what their bot does wrong, before a match does.

For each game checked the bot is started once and plays one real game in one seat (``scenarios``): it is asked in
the situations worth checking and on its other turns in the same deals, and every event of the game reaches it.
Each answer is checked (``judge``): it arrives in time, it is one well-formed line (``protocol.codec.decode_bot_line``),
of the right type and id, with nothing else written before it, and it is legal (``GameState.apply`` on a copy). One
unknown message type is sent mid-game and the next request carries an unknown field: the bot must ignore both and
keep answering. One ``error`` event (in the protocol version the bot answered ``hello`` with) comes before the third
request: like every event it wants no answer, and a line that answers an event is reported in a NOTE, counted
against nothing, as a match ignores it. Where the clock is the bot's CPU time, a NOTE counts the decisions in time on
it that the wall clock (``--fair-play none``) would have timed out. After ``game_end`` the bot gets ``bye`` and must
exit; a second run of the bot gets only ``hello`` and then end of input, and must exit too. The report (``report``)
is data; ``kierki_cli.checkbot_cmd`` prints it.
"""

from referee.checkbot.check import StartBot, check_bot
from referee.checkbot.report import (
    HINT_BYE,
    HINT_CRASH,
    HINT_DEBUG,
    HINT_EOF,
    HINT_EVENTS,
    HINT_FLUSH,
    HINT_ID,
    HINT_ILLEGAL,
    HINT_MULTILINE,
    HINT_PROTOCOL,
    HINT_SLOW,
    HINT_STATUS,
    HINT_STUCK,
    HINT_TYPE,
    HINT_UNKNOWN,
    CheckOptions,
    CheckReport,
    CheckResult,
    Status,
)
from referee.checkbot.scenarios import ALL_GAMES, GAME_NUMBER, Checkpoint, Scenario, describe, scenario, walk

__all__ = [
    "ALL_GAMES",
    "GAME_NUMBER",
    "HINT_BYE",
    "HINT_CRASH",
    "HINT_DEBUG",
    "HINT_EOF",
    "HINT_EVENTS",
    "HINT_FLUSH",
    "HINT_ID",
    "HINT_ILLEGAL",
    "HINT_MULTILINE",
    "HINT_PROTOCOL",
    "HINT_SLOW",
    "HINT_STATUS",
    "HINT_STUCK",
    "HINT_TYPE",
    "HINT_UNKNOWN",
    "CheckOptions",
    "CheckReport",
    "CheckResult",
    "Checkpoint",
    "Scenario",
    "StartBot",
    "Status",
    "check_bot",
    "describe",
    "scenario",
    "walk",
]
