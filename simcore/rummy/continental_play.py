"""``cardsim play continental``: the registry entry (see :mod:`simcore.rummy.play_task`)."""
from cardsim.simcore.rummy.play_task import CONTINENTAL_PLAY_TASK as TASK  # noqa: F401
