"""cardsim simulation core: kernels, rule configurations and the chunked runner."""
__version__ = "0.1.0"

# Before any kernel module loads: drop cached kernels compiled from other sources (see kernel_cache).
from cardsim.simcore.primitives import kernel_cache as _kernel_cache  # noqa: E402

_kernel_cache.check()
