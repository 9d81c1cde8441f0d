"""The deal seed of a set, which tournaments and the ladder share: a keyed hash (BLAKE2b) of the set's number under
a secret key, as 32 hex digits (128 bits: as unguessable as a match's default seed).

The ladder's key is its secret key file; a tournament's is the hash of its ``--seed`` text (any length), so a
tournament replays from its seed and a ladder's next sets cannot be guessed from its published ones.
"""

from __future__ import annotations

import hashlib

__all__ = ["set_seed", "text_key"]


def set_seed(key: bytes, set_id: int) -> str:
    """The deal seed of set ``set_id`` under ``key`` (16 to 64 bytes), as 32 hex digits."""
    return hashlib.blake2b(set_id.to_bytes(8, "big"), key=key, digest_size=16).hexdigest()


def text_key(seed: str) -> bytes:
    """A key of any text: a tournament's seed."""
    return hashlib.blake2b(seed.encode("utf-8"), digest_size=32).digest()
