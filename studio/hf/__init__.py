"""Hugging Face datasets / Parquet in and out (#26): the shape the hub's CIR sets use."""
