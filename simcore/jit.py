"""Numba options shared by the kernels: ``INNER`` for functions only other kernels call.

``@njit(cache=True, **INNER)`` compiles a function without the CPython and C-callable
wrappers that a call from Python needs: one compiled wrapper less per function, about a
tenth of a game's first-run compile time. Such a function cannot be called from Python
(tests call the public kernels around it).
"""
INNER = {"no_cpython_wrapper": True, "no_cfunc_wrapper": True}
