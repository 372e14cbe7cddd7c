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
- SQL is portable (SQLite and PostgreSQL): ``ON CONFLICT … DO NOTHING/DO UPDATE``,
  ``RETURNING id``, no ``rowid``, explicit ``ORDER BY``. A line that stays SQLite-only
  (``group_concat``, ``PRAGMA``, date functions, ``randomblob``) is marked
  ``# dialect: sqlite``.
- ``tests/unit/test_layers.py`` fails on SQL, ``.execute(`` or ``sqlite3`` outside here.
"""

from studio.store.project import Project, resolve_project_path

__all__ = ["Project", "resolve_project_path"]
