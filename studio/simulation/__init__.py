"""Simulated users and batch evaluation of single-turn, multi-turn and chat retrieval."""
