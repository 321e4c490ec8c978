"""Test-wide settings."""
import os

# The suite measures what each command does in this process: no helper processes compiling
# kernels in the background (cardsim.simcore.compile_plan; tests/test_compile_plan.py covers it).
os.environ["CARDSIM_PARALLEL_COMPILE"] = "0"
