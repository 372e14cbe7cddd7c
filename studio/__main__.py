"""`python -m studio` is the same entry point as the `cir-studio` script."""

from studio.cli.main import main

raise SystemExit(main())
