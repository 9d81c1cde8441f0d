"""The error of a configuration value that checks itself (`referee.bots.isolation.Isolation`,
`referee.bots.time_control.TimeControl`): one shape, so that every front end names the setting in its own words."""

from __future__ import annotations

__all__ = ["SettingError"]


class SettingError(ValueError):
    """A setting that cannot work. ``setting`` names it as its field does (``move_ms``, ``memory_mb``), ``value``
    is what was given and ``problem`` says what is wrong; the command line names the option (``--time-per-move``),
    ladder.toml its key (``time.move_ms``)."""

    def __init__(self, setting: str, value: object, problem: str) -> None:
        super().__init__(f"{setting} = {value!r}: {problem}")
        self.setting = setting
        self.value = value
        self.problem = problem
