"""Blind quality scoring of multi-turn transactions: samples, ratings, report, indicators."""
