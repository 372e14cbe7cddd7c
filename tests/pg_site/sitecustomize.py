"""Subprocesses of the PostgreSQL test run (workers, ``cir-studio``) use the test engine;
those of the SQLite phase of ``dev.py test`` note the projects they open (see
cir_pg_engine: the same functions, in the same processes)."""

import os

if os.environ.get("CIR_STUDIO_TEST_PG_URL") and os.environ.get(
    "CIR_STUDIO_TEST_ENGINE", ""
).lower() in {"postgresql", "postgres", "pg"}:
    import cir_pg_engine

    cir_pg_engine.install()
elif os.environ.get("CIR_STUDIO_TEST_OPEN_LOG"):
    import cir_pg_engine

    cir_pg_engine.record_opens()
