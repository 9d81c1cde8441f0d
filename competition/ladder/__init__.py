"""The cron ladder: a SQLite store, matchmaking, runs that are safe to kill at any instant, and a static site."""
