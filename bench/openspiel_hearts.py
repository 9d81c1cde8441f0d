"""OpenSpiel's Hearts set to play the rules RULES.md §4 adopts: the one table of its parameters.

RULES.md §6 names the two flags that differ from OpenSpiel's defaults (``qs_breaks_hearts=false``,
``can_lead_hearts_instead_of_qs=true``). Shared by the differential test (tests/test_openspiel_diff.py) and the
benchmarks' baseline (bench/run.py), so both always compare against the same variant.
"""

from __future__ import annotations

from typing import Final

OPENSPIEL_HEARTS_PARAMS: Final = {
    "pass_cards": True,
    "no_pts_on_first_trick": True,
    "can_lead_any_club": False,
    "jd_bonus": False,
    "avoid_all_tricks_bonus": False,
    "must_break_hearts": True,
    "qs_breaks_hearts": False,
    "can_lead_hearts_instead_of_qs": True,
}
