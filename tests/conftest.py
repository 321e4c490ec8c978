"""Test-wide settings."""
import os

import pytest

# The suite measures what each command does in this process: no helper processes compiling
# kernels in the background (cardsim.simcore.compile_plan; tests/test_compile_plan.py covers it).
os.environ["CARDSIM_PARALLEL_COMPILE"] = "0"
# Every kernel is compiled from its source here (and in the subprocesses tests start), as
# without the kernels shipped precompiled; tests/test_kernel_store.py checks those.
# CARDSIM_KERNEL_STORE=1 runs the in-process tests on the store instead (the golden cases:
# every game's deal and play, bit for bit; README "Kernels shipped precompiled").
os.environ.setdefault("CARDSIM_KERNEL_STORE", "0")

from cardsim.simcore import dispatch  # noqa: E402

# Tests call inner kernels (engine steps, meld solvers) from Python. A callee compiled
# without its Python wrappers would be compiled a second time for that call, so in this
# process callees keep their wrappers; the machine code of every kernel body is the same.
# The subprocesses the CLI tests start run as users do, and the tests that check the patch
# itself, and the golden tests, switch it back on with the ``callees_without_wrappers`` fixture.
dispatch.WRAPPERLESS = False


@pytest.fixture
def callees_without_wrappers(monkeypatch):
    """Compile callees without Python wrappers, as a cardsim command does."""
    monkeypatch.setattr(dispatch, "WRAPPERLESS", True)
