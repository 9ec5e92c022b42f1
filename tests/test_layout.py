"""The layout holds (issue 13): parsed with ``ast``, nothing imported.

Every module under ``agentic_pipeline/``, ``assets/``, ``resources/`` and ``cli/`` is read and its
imports (module level and inside functions alike) become edges of one graph. The checks:

- the library (``agentic_pipeline/``) imports no Dagster;
- the library has no import cycle;
- product code imports nothing from the demo (``agentic_pipeline.demo``) except the wiring listed
  in :data:`DEMO_IMPORTS_ALLOWED`, each with its reason;
- no import runs upward through :data:`LAYERS`;
- no module is over :data:`MAX_LINES` lines;
- every stage shows its public API (``__all__``, every name bound).

The checking functions take a plain graph, so ``test_the_checks_catch_*`` prove on small
hand-made graphs that each check can fail.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
TOP_PACKAGES = ("agentic_pipeline", "assets", "resources", "cli")
LIBRARY = "agentic_pipeline"
DEMO = "agentic_pipeline.demo"
MAX_LINES = 500

#: Floors, lowest first: a module may import its own floor and lower ones, never a higher one.
#: A module matches its longest prefix; a new module that matches none fails the layering test.
LAYERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    (
        "foundation",
        (
            "agentic_pipeline",  # the package's own __init__ (exact match only)
            "agentic_pipeline.schema",
            "agentic_pipeline.jsonutil",
            "agentic_pipeline.storage",
            "agentic_pipeline.tables",
            "agentic_pipeline.processes",
            "agentic_pipeline.forkserver_guard",
            "agentic_pipeline.pii_patterns",
            "agentic_pipeline.chat",
        ),
    ),
    ("tool knowledge", ("agentic_pipeline.catalogue", "agentic_pipeline.risk")),
    ("ingest", ("agentic_pipeline.formats", "agentic_pipeline.ingest")),
    ("masking", ("agentic_pipeline.masking",)),
    ("masking at the source", ("agentic_pipeline.source",)),
    (
        "environments, replay, shadow",
        ("agentic_pipeline.environments", "agentic_pipeline.replay", "agentic_pipeline.shadow"),
    ),
    ("rewards", ("agentic_pipeline.rewards",)),
    ("selection", ("agentic_pipeline.selection",)),
    (
        "training, erasure, retention",
        ("agentic_pipeline.training", "agentic_pipeline.erasure", "agentic_pipeline.retention"),
    ),
    ("demo", (DEMO,)),
    ("resources", ("resources",)),
    ("assets", ("assets",)),
    ("cli", ("cli",)),
)

#: Product modules that may import the demo: only wiring that hands the demo's environment,
#: policy or user to a stage that takes it as a parameter. Nothing else.
DEMO_IMPORTS_ALLOWED: dict[str, str] = {
    "cli.commands": "the `simulate` command writes the demo's landing files (write_landing)",
}

#: The stages (and shared packages) whose face is a public API: ``__all__`` in the package's
#: ``__init__`` (or the stage module), every listed name bound there.
STAGES: tuple[str, ...] = (
    "agentic_pipeline.catalogue",
    "agentic_pipeline.formats",
    "agentic_pipeline.ingest",
    "agentic_pipeline.masking",
    "agentic_pipeline.environments",
    "agentic_pipeline.replay",
    "agentic_pipeline.shadow",
    "agentic_pipeline.rewards",
    "agentic_pipeline.selection",
    "agentic_pipeline.training",
    "agentic_pipeline.erasure",
    "agentic_pipeline.retention",
    "agentic_pipeline.demo",
)

Graph = Mapping[str, set[str]]


# --- reading the code ----------------------------------------------------------------------------


def module_paths() -> dict[str, Path]:
    """Dotted module name -> file, for every module of the four top packages."""
    out: dict[str, Path] = {}
    for top in TOP_PACKAGES:
        for path in sorted((ROOT / top).rglob("*.py")):
            parts = list(path.relative_to(ROOT).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            out[".".join(parts)] = path
    return out


def imported_names(name: str, path: Path, known: Iterable[str]) -> set[str]:
    """Every module ``name`` imports (absolute names; ``from x import y`` is ``x.y`` when that is a
    module), at any depth of the file, third-party modules included."""
    known = set(known)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            out.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                source = ".".join(base + ([node.module] if node.module else []))
            else:
                source = node.module or ""
            submodules = {f"{source}.{a.name}" for a in node.names} & known
            out |= submodules
            if len(submodules) < len(node.names):
                out.add(source)
    return out


def import_graph() -> dict[str, set[str]]:
    """Module -> the modules it imports (all of them, third-party included)."""
    paths = module_paths()
    return {name: imported_names(name, path, paths) for name, path in paths.items()}


def in_package(module: str, package: str) -> bool:
    return module == package or module.startswith(package + ".")


# --- the checks (pure: a graph in, the offences out) ---------------------------------------------


def dagster_imports(graph: Graph) -> list[tuple[str, str]]:
    """``(module, import)`` for each Dagster import of a library module."""
    return sorted(
        (m, d)
        for m, deps in graph.items()
        if in_package(m, LIBRARY)
        for d in deps
        if d.split(".")[0] == "dagster" or d.startswith("dagster_")
    )


def find_cycles(graph: Graph, within: str = LIBRARY) -> list[list[str]]:
    """The strongly connected components of more than one module (or a module importing itself)
    among the modules of package ``within``; empty when the graph has no cycle."""
    nodes = sorted(m for m in graph if in_package(m, within))
    edges = {m: sorted(d for d in graph[m] if d in graph and in_package(d, within)) for m in nodes}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    cycles: list[list[str]] = []

    def visit(v: str) -> None:  # Tarjan, recursive (the graph is a few hundred modules)
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in edges[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1 or v in edges[v]:
                cycles.append(sorted(component))

    for node in nodes:
        if node not in index:
            visit(node)
    return cycles


def demo_imports(graph: Graph, allowed: Mapping[str, str]) -> list[tuple[str, str]]:
    """``(module, demo module)`` for each product module outside ``allowed`` importing the demo."""
    return sorted(
        (m, d)
        for m, deps in graph.items()
        if not in_package(m, DEMO) and m not in allowed
        for d in deps
        if in_package(d, DEMO)
    )


def layer_of(module: str, layers=LAYERS) -> int | None:
    """The floor of a first-party module (longest matching prefix), ``None`` when unplaced."""
    best: tuple[int, int] | None = None  # (prefix length, floor)
    for floor, (_, prefixes) in enumerate(layers):
        for prefix in prefixes:
            hit = module == prefix if prefix == LIBRARY else in_package(module, prefix)
            if hit and (best is None or len(prefix) > best[0]):
                best = (len(prefix), floor)
    return None if best is None else best[1]


def upward_imports(
    graph: Graph, floor: Callable[[str], int | None] = layer_of
) -> list[tuple[str, str]]:
    """``(module, import)`` for each import of a higher floor. Imports of the demo by product code
    are left to :func:`demo_imports` (its allow-list)."""
    return sorted(
        (m, d)
        for m, deps in graph.items()
        for d in deps
        if d in graph
        and not (in_package(d, DEMO) and not in_package(m, DEMO))
        and (floor(d) or 0) > (floor(m) or 0)
    )


def line_count(path: Path) -> int:
    return len(path.read_text(encoding="utf-8").splitlines()) if path.exists() else 0


def unbound_exports(path: Path) -> list[str] | None:
    """Names in the module's ``__all__`` it does not bind; ``None`` when it has no ``__all__``."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    bound: set[str] = set()
    exported: list[str] | None = None
    for node in tree.body:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            bound |= {(a.asname or a.name).split(".")[0] for a in node.names}
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            bound.add(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names = {t.id for t in targets if isinstance(t, ast.Name)}
            bound |= names
            if "__all__" in names and node.value is not None:
                exported = list(ast.literal_eval(node.value))
    if exported is None:
        return None
    return [n for n in exported if n not in bound]


# --- the layout ------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def graph() -> dict[str, set[str]]:
    return import_graph()


def test_the_graph_covers_the_four_packages(graph):
    for top in TOP_PACKAGES:
        assert any(in_package(m, top) for m in graph), top
    assert "agentic_pipeline.masking.engine" in graph["agentic_pipeline.masking"]
    assert "agentic_pipeline.demo.simulator" in graph["agentic_pipeline.demo.landing"]


def test_the_library_imports_no_dagster(graph):
    assert dagster_imports(graph) == []


def test_the_library_has_no_import_cycle(graph):
    assert find_cycles(graph) == []


def test_product_code_imports_the_demo_only_where_allowed(graph):
    assert demo_imports(graph, DEMO_IMPORTS_ALLOWED) == [], (
        "product code must not import agentic_pipeline.demo; pass the demo's environment, policy "
        "or user in as a parameter from the wiring (DEMO_IMPORTS_ALLOWED)"
    )
    unused = {
        m for m in DEMO_IMPORTS_ALLOWED if not any(in_package(d, DEMO) for d in graph.get(m, ()))
    }
    assert not unused, f"no longer imports the demo, remove from DEMO_IMPORTS_ALLOWED: {unused}"


def test_every_module_has_a_floor(graph):
    assert [m for m in graph if layer_of(m) is None] == [], "place the new module in LAYERS"


def test_no_import_runs_upward(graph):
    offences = [
        f"{m} ({LAYERS[layer_of(m)][0]}) imports {d} ({LAYERS[layer_of(d)][0]})"
        for m, d in upward_imports(graph)
    ]
    assert offences == []


def test_no_module_over_max_lines():
    long = {
        str(p.relative_to(ROOT)): n
        for p in module_paths().values()
        if (n := line_count(p)) > MAX_LINES
    }
    assert long == {}


@pytest.mark.parametrize("stage", STAGES)
def test_every_stage_shows_its_public_api(stage):
    paths = module_paths()
    path = paths[stage]
    unbound = unbound_exports(path)
    assert unbound is not None, f"{path.relative_to(ROOT)} has no __all__"
    assert unbound == [], f"{path.relative_to(ROOT)}: __all__ names unbound names {unbound}"


# --- each check can fail -------------------------------------------------------------------------


def test_the_checks_catch_a_dagster_import():
    bad = {"agentic_pipeline.replay": {"dagster", "pandas"}, "assets.replay": {"dagster"}}
    assert dagster_imports(bad) == [("agentic_pipeline.replay", "dagster")]
    assert dagster_imports({"agentic_pipeline.x": {"dagster_postgres.utils"}}) != []


def test_the_checks_catch_a_cycle():
    bad = {
        "agentic_pipeline.a": {"agentic_pipeline.b"},
        "agentic_pipeline.b": {"agentic_pipeline.c"},
        "agentic_pipeline.c": {"agentic_pipeline.a"},
        "agentic_pipeline.d": {"agentic_pipeline.d"},
        "agentic_pipeline.e": {"agentic_pipeline.a"},
    }
    assert find_cycles(bad) == [
        ["agentic_pipeline.a", "agentic_pipeline.b", "agentic_pipeline.c"],
        ["agentic_pipeline.d"],
    ]


def test_the_checks_catch_a_demo_import():
    bad = {
        "agentic_pipeline.replay": {"agentic_pipeline.demo.users"},
        "cli.commands": {"agentic_pipeline.demo"},
        "agentic_pipeline.demo.truth": {"agentic_pipeline.demo.policies"},
    }
    assert demo_imports(bad, {"cli.commands": "why"}) == [
        ("agentic_pipeline.replay", "agentic_pipeline.demo.users")
    ]


def test_the_checks_catch_an_upward_import():
    bad = {
        "agentic_pipeline.schema": {"agentic_pipeline.masking.mask"},
        "agentic_pipeline.masking.mask": {"agentic_pipeline.schema"},
        "agentic_pipeline.demo.users": {"resources.shadow"},
        "resources.shadow": {"cli.main"},
        "cli.main": {"agentic_pipeline.demo"},
        "agentic_pipeline.demo": set(),
    }
    assert upward_imports(bad) == [
        ("agentic_pipeline.demo.users", "resources.shadow"),
        ("agentic_pipeline.schema", "agentic_pipeline.masking.mask"),
        ("resources.shadow", "cli.main"),
    ]
    assert layer_of("agentic_pipeline.newthing") is None  # an unplaced module is caught


def test_the_checks_catch_a_long_module_and_a_missing_api(tmp_path):
    long = tmp_path / "long.py"
    long.write_text("x = 1\n" * (MAX_LINES + 1))
    assert line_count(long) > MAX_LINES
    bare = tmp_path / "bare.py"
    bare.write_text("from x import a\n\n\ndef b():\n    pass\n")
    assert unbound_exports(bare) is None
    bare.write_text(bare.read_text() + '\n__all__ = ["a", "b", "c"]\n')
    assert unbound_exports(bare) == ["c"]
