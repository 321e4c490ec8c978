"""``python -m cardsim``: the command line."""
import sys

from cardsim.cli.main import main

sys.exit(main())
