"""Entry script of the frozen application (PyInstaller): the same ``main`` as ``cir-studio``.

Two things only a frozen program needs happen here before the studio starts:

- ``multiprocessing.freeze_support()``: the demo catalog draws images in a process pool
  with the ``spawn`` context; in a bundle the children are this same executable started
  with ``--multiprocessing-fork`` and must not run the studio's ``main``.
- ``--bundle-check`` (first argument only, not part of ``cir-studio --help``): import and
  exercise every heavy library the bundle must carry and print one JSON line; the build's
  smoke test runs it. See ``packaging/bundle_check.py``.
"""

import multiprocessing
import sys


def run() -> int:
    multiprocessing.freeze_support()
    if sys.argv[1:2] == ["--bundle-check"]:
        from bundle_check import main as bundle_check

        return bundle_check(sys.argv[2:])
    from studio.cli.main import main

    return main()


if __name__ == "__main__":
    raise SystemExit(run())
