"""Array copies for kernels, written as loops: ``dst[:] = src`` in Numba compiles a
broadcasting check whose error message formatting alone costs seconds of a first run."""
from numba import njit


@njit(cache=True, inline="always")
def copy1(dst, src):
    """``dst[:] = src`` for two 1-D arrays of the same length."""
    for i in range(dst.shape[0]):
        dst[i] = src[i]


@njit(cache=True, inline="always")
def copy2(dst, src):
    """``dst[:, :] = src`` for two 2-D arrays of the same shape."""
    for i in range(dst.shape[0]):
        for j in range(dst.shape[1]):
            dst[i, j] = src[i, j]
