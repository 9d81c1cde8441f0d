"""The referee's shared vocabulary: the words every floor above speaks and none of them owns.

``faults`` (fault codes, statuses and the strike policy), ``match_result`` (a match's result and result.json),
``setting_error`` (a setting out of its bounds, worded for the front ends) and ``text`` (bot-supplied text made safe
to print). They import nothing of the referee's above them (contract ``referee-floors``); the floors above reach
them through ``referee.api``.
"""
