"""A Monte Carlo sample bot for all four games: it samples the cards it has not seen consistently with what its
seat saw and scores its choices by playing the deal out in each sampled world (see ``bot``).

The one sample bot that imports our packages: the Python bot library (``protocol.bot``) and the rules core's
public playout API (``referee.rules``: ``sample_state``, ``playout``, ``GameState``), which it demonstrates.
Run it as ``python -m sample_bots.montecarlo`` or ``kierki match sample:montecarlo ...``.
"""
