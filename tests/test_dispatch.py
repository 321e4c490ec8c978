"""simcore.dispatch: callees compiled without Python wrappers, integer constants typed as
plain integers. That results do not change is what the golden tests check."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest
from numba import njit

from cardsim.simcore import dispatch

# as a cardsim command compiles (tests/conftest.py keeps callee wrappers elsewhere)
pytestmark = pytest.mark.usefixtures("callees_without_wrappers")

# The patches apply to kernels of cardsim modules only: the test kernels claim to be one.
FAKE_MODULE = "cardsim.simcore._dispatch_test"


def _kernels():
    def inner(a, k):
        s = 0
        for x in a:
            s += x * k
        return s

    inner.__module__ = FAKE_MODULE
    inner_kernel = njit(inner)

    def outer(a, k):
        t = 0  # an integer constant, then a variable: one int64 overload of inner, not two
        t = inner_kernel(a, t) + inner_kernel(a, k)
        return t + 1

    outer.__module__ = FAKE_MODULE
    return inner_kernel, njit(outer)


def test_a_callee_has_no_python_wrapper_until_python_calls_it():
    inner, outer = _kernels()
    a = np.arange(10)
    assert outer(a, 3) == 45 * 3 + 1
    (cres,) = inner.overloads.values()
    assert not dispatch.has_python_wrapper(cres)
    assert dispatch.has_python_wrapper(next(iter(outer.overloads.values())))
    # called from Python with the same types: compiled again, now with its wrapper
    assert inner(a, 3) == 45 * 3
    (cres,) = inner.overloads.values()
    assert dispatch.has_python_wrapper(cres)
    assert inner(a, 5) == 45 * 5 and outer(a, 2) == 45 * 2 + 1


def test_an_integer_constant_does_not_compile_the_callee_once_more():
    inner, outer = _kernels()
    outer(np.arange(4), 7)
    assert len(inner.overloads) == 1


def test_compile_as_callee_leaves_the_wrappers_out():
    from numba import typeof

    inner, _ = _kernels()
    args = (typeof(np.arange(3)), typeof(np.int64(1)))
    dispatch.compile_as_callee(inner, args)
    assert not dispatch.has_python_wrapper(inner.overloads[args])
    assert inner(np.arange(3), np.int64(2)) == 6


CACHED = textwrap.dedent(f'''
    import json, sys
    import numpy as np
    from numba import njit
    from cardsim.simcore import dispatch

    sys.modules["{FAKE_MODULE}"] = sys.modules[__name__]  # numba's cache imports a kernel's module

    def inner(a, k):
        s = 0
        for x in a:
            s += x * k
        return s
    inner.__module__ = "{FAKE_MODULE}"
    inner = njit(cache=True)(inner)

    def outer(a, k):
        return inner(a, k) + 1
    outer.__module__ = "{FAKE_MODULE}"
    outer = njit(cache=True)(outer)

    from numba.core import event

    class Compiles(event.Listener):  # compilations of inner (the wrapper recompile included)
        count = 0

        def on_start(self, ev):
            if ev.data["dispatcher"] is inner:
                Compiles.count += 1

        def on_end(self, ev):
            pass

    event.register("numba:compile", Compiles())
    a = np.arange(10)
    if sys.argv[1] == "outer":
        value = int(outer(a, 3))
    else:  # Python calls the kernel the other process cached without its wrapper
        value = int(inner(a, 3))
    wrapped = [dispatch.has_python_wrapper(cres) for cres in inner.overloads.values()]
    print(json.dumps({{"value": value, "wrapped": wrapped, "from_cache": sum(inner.stats.cache_hits.values()) > 0,
                      "compiled": Compiles.count}}))
''')


def _run(tmp_path, which: str, **env) -> dict:
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "cache"), **env)
    out = subprocess.run([sys.executable, str(tmp_path / "dp_mod.py"), which], env=env, capture_output=True,
                         text=True, timeout=300)
    assert out.returncode == 0, (out.returncode, out.stderr[-2000:])  # -11: called a wrapper-less kernel
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_a_cached_wrapperless_callee_called_from_python_is_compiled_again(tmp_path):
    (tmp_path / "dp_mod.py").write_text(CACHED)
    assert _run(tmp_path, "outer") == {"value": 136, "wrapped": [False], "from_cache": False, "compiled": 1}
    # loaded from the cache without a wrapper, compiled again with it, and the cache entry replaced
    assert _run(tmp_path, "inner") == {"value": 135, "wrapped": [True], "from_cache": True, "compiled": 1}
    # so the next process loads the wrapped version and compiles nothing
    assert _run(tmp_path, "inner") == {"value": 135, "wrapped": [True], "from_cache": True, "compiled": 0}
    # outer loads from the cache with inner's code inside it
    assert _run(tmp_path, "outer") == {"value": 136, "wrapped": [], "from_cache": False, "compiled": 0}


def test_the_switch_keeps_every_wrapper(tmp_path):
    (tmp_path / "dp_mod.py").write_text(CACHED)
    assert _run(tmp_path, "outer", CARDSIM_CALLEE_WRAPPERS="1")["wrapped"] == [True]


def test_flag_comparisons_give_numbas_answers():
    from numba.core.compiler import Flags

    def numba_values(f):  # what numba's TargetConfig.values computes, option by option
        return {k: getattr(f, k) for k in f.options}

    plain, nrt, nrt_too, no_nrt = Flags(), Flags(), Flags(), Flags()
    nrt.nrt = nrt_too.nrt = True
    no_nrt.nrt = False  # set, but to the default: equal to a flags object that leaves it unset
    assert plain.values() == numba_values(plain) and nrt.values() == numba_values(nrt)
    assert list(nrt.values().items()) == list(numba_values(nrt).items())  # same order too
    assert nrt == nrt_too and plain == no_nrt and not plain == nrt and plain != nrt
    assert hash(plain) == hash(nrt) == hash(tuple(sorted(numba_values(plain))))
    assert (Flags() == 3) is False


_WARM_LOAD = textwrap.dedent("""
    import json, sys
    import cardsim.simcore.dispatch  # noqa: F401  (installs the patches)
    import numpy as np
    from numba import njit

    from cardsim.simcore.rummy.state import new_state  # a cached kernel that allocates (needs the NRT)

    values = [int(a.size) for a in new_state(2, 5)]
    registries = "numba.np.linalg" in sys.modules
    loaded = sum(new_state.stats.cache_hits.values())

    @njit  # compiled after the load, in the same process: the compiler refreshes its registries
    def later(a):
        return a.sum()  # an array method: implemented in a registry the refresh imports

    print(json.dumps({"values": values, "registries": registries, "loaded": loaded,
                      "later": float(later(np.arange(5.0)))}))
""")


def test_a_warm_load_skips_the_compiler_registries(tmp_path):
    """A kernel loaded from Numba's cache runs without the compiler's registries (imported
    by Numba's refresh, e.g. ``numba.np.linalg``); ``CARDSIM_FULL_CACHE_LOAD=1`` restores
    Numba's own load. The first process compiles (and so refreshes); the others load, and
    then compile one more kernel, which refreshes the registries as Numba's compiler does."""
    script = tmp_path / "warm_load.py"
    script.write_text(_WARM_LOAD)

    def run(full_load: str) -> dict:
        env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "cache"), CARDSIM_FULL_CACHE_LOAD=full_load)
        proc = subprocess.run([sys.executable, str(script)], env=env, capture_output=True, text=True, check=True)
        return json.loads(proc.stdout)

    sizes = [2, 2, 2, 6, 106, 96, 512, 16, 16, 6, 5, 18]  # rummy.state.new_state(2 seats, 5 cards)
    assert run("0") == {"values": sizes, "registries": True, "loaded": 0, "later": 10.0}
    assert run("0") == {"values": sizes, "registries": False, "loaded": 1, "later": 10.0}
    assert run("1") == {"values": sizes, "registries": True, "loaded": 1, "later": 10.0}
