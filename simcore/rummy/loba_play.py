"""``cardsim play loba``: the registry entry (see :mod:`simcore.rummy.play_task`)."""
from cardsim.simcore.rummy.play_task import LOBA_PLAY_TASK as TASK  # noqa: F401
