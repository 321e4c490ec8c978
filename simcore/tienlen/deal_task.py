"""Old name of the deal task (kept while ``tests/test_cli_deal.py`` imports it); see :mod:`.tasks`."""
from cardsim.simcore.tienlen.tasks import BLOCKS_PER_CHUNK, DEAL as TASK, DealTask, reported_events  # noqa: F401
