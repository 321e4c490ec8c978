"""The ``plan`` command(s) (filled in by their issue; registered in :mod:`cardsim.cli.main`)."""
from __future__ import annotations
