"""cardsim simulation core: kernels, rule configurations and the chunked runner."""
__version__ = "0.1.0"

from . import linking as _linking  # noqa: E402,F401  (compile each kernel once: see linking.py)
