"""The project store: the only place with SQL (issue #21).

Layout (followed by every branch that moves SQL here; keep it when adding tables):

- ``studio/store/project.py``: ``Project`` — open/create, ``change()`` / ``writing()``
  (one transaction, one audit row, one project event after commit), meta, people, images.
- ``studio/store/repos/<aggregate>.py``: one repository module per aggregate, made of plain
  functions that take the ``Project`` first and say what they do::

      from studio.store.repos import captions as captions_repo
      caption_id = captions_repo.write_draft(project, pair_id, author_id, text, now)

  Aggregates: ``captions`` (captions, reviews, flags), ``caption_queue`` (the writing and
  review queues), ``ranks`` (caption ranks), ``pairs``, ``attributes`` (vocabulary, image
  labels), ``sessions`` (retrieval sessions, turns, imported chat dialogs),
  ``transactions``, ``ratings`` (rating samples, queues and scores), ``runs`` (experiment
  runs), and for the other half (team, importers, exporters …): ``images``, ``people``,
  ``datasets`` (bulk imports, export reads), ``team`` (assignments, packages, progress),
  ``team_merge`` (the merge's writes), ``team_records`` (rows as mergeable records),
  ``stats``. Beside the repositories: ``package_file.py`` (work package files, SQLite
  only), ``embedding_cache.py`` (the cache folder's key file), ``schema.py`` (the
  tables, declared once), ``migrations.py`` / ``schema_upgrade.py`` / ``alembic/`` (the
  migration chain; ``legacy_migrations.py`` and ``pg_schema.py`` the numbered schemas
  before it), ``errors.py`` (the store's errors: ``StoreError``, busy, read-only,
  unreachable, ``RecordRejected`` naming the rule; no engine type leaves the store),
  ``locks.py`` (the row lock a rule needs: ``lock_row`` / ``lock_key``).
- Repositories return plain values: scalars, tuples, ``dict`` rows, or the records of
  ``studio.store.records``. They never import feature modules (``studio.captions`` …);
  the feature module turns rows into its own dataclasses and keeps its business rules.
- Writes run inside the caller's ``project.change(...)`` / ``project.writing(...)``; a rule
  that several writers could break (N captions per pair, one draft per person and pair) is
  checked by the repository function that runs inside that same transaction, after it
  locked the one thing the rule is about (``locks.lock_row``: the pair, the caption; on
  SQLite a no-op, ``BEGIN IMMEDIATE`` already serialized the writers).
- SQL is written once, in the SQL both engines accept as written, and nothing rewrites
  it at run time: named parameters (``:pair_id``) with a dict of values (``binds.py``
  spells ``IN (…)`` lists and a row's ``VALUES (…)``), ``ON CONFLICT … DO NOTHING/DO
  UPDATE``, ``RETURNING id`` where the caller needs the new id (the only source of
  ``lastrowid`` on PostgreSQL), ``lower(x) LIKE lower(:p)`` for a case-insensitive match,
  ``(a = :b OR (a IS NULL AND :b IS NULL))`` for a null-safe one (no ``IS [NOT] DISTINCT
  FROM``: SQLite before 3.39 lacks it), ``CASE`` instead of two-argument ``max``/``min``,
  no ``rowid``, explicit ``ORDER BY``. SQLite runs the text as it is; PostgreSQL runs it
  as SQLAlchemy's ``text()`` compiles it for psycopg (``pg_database.compiled``, once per
  statement). A ``?`` placeholder or values by position raise ``errors.NotPortable``.
  What has no common spelling is chosen per engine in the one place that needs it (the
  JSON of a transaction's images in ``repos/team_records``) or done in Python. A line
  that only ever runs on SQLite (``PRAGMA``, work package files) is marked
  ``# dialect: sqlite``.
- ``tests/unit/test_layers.py`` fails on SQL, ``.execute(`` or ``sqlite3`` outside here.
"""

from studio.store.project import Project, resolve_project_path

__all__ = ["Project", "resolve_project_path"]
