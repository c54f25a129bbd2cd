"""`python -m gradshell.replay FILE…` runs `gradshell replay`."""

import sys

from gradshell.replay.cli import main

raise SystemExit(main(sys.argv[1:]))
