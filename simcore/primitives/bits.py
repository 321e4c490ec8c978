"""Bit tricks on ``uint64`` masks for the kernels (LLVM intrinsics, no loops)."""
import numpy as np
from numba import njit, types
from numba.extending import intrinsic


@intrinsic
def _ctpop64(typingctx, x):
    sig = types.uint64(types.uint64)

    def codegen(context, builder, signature, args):
        return builder.ctpop(args[0])

    return sig, codegen


@intrinsic
def _cttz64(typingctx, x):
    sig = types.uint64(types.uint64)

    def codegen(context, builder, signature, args):
        return builder.cttz(args[0], context.get_constant(types.boolean, False))

    return sig, codegen


@intrinsic
def _ctlz64(typingctx, x):
    sig = types.uint64(types.uint64)

    def codegen(context, builder, signature, args):
        return builder.ctlz(args[0], context.get_constant(types.boolean, False))

    return sig, codegen


@njit(cache=True, inline="always")
def popcount(x):
    """Number of set bits of a ``uint64`` (returns int64)."""
    return np.int64(_ctpop64(np.uint64(x)))


@njit(cache=True, inline="always")
def lowest_bit(x):
    """Index of the lowest set bit (64 when ``x == 0``)."""
    return np.int64(_cttz64(np.uint64(x)))


@njit(cache=True, inline="always")
def highest_bit(x):
    """Index of the highest set bit (-1 when ``x == 0``)."""
    return np.int64(63) - np.int64(_ctlz64(np.uint64(x)))
