"""cardsim simulation core: kernels, rule configurations and the chunked runner."""
__version__ = "0.1.0"
