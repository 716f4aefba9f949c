"""``python -m codekeep.server``: run the language server (same options as ``codekeep serve``)."""

from codekeep.cli.serve import main

raise SystemExit(main())
