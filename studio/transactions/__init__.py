"""Multi-turn transactions: records, FashionMT and multi-turn Fashion IQ files, a builder."""
