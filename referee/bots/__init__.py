"""Bot processes: the transport (``process``), their isolation (``sandbox``) and the conversation with one bot
(``seat``). The transport and the sandbox know nothing of the protocol or the rules."""
