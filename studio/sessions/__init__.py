"""Multi-turn and chat retrieval sessions: parsing turns, composing queries, asking questions."""
