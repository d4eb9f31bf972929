"""The package drawn from its own imports: each stage package on a floor, and what breaks the drawing.

    python scripts/import_floors.py

Reads every module's `tabletest` imports (those inside functions too; not those only type checkers read)
and prints: the imports between floors; each import that runs back up (from a lower floor to a higher
one); each command that imports another command; the modules reached from two or more other floors
(what a change to them ripples through); and import cycles between modules, then those that imports only
type checkers read would close. Exits 1 when there is a cycle of either kind.
"""

from __future__ import annotations

import ast
import sys
from collections import defaultdict
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "tabletest"
# Ground to roof: a package may import those below it. The top-level modules (errors, config, cache,
# extras) and files/ are the ground; the commands are the roof: `tabletest/commands/` (the root command in
# `main.py`, one module per command or command group, the options, examples and help display they share)
# and the entry point `tabletest/cli.py`. A command may use any stage; a command that imports another
# command is listed.
FLOORS = ("ground", "assets", "layout", "truth", "compose", "write", "prompts", "render", "verify", "score", "rewards", "export", "show", "farm", "commands")
ENTRY = "tabletest.cli"
SHARED = {"tabletest.commands", "tabletest.commands.options", "tabletest.commands.examples", "tabletest.commands.help_display"}


def module_imports() -> dict[str, set[str]]:
    """Each module's name and the project modules it imports."""
    return {name: set(_imported(tree)) for name, tree in _modules()}


def type_only_imports() -> dict[str, set[str]]:
    """Each module's name and the project modules it imports, those only type checkers read included."""
    return {name: set(_imported(tree, typing=True)) for name, tree in _modules()}


def _modules():
    for path in sorted(PACKAGE.rglob("*.py")):
        yield ".".join(path.relative_to(PACKAGE.parent).with_suffix("").parts).removesuffix(".__init__"), ast.parse(path.read_text())


def _imported(node: ast.AST, typing: bool = False):
    """The project modules a module imports when it runs (inside functions too; not those only type
    checkers read, under `if TYPE_CHECKING:`, unless `typing`)."""
    if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test) and not typing:
        yield from (name for child in node.orelse for name in _imported(child))
        return
    if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("tabletest"):
        yield node.module
    elif isinstance(node, ast.Import):
        yield from (a.name for a in node.names if a.name.startswith("tabletest"))
    for child in ast.iter_child_nodes(node):
        yield from _imported(child, typing)


def floor_of(module: str) -> str:
    """The floor of a module: `commands` for a command, its stage package, or the ground."""
    parts = module.split(".")
    if module == ENTRY:
        return "commands"
    if len(parts) > 2 or len(parts) == 2 and parts[1] in FLOORS:  # a stage's module, or a stage that is one package
        return "ground" if parts[1] == "files" else parts[1]
    return "ground"


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
    upward, commands, reached = [], [], defaultdict(set)
    for module, targets in imports.items():
        for target in targets:
            a, b = floor_of(module), floor_of(target)
            if a == b == "commands" and module not in (ENTRY, *SHARED) and target not in SHARED:
                commands.append(f"{module} -> {target}")
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
    print(f"commands that import another command: {len(commands)}")
    for line in sorted(commands):
        print(f"  {line}")
    shared = {m: floors for m, floors in reached.items() if len(floors) >= 2}
    print(f"modules off the ground reached from two or more other floors: {len(shared)}")
    for module, floors in sorted(shared.items()):
        print(f"  {module}: {', '.join(sorted(floors, key=FLOORS.index))}")
    found = cycles(imports)
    print(f"import cycles: {len(found)}")
    for group in found:
        print(f"  {' <-> '.join(group)}")
    typed = [group for group in cycles(type_only_imports()) if group not in found]
    print(f"import cycles closed by imports only type checkers read: {len(typed)}")
    for group in typed:
        print(f"  {' <-> '.join(group)}")
    return 1 if found or typed else 0


if __name__ == "__main__":
    sys.exit(main())
