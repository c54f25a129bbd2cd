"""`python -m gradshell` runs the shell."""

from gradshell.shell.cli import main

raise SystemExit(main())
