"""Subprocesses of the PostgreSQL test run (workers, ``cir-studio``) use the test engine
(see cir_pg_engine)."""

import os

if os.environ.get("CIR_STUDIO_TEST_PG_URL") and os.environ.get(
    "CIR_STUDIO_TEST_ENGINE", ""
).lower() in {"postgresql", "postgres", "pg"}:
    import cir_pg_engine

    cir_pg_engine.install()
