"""The import graph of gradshell follows its layers; lower layers never import higher ones.

The layers, lowest first (an arrow means "may be imported by"):

    core → printing → ops → torch → viz → shell, learn, replay, kernel, jupyter

* ``core``: tensors, dtypes, the autograd graph and engine, the exact kernels. It runs a
  backward pass alone; the op library installs itself into it through hooks.
* ``printing``: how tensors and nodes print. It needs only the core (it formats arrays),
  and the layers above it use it: the op library's named tuples print through it and
  ``torch`` re-exports ``set_printoptions`` and wires the printers into Tensor. So it sits
  right above the core, below the ops — not beside ``viz`` as the issue's sketch has it.
* ``ops``: the op library (forward functions, backward nodes, the registry).
* ``torch``: the PyTorch-shaped namespace built from the ops.
* ``viz``: what PyTorch does not show (panels, %explain, %graph...). The shell hands it
  what it needs through ``gradshell.viz.host``.
* the top layer: ``shell``, ``learn``, ``replay``, ``kernel`` and ``jupyter`` use each
  other freely.

Every module under ``gradshell/`` is parsed with ``ast``; an import of a higher layer
fails the test whether it sits at module level or inside a function. Imports of lower
layers inside functions (kept there for start-up speed) are fine, and so are imports
under ``if TYPE_CHECKING:``, which only name a type for annotations and never run.

Inside the op library, an import of another ``gradshell.ops`` module from inside a
function is how an import cycle is papered over, so that fails too.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "gradshell"

LAYERS = {
    "core": 0,
    "printing": 1,
    "ops": 2,
    "torch": 3,
    "viz": 4,
    "shell": 5,
    "learn": 5,
    "replay": 5,
    "kernel": 5,
    "jupyter": 5,
}
TOP = 5  # gradshell/__init__.py and __main__.py start the program


@dataclass(frozen=True)
class Import:
    """One import statement's target, where it is and how it runs."""

    module: str  # the importing module
    target: str  # the imported module (or module.name for `from package import name`)
    line: int
    in_function: bool
    type_only: bool


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _imports(path: Path) -> list[Import]:
    module = _module_name(path)
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found: list[Import] = []

    def visit(node: ast.AST, in_function: bool, type_only: bool) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
                visit(child, True, type_only)
                continue
            if isinstance(child, ast.If) and _is_type_checking(child.test):
                for stmt in child.body:
                    visit(ast.Module(body=[stmt], type_ignores=[]), in_function, True)
                for stmt in child.orelse:
                    visit(ast.Module(body=[stmt], type_ignores=[]), in_function, type_only)
                continue
            targets: list[str] = []
            if isinstance(child, ast.Import):
                targets = [alias.name for alias in child.names]
            elif isinstance(child, ast.ImportFrom):
                if child.level:
                    base = package.split(".")
                    base = base[: len(base) - (child.level - 1)]
                    source = ".".join(base + ([child.module] if child.module else []))
                else:
                    source = child.module or ""
                # `from gradshell import torch` / `from gradshell.ops import shape` name
                # modules; `from gradshell.ops.shape import view` names a module too
                targets = [source] + [f"{source}.{alias.name}" for alias in child.names]
            for target in targets:
                if target == "gradshell" or target.startswith("gradshell."):
                    found.append(Import(module, target, child.lineno, in_function, type_only))
            visit(child, in_function, type_only)

    visit(ast.parse(path.read_text(encoding="utf-8"), filename=str(path)), False, False)
    return found


def _layer(module: str) -> int | None:
    parts = module.split(".")
    if len(parts) == 1 or parts[1] in ("__main__",):
        return TOP
    return LAYERS.get(parts[1])


def _all_imports() -> list[Import]:
    return [imp for path in sorted(PACKAGE.rglob("*.py")) for imp in _imports(path)]


def _upward(imports: list[Import]) -> list[str]:
    bad = []
    for imp in imports:
        if imp.type_only:
            continue
        # the bare package `gradshell` (its __init__ imports nothing eagerly) is no layer
        mine = _layer(imp.module)
        theirs = None if imp.target == "gradshell" else _layer(imp.target)
        if mine is None or theirs is None or theirs <= mine:
            continue
        where = "inside a function" if imp.in_function else "at module level"
        bad.append(f"{imp.module}:{imp.line} imports {imp.target} ({where})")
    return sorted(set(bad))


def test_every_package_has_a_layer():
    packages = {p.name for p in PACKAGE.iterdir() if (p / "__init__.py").exists()}
    assert packages <= set(LAYERS), f"give these packages a layer: {packages - set(LAYERS)}"


def test_no_module_imports_a_higher_layer():
    imports = list(_all_imports())
    assert _upward(imports) == []


def test_the_op_library_has_no_function_level_imports_of_itself():
    bad = sorted(
        f"{imp.module}:{imp.line} imports {imp.target}"
        for imp in _all_imports()
        if imp.in_function
        and imp.module.startswith("gradshell.ops")
        and imp.target.startswith("gradshell.ops")
    )
    assert bad == []


def test_the_checker_sees_imports_inside_functions_and_skips_type_only_ones():
    """The parser itself: a function-level upward import counts, a TYPE_CHECKING one not."""
    core = PACKAGE / "core" / "engine.py"
    imports = _imports(core)
    assert any(imp.target.startswith("gradshell.core") for imp in imports)
    fake = [
        Import("gradshell.core.x", "gradshell.ops.shape", 3, True, False),
        Import("gradshell.viz.x", "gradshell.shell.session", 5, False, True),
        Import("gradshell.shell.x", "gradshell.core.tensor", 7, True, False),
    ]
    assert _upward(fake) == ["gradshell.core.x:3 imports gradshell.ops.shape (inside a function)"]
