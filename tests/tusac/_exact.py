"""Exact deal probabilities for the tests: the product's generating functions
(:mod:`cardsim.simcore.tusac.exact`), re-exported under the names the tests use."""
from cardsim.simcore.tusac.exact import (p_all_types_in, p_both_weak, p_full_soldiers, p_generals,  # noqa: F401
                                         p_weak)
