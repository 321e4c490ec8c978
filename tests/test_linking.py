"""Kernels linked by symbol (simcore.linking): callers hold a call, not a copy, and cached
callers load in a fresh process before their callees. That results do not change is what
the golden tests check (their data predate linking by symbol)."""
from __future__ import annotations

import json
import os
import pickle
import subprocess
import sys
import textwrap

import pytest
from numba import types

from cardsim.simcore import linking

MODULE = textwrap.dedent('''
    import sys
    import numpy as np
    from numba import njit
    from cardsim.simcore.linking import by_symbol

    @by_symbol
    @njit(cache=True)
    def inner(a, k):
        s = 0
        for x in a:
            s += x * k
        return s

    @njit(cache=True)
    def outer(a, k):
        return inner(a, k) + inner(a, k + 2)

    if __name__ == "__main__":
        import json
        value = int(outer(np.arange(10), 3))
        hits = sum(outer.stats.cache_hits.values())
        print(json.dumps({"value": value, "outer_from_cache": hits > 0,
                          "inner_loaded": len(inner.overloads)}))
''')


def _run(tmp_path, link: str) -> dict:
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "cache"), CARDSIM_LINK_BY_SYMBOL=link,
               PYTHONPATH=str(tmp_path))
    out = subprocess.run([sys.executable, str(tmp_path / "lk_mod.py")], env=env, capture_output=True,
                         text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_cached_caller_loads_its_callee_first_in_a_fresh_process(tmp_path):
    (tmp_path / "lk_mod.py").write_text(MODULE)
    expected = 45 * 3 + 45 * 5
    first = _run(tmp_path, "1")
    assert first == {"value": expected, "outer_from_cache": False, "inner_loaded": 1}
    # A fresh process calls outer first: its cached machine code calls inner by symbol,
    # so inner must be loaded (from the cache) before outer, or the process would abort.
    second = _run(tmp_path, "1")
    assert second == {"value": expected, "outer_from_cache": True, "inner_loaded": 1}
    # Entries written by either linking load under the other.
    assert _run(tmp_path, "0") == second


def test_caller_machine_code_calls_the_callee_instead_of_copying_it():
    from cardsim.simcore.tienlen import engine, play

    assert ("cardsim.simcore.tienlen.engine", "run_turns") in linking.BY_SYMBOL
    from cardsim.simcore.tienlen.play import play_chunk
    from cardsim.simcore.tienlen.rules import TienLenRules

    play_chunk(1, 0, 4, TienLenRules(), ["heuristic"] * 4)
    (callee_cres,) = engine.run_turns.overloads.values()
    callers = list(play.play_dealt.overloads.values())
    assert callers
    callee_name = callee_cres.fndesc.mangled_name
    for cres in callers:
        assert any(isinstance(r, linking.LoadCallee) and r.qualname == "run_turns" for r in cres.reload_init)
        module = cres.library._get_module_for_linking()
        (fn,) = [f for f in module.functions if f.name == callee_name]
        assert fn.is_declaration  # a call to the callee's own machine code, not a copy of it


def test_load_callee_pickles_by_value_and_compares_by_where_and_signature():
    a = linking.LoadCallee("m", "f", (types.int64, types.float64), "_ZN1m1f")
    b = pickle.loads(pickle.dumps(a))
    assert b == a and hash(b) == hash(a) and len({a, b}) == 1
    assert linking.LoadCallee("m", "f", (types.int64,), "_ZN1m1f") != a


def test_a_stale_callee_makes_the_cached_caller_a_miss_not_a_crash():
    from cardsim.simcore.tienlen import engine

    with pytest.raises(linking.StaleCallee):
        linking.LoadCallee("cardsim.simcore.tienlen.engine", "no_such_kernel", (), "x")()
    from cardsim.simcore.tienlen.play import play_chunk
    from cardsim.simcore.tienlen.rules import TienLenRules

    play_chunk(1, 0, 4, TienLenRules(), ["heuristic"] * 4)
    args = next(iter(engine.run_turns.overloads))
    with pytest.raises(linking.StaleCallee, match="is now"):
        linking.LoadCallee("cardsim.simcore.tienlen.engine", "run_turns", args, "old_symbol")()


INNER_V1 = textwrap.dedent('''
    from numba import njit
    from cardsim.simcore.linking import by_symbol

    @by_symbol
    @njit(cache=True)
    def inner(a, k):
        return a.sum() * k
''')
INNER_V2 = textwrap.dedent('''
    from numba import njit
    from cardsim.simcore.linking import by_symbol

    @by_symbol
    @njit(cache=True)
    def inner_v2(a, k):
        return a.sum() * k + 1000

    inner = inner_v2
''')
OUTER = textwrap.dedent('''
    import json
    import numpy as np
    from numba import njit
    from lk_inner import inner

    @njit(cache=True)
    def outer(a, k):
        return inner(a, k)

    value = int(outer(np.arange(10), 2))
    print(json.dumps({"value": value, "outer_from_cache": sum(outer.stats.cache_hits.values()) > 0}))
''')


def test_a_cached_caller_whose_callee_changed_is_compiled_again(tmp_path):
    """The callee lives in another file, so the caller's cache entry outlives its change."""
    (tmp_path / "lk_inner.py").write_text(INNER_V1)
    (tmp_path / "lk_mod.py").write_text(OUTER)
    assert _run(tmp_path, "1") == {"value": 90, "outer_from_cache": False}
    assert _run(tmp_path, "1") == {"value": 90, "outer_from_cache": True}
    (tmp_path / "lk_inner.py").write_text(INNER_V2)
    # The cached outer calls the old symbol: loading it would abort or run stale code.
    assert _run(tmp_path, "1") == {"value": 1090, "outer_from_cache": False}


SYMBOL = textwrap.dedent('''
    import sys
    import numpy as np
    from numba import njit
    from lk_inner import inner

    if sys.argv[1] == "other-first":  # numbers one more compilation before inner's
        njit(lambda x: x + 1)(1)
    inner(np.arange(3), 2)
    (cres,) = inner.overloads.values()
    print(cres.fndesc.mangled_name)
''')


def test_a_by_symbol_kernel_has_the_same_symbol_in_every_process(tmp_path):
    """Two processes that compile the same kernel (the compile plan's helper and the main
    process) must name it alike, or callers cached by one cannot call the other's code."""
    (tmp_path / "lk_inner.py").write_text(INNER_V1)
    (tmp_path / "lk_sym.py").write_text(SYMBOL)
    names = []
    for order in ("direct", "other-first"):
        env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / f"cache-{order}"), PYTHONPATH=str(tmp_path))
        out = subprocess.run([sys.executable, str(tmp_path / "lk_sym.py"), order], env=env, capture_output=True,
                             text=True, timeout=300)
        assert out.returncode == 0, out.stderr[-2000:]
        names.append(out.stdout.strip().splitlines()[-1])
    assert names[0] == names[1] and "inner" in names[0]
