"""Training on the project's own data: composition models (Combiner) from its triplets."""
