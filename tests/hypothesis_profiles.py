"""Hypothesis profiles, chosen by ``HYPOTHESIS_PROFILE`` (tests/conftest.py loads the profile before any test module).

- ``dev`` (the default, and the README's test command): a fresh random search each run, with the usual example
  counts, so local runs keep exploring; a failure prints the blob that reproduces it
  (``@reproduce_failure``) and is replayed first next time from ``.hypothesis/``.
- ``ci`` (``.ci/run``): derandomized, so every CI run tries the same examples and a red run reruns red; no
  example database.
- ``deep``: ten times each test's example count, for a long local hunt (``HYPOTHESIS_PROFILE=deep python -m pytest
  tests/test_rules_machine.py``).

Tests write their example counts as ``examples(n)``, which the ``deep`` profile scales.
"""

from __future__ import annotations

import os

from hypothesis import settings

PROFILE = os.environ.get("HYPOTHESIS_PROFILE", "dev")
_SCALE = {"deep": 10}

# Hypothesis itself loads a derandomized "ci" profile when it sees a CI environment variable (CI, GITHUB_ACTIONS, ...),
# and a profile registered without a parent inherits whatever is loaded: each of ours starts from Hypothesis's own
# "default" profile instead, so dev and deep stay random even inside a CI job.
_BASE = settings.get_profile("default")
settings.register_profile("dev", parent=_BASE, deadline=None, print_blob=True)
settings.register_profile("ci", parent=_BASE, deadline=None, print_blob=True, derandomize=True, database=None)
settings.register_profile("deep", parent=_BASE, deadline=None, print_blob=True)


def examples(count: int) -> int:
    """A test's example count under the current profile."""
    return count * _SCALE.get(PROFILE, 1)


def load() -> None:
    settings.load_profile(PROFILE)  # an unknown name fails here, naming the registered ones
