"""The code-review targets of the game contract, counted: imports of private (``_name``) names
across modules, imports upward between layers, import circles, functions with more than 20
parameters (njit kernels marked).

    python benchmarks/review_targets.py

Layers, lowest first: primitives, framework, games, run / study / analysis, the API and the
adapters (``cardsim/``), the CLI. Every ``from cardsim... import`` counts, inside functions too.
"""
from __future__ import annotations

import ast
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = {"simcore": "cardsim.simcore", "cli": "cardsim.cli", "analysis": "cardsim.analysis", "cardsim": "cardsim"}
GAMES = ("tienlen", "tusac", "rummy")


def modules() -> dict[str, Path]:
    out = {}
    for top, package in PACKAGES.items():
        for path in (ROOT / top).rglob("*.py"):
            parts = list(path.relative_to(ROOT / top).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts = parts[:-1]
            out[".".join([package, *parts])] = path
    return out


def layer(name: str) -> int:
    if name.startswith("cardsim.cli") or name == "cardsim.__main__":
        return 6
    if name.startswith("cardsim.simcore.primitives"):
        return 0
    if name.startswith("cardsim.simcore.framework") or name == "cardsim.simcore":
        return 1
    if any(name.startswith(f"cardsim.simcore.{g}") for g in GAMES):
        return 2
    if name.startswith(("cardsim.simcore.run", "cardsim.simcore.study", "cardsim.analysis")):
        return 3
    return 4  # the API, the step API, the adapters, the playtest page


def strongly_connected(graph: dict[str, set[str]]) -> list[list[str]]:
    index, low, stack, on, found, counter = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                found.append(sorted(comp))

    sys.setrecursionlimit(10_000)
    for v in graph:
        if v not in index:
            visit(v)
    return found


def main() -> None:
    mods = modules()
    graph = {m: set() for m in mods}
    private, upward, big = [], [], []
    for name, path in mods.items():
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("cardsim"):
                if node.module in mods:
                    graph[name].add(node.module)
                private += [(name, node.module, a.name) for a in node.names
                            if a.name.startswith("_") and not a.name.startswith("__")]
                if layer(node.module) > layer(name) and name != "cardsim.__main__":
                    upward.append((name, node.module))
            if isinstance(node, ast.FunctionDef):
                n = len(node.args.args) + len(node.args.kwonlyargs)
                if n > 20:
                    kernel = any("njit" in ast.unparse(d) for d in node.decorator_list)
                    big.append((name, node.name, n, kernel))
    print("$ python benchmarks/review_targets.py")
    print(f"imports of private names across modules: {len(private)}")
    print(f"upward imports between layers: {len(upward)}")
    for pair in sorted(set(upward)):
        print(f"  {pair[0]} -> {pair[1]}")
    circles = strongly_connected(graph)
    print(f"import circles: {len(circles)}")
    for comp in circles:
        print("  " + ", ".join(comp))
    print(f"functions over 20 parameters: {len(big)} ({sum(b[3] for b in big)} of them njit kernels)")
    for module, function, n, kernel in big:
        print(f"  {module}.{function}: {n}{' (kernel)' if kernel else ''}")


if __name__ == "__main__":
    main()
