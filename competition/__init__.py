"""Tournaments, duplicate sets, ratings, the cron ladder and executors, built on the referee."""
