"""Readable pure-Python reference engines of the games' rules: the test oracles the kernels are
cross-checked against (slow; never used by a run)."""
