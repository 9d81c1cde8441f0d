"""Crashes before saying anything, with a traceback on stderr."""

raise RuntimeError("hostile bot: crashing at start")
