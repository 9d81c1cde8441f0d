"""Answers the handshake, then never answers a request again (it keeps reading, so it is not stuck on a pipe)."""

from _common import after, run

run(lambda msg, reply, n: n >= after())
