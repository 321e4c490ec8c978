"""Primitives every game's kernels use: bit tricks, loop copies, addressable random streams, mask deals,
the move-log record, confidence intervals."""
