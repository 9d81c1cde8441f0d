"""The expert sample bot for all four games, on the search library (``referee.search``): every decision searched
over worlds sampled from what its seat knows, the deal's end played exactly, a budget of its own CPU time.
Run it as ``python -m sample_bots.expert`` or ``kierki match sample:expert ...`` (docs/bots/expert.md).
"""
