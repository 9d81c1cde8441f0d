"""The referee's front door: every name the floors above (``kierki_cli``, ``competition``) use of the referee.

Import them from here (``from referee.api import Match, MatchSpec, TimeControl``), never from the module that
defines them; an import-linter contract in pyproject.toml (``referee-door``) holds the floors above to this module
and to the documented subpackages that are doors of their own: ``referee.rules`` (the rules core), ``referee.search``
(the search library), ``referee.learning`` (the environments) and ``referee.checkbot`` (``kierki check-bot``), each
a package whose ``__init__`` lists its public names in ``__all__``; and ``referee`` itself for ``__version__``.

The door is lazy (PEP 562): importing it imports nothing, and each name imports its defining module when it is first
asked for, so ``from referee.api import printable`` loads ``referee.vocabulary.text`` and not the match or its bot
processes: a command that does not play keeps its start-up. The names below are each written three times, which a
test keeps in agreement (tests/test_house.py): the imports mypy reads, the module each name comes from, and
``__all__``.
A new name the floors above need is added to all three, from the module that defines it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Final

if TYPE_CHECKING:
    from referee.analysis import (
        CLASSES,
        DEFAULT_PLAYOUTS,
        AnalysedLog,
        AnalysisFileError,
        AnalysisSettings,
        DecisionAnalysis,
        SeatSummary,
        Summary,
        analyse_log,
        read_analysis,
        write_analysed_html,
    )
    from referee.bots.disk_use import HOG_BYTES, HOG_FILES
    from referee.bots.fairplay import FairPlayError, fair_play_problem
    from referee.bots.isolation import FAIR_PLAY_MODES, LIMIT_MINIMUMS, LIMIT_SETTINGS, FairPlayMode, Isolation
    from referee.bots.pipe_results import Closed, Flushed, FlushResult, Line, LineResult, Timeout
    from referee.bots.procfs import process_stat
    from referee.bots.sandbox import (
        DEFAULT_CPU_S_PER_GAME,
        DEFAULT_DISK_MB,
        DEFAULT_FILE_MB,
        DEFAULT_MEMORY_MB,
        DEFAULT_PROCESSES,
        FILES_PER_MB,
        SANDBOXES,
        SYSTEM_FOLDERS,
        Limits,
        SandboxError,
        SandboxKind,
        check_bwrap,
    )
    from referee.bots.seat import SEE_STDERR_LOG, Transport
    from referee.bots.stderr_log import last_lines
    from referee.bots.time_control import TIME_MINIMUMS, PartialTimeControl, TimeControl
    from referee.cpu import CpuError, check_cpu, choose_cpu, cpu_allowance, pinned, usable_cpus
    from referee.dealfile import check_deal_file, parse_deal_file
    from referee.match import Match
    from referee.match_config import (
        SAMPLE_BOTS,
        BotSpec,
        DiskFullError,
        MatchConfig,
        MatchSetupError,
        MatchSpec,
        Prefix,
        RulesetSpec,
        SeatFilledDisk,
        decode_plain,
        decode_spec,
        default_bots,
        encode_plain,
        encode_spec,
        make_out_dir,
        parse_bot_commands,
        sample_bot_command,
    )
    from referee.replay.html import write_html
    from referee.replay.reader import ReplayError, load
    from referee.replay.records import DealRecord, TrickRecord
    from referee.replay.resume import ResumePoint, resume_point
    from referee.replay.schema import render_schema
    from referee.replay.timeline import Timeline, build_timeline, verify
    from referee.replay.view import (
        KIND_NAMES,
        ShownRecord,
        TableView,
        TrickSpan,
        deal_count,
        json_records,
        shown_records,
        step_view,
        tricks_of,
    )
    from referee.vocabulary.faults import Consequence, FaultCode, FaultPolicy
    from referee.vocabulary.match_result import GameStatus, MatchResult, SeatResult
    from referee.vocabulary.setting_error import SettingError, check_declared
    from referee.vocabulary.text import printable

# The module that defines each name: the one place the door looks a name up.
_HOMES: Final[dict[str, tuple[str, ...]]] = {
    "referee.analysis": (
        "CLASSES",
        "DEFAULT_PLAYOUTS",
        "AnalysedLog",
        "AnalysisFileError",
        "AnalysisSettings",
        "DecisionAnalysis",
        "SeatSummary",
        "Summary",
        "analyse_log",
        "read_analysis",
        "write_analysed_html",
    ),
    "referee.bots.disk_use": ("HOG_BYTES", "HOG_FILES"),
    "referee.bots.fairplay": ("FairPlayError", "fair_play_problem"),
    "referee.bots.isolation": ("FAIR_PLAY_MODES", "LIMIT_MINIMUMS", "LIMIT_SETTINGS", "FairPlayMode", "Isolation"),
    "referee.bots.pipe_results": ("Closed", "Flushed", "FlushResult", "Line", "LineResult", "Timeout"),
    "referee.bots.procfs": ("process_stat",),
    "referee.bots.sandbox": (
        "DEFAULT_CPU_S_PER_GAME",
        "DEFAULT_DISK_MB",
        "DEFAULT_FILE_MB",
        "DEFAULT_MEMORY_MB",
        "DEFAULT_PROCESSES",
        "FILES_PER_MB",
        "SANDBOXES",
        "SYSTEM_FOLDERS",
        "Limits",
        "SandboxError",
        "SandboxKind",
        "check_bwrap",
    ),
    "referee.bots.seat": ("SEE_STDERR_LOG", "Transport"),
    "referee.bots.stderr_log": ("last_lines",),
    "referee.bots.time_control": ("TIME_MINIMUMS", "PartialTimeControl", "TimeControl"),
    "referee.cpu": ("CpuError", "check_cpu", "choose_cpu", "cpu_allowance", "pinned", "usable_cpus"),
    "referee.dealfile": ("check_deal_file", "parse_deal_file"),
    "referee.vocabulary.faults": ("Consequence", "FaultCode", "FaultPolicy"),
    "referee.match": ("Match",),
    "referee.match_config": (
        "SAMPLE_BOTS",
        "BotSpec",
        "DiskFullError",
        "MatchConfig",
        "MatchSetupError",
        "MatchSpec",
        "Prefix",
        "RulesetSpec",
        "SeatFilledDisk",
        "decode_plain",
        "decode_spec",
        "default_bots",
        "encode_plain",
        "encode_spec",
        "make_out_dir",
        "parse_bot_commands",
        "sample_bot_command",
    ),
    "referee.vocabulary.match_result": ("GameStatus", "MatchResult", "SeatResult"),
    "referee.replay.html": ("write_html",),
    "referee.replay.reader": ("ReplayError", "load"),
    "referee.replay.records": ("DealRecord", "TrickRecord"),
    "referee.replay.resume": ("ResumePoint", "resume_point"),
    "referee.replay.schema": ("render_schema",),
    "referee.replay.timeline": ("Timeline", "build_timeline", "verify"),
    "referee.replay.view": (
        "KIND_NAMES",
        "ShownRecord",
        "TableView",
        "TrickSpan",
        "deal_count",
        "json_records",
        "shown_records",
        "step_view",
        "tricks_of",
    ),
    "referee.vocabulary.setting_error": ("SettingError", "check_declared"),
    "referee.vocabulary.text": ("printable",),
}
_HOME_OF: Final = {name: module for module, names in _HOMES.items() for name in names}

__all__ = [
    "CLASSES",
    "DEFAULT_CPU_S_PER_GAME",
    "DEFAULT_DISK_MB",
    "DEFAULT_FILE_MB",
    "DEFAULT_MEMORY_MB",
    "DEFAULT_PLAYOUTS",
    "DEFAULT_PROCESSES",
    "FAIR_PLAY_MODES",
    "FILES_PER_MB",
    "HOG_BYTES",
    "HOG_FILES",
    "KIND_NAMES",
    "LIMIT_MINIMUMS",
    "LIMIT_SETTINGS",
    "SAMPLE_BOTS",
    "SANDBOXES",
    "SEE_STDERR_LOG",
    "SYSTEM_FOLDERS",
    "TIME_MINIMUMS",
    "AnalysedLog",
    "AnalysisFileError",
    "AnalysisSettings",
    "BotSpec",
    "Closed",
    "Consequence",
    "CpuError",
    "DealRecord",
    "DecisionAnalysis",
    "DiskFullError",
    "FairPlayError",
    "FairPlayMode",
    "FaultCode",
    "FaultPolicy",
    "FlushResult",
    "Flushed",
    "GameStatus",
    "Isolation",
    "Limits",
    "Line",
    "LineResult",
    "Match",
    "MatchConfig",
    "MatchResult",
    "MatchSetupError",
    "MatchSpec",
    "PartialTimeControl",
    "Prefix",
    "ReplayError",
    "ResumePoint",
    "RulesetSpec",
    "SandboxError",
    "SandboxKind",
    "SeatFilledDisk",
    "SeatResult",
    "SeatSummary",
    "SettingError",
    "ShownRecord",
    "Summary",
    "TableView",
    "TimeControl",
    "Timeline",
    "Timeout",
    "Transport",
    "TrickRecord",
    "TrickSpan",
    "analyse_log",
    "build_timeline",
    "check_bwrap",
    "check_cpu",
    "check_deal_file",
    "check_declared",
    "choose_cpu",
    "cpu_allowance",
    "deal_count",
    "decode_plain",
    "decode_spec",
    "default_bots",
    "encode_plain",
    "encode_spec",
    "fair_play_problem",
    "json_records",
    "last_lines",
    "load",
    "make_out_dir",
    "parse_bot_commands",
    "parse_deal_file",
    "pinned",
    "printable",
    "process_stat",
    "read_analysis",
    "render_schema",
    "resume_point",
    "sample_bot_command",
    "shown_records",
    "step_view",
    "tricks_of",
    "usable_cpus",
    "verify",
    "write_analysed_html",
    "write_html",
]


def __getattr__(name: str) -> Any:
    """Import ``name``'s defining module on first use, and keep the name here so the next lookup is a plain one."""
    module = _HOME_OF.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    # The import statement's own path (not importlib.import_module), so ``python -X importtime`` still shows it.
    value = getattr(__import__(module, fromlist=(name,)), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(__all__)
