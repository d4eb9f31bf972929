"""The package drawn from its own imports: each stage package on a floor, and what breaks the drawing.

    python scripts/import_floors.py

Reads every module's `tabletest` imports (those inside functions too) and prints: the imports between
stage packages, floor by floor; each import that runs back up (from a lower floor to a higher one);
import cycles between modules; and modules reached from two or more other stage packages that are not
on the ground floor (`files/` and the top-level modules), which a change ripples through. Exits 1 when
there is a cycle.
"""

from __future__ import annotations

import ast
import sys
from collections import defaultdict
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "tabletest"
# Ground to roof: a package may import those below it. The top-level modules (errors, config, cache,
# extras, the CLI's help texts) and files/ are the ground; options.py parses what the commands share.
FLOORS = ("ground", "assets", "layout", "truth", "compose", "write", "prompts", "render", "score", "export", "show", "farm", "cli")
ROOMS = {"files": "ground", "options": "layout", "cli": "cli"}


def module_imports() -> dict[str, set[str]]:
    """Each module's name and the project modules it imports."""
    imports: dict[str, set[str]] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        name = ".".join(path.relative_to(PACKAGE.parent).with_suffix("").parts).removesuffix(".__init__")
        found = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("tabletest"):
                found.add(node.module)
            elif isinstance(node, ast.Import):
                found |= {a.name for a in node.names if a.name.startswith("tabletest")}
        imports[name] = found
    return imports


def floor_of(module: str) -> str:
    """The floor of a module: its stage package, or the ground for a top-level module."""
    parts = module.split(".")
    if len(parts) == 1:
        return "ground"
    room = parts[1] if len(parts) > 2 or parts[1] in ROOMS else None
    return ROOMS.get(parts[1], parts[1]) if room else "ground"


def cycles(imports: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected groups of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for other in imports.get(node, ()):
            if other not in imports:
                continue
            if other not in index:
                visit(other)
                low[node] = min(low[node], low[other])
            elif other in stack:
                low[node] = min(low[node], index[other])
        if low[node] == index[node]:
            group = []
            while (top := stack.pop()) != node:
                group.append(top)
            group.append(node)
            if len(group) > 1:
                found.append(sorted(group))

    sys.setrecursionlimit(10_000)
    for node in imports:
        if node not in index:
            visit(node)
    return found


def main() -> int:
    imports = module_imports()
    between: dict[tuple[str, str], int] = defaultdict(int)
    upward, reached = [], defaultdict(set)
    for module, targets in imports.items():
        for target in targets:
            a, b = floor_of(module), floor_of(target)
            if a == b:
                continue
            between[a, b] += 1
            if FLOORS.index(b) > FLOORS.index(a):
                upward.append(f"{module} -> {target}")
            if b != "ground":
                reached[target].add(a)
    print("imports between floors (from -> to: count):")
    for (a, b), n in sorted(between.items(), key=lambda item: (FLOORS.index(item[0][0]), FLOORS.index(item[0][1]))):
        print(f"  {a:>8} -> {b:<8} {n}")
    print(f"imports that run back up: {len(upward)}")
    for line in sorted(upward):
        print(f"  {line}")
    shared = {m: floors for m, floors in reached.items() if len(floors) >= 2}
    print(f"modules off the ground reached from two or more other floors: {len(shared)}")
    for module, floors in sorted(shared.items()):
        print(f"  {module}: {', '.join(sorted(floors, key=FLOORS.index))}")
    found = cycles(imports)
    print(f"import cycles: {len(found)}")
    for group in found:
        print(f"  {' <-> '.join(group)}")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
