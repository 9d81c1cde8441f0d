"""The rule for a bot's name, which tournaments and the ladder share: what a name may hold, and when two names are
one.

A name is 1-40 ASCII letters, digits and ``_ . - +``: it names the bot in every table, on the ladder's site and in
the paths of its logs, so it holds nothing a terminal, a page or a file system could read otherwise.

Two names are one when a reader could take one for the other: when they are equal after case folding or after
Unicode's confusable skeleton (UTS #39, ``confusables.txt``), or after both in turn. Restricted to the alphabet
above, the skeleton has four rows, and they are all it does: ``0`` looks like ``O``, ``1`` and ``I`` like ``l``, and
``m`` like ``rn``. Since ``I`` is ``i`` to case folding and ``l`` to the eye, ``i`` and ``l`` are one letter here;
so the key folds case and then maps ``0`` to ``o``, ``1`` and ``i`` to ``l``, and ``m`` to ``rn``: ``RustBot``,
``rustbot`` and ``RUSTB0T`` have one key, and so have ``Il1`` and ``lll``, ``bill`` and ``blll``, ``Mallory`` and
``rnallory``. The key is the coarsest that keeps every pair apart that neither case nor the skeleton joins. A
library of the whole skeleton would add nothing over these rows: no other character can be in a name.
"""

from __future__ import annotations

from collections.abc import Iterable

__all__ = ["ALPHABET", "MAX_LENGTH", "RULE", "name_key", "name_problem", "same_name_groups"]

ALPHABET = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-+")
MAX_LENGTH = 40
RULE = "1-40 ASCII letters (a-z, A-Z), digits (0-9) and _ . - +"

# The rows of UTS #39's confusables.txt whose source is in ALPHABET (0 -> O, 1 -> l, I -> l, m -> rn), after case
# folding: O is o, and I is i.
_FOLDED_SKELETON = str.maketrans({"0": "o", "1": "l", "i": "l", "m": "rn"})


def name_problem(name: str) -> str | None:
    """What is wrong with ``name`` as a bot's name (a clause for a refusal), or None when it is a good one."""
    if not name:
        return f"an empty name: use {RULE}"
    if len(name) > MAX_LENGTH:
        return f"{len(name)} characters: use {RULE}"
    other = sorted(set(name) - ALPHABET)
    if other:
        shown = " ".join(ascii(c) if not c.isprintable() or c.isspace() else c for c in other)
        return f"{shown} not allowed: use {RULE}"
    return None


def name_key(name: str) -> str:
    """What two names that a reader could take for each other share (see the module's docstring)."""
    return name.casefold().translate(_FOLDED_SKELETON)


def same_name_groups(names: Iterable[str]) -> list[list[str]]:
    """The groups of two or more different names with one key, each sorted, in the order of their first name."""
    groups: dict[str, set[str]] = {}
    for name in names:
        groups.setdefault(name_key(name), set()).add(name)
    return sorted(sorted(group) for group in groups.values() if len(group) > 1)
