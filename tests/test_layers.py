"""The import arrows of ARCHITECTURE.md ("Layers"), checked by walking the source with ``ast``.

Layers (a module's layer is found from its path):

* ``core`` = ``cards``, ``rules``, ``shuffle``, ``text``, ``notation``, ``message``: pure and deterministic.  They
  import only each other and a short list of pure standard-library modules (no
  I/O, no clock, no randomness, nothing third-party).
* ``game`` = ``record``, ``match`` (the match machine, sans-IO), ``events`` (the one event
  vocabulary), ``seats`` (players and the in-process driver): the record and the match.  They import
  the core and each other, and no third-party package (the driver awaits only its players, so it
  runs under trio without importing it).
* ``ai/``: sees only the core (and itself), standard library only.  The one
  adapter module ``ai/player.py`` (``AIPlayer``, the match loop's Player) may also
  import ``trio``, ``record`` and ``match``.
* ``wire/``: sans-IO.  Imports the core, ``record``, ``match``, ``events`` and itself; never trio,
  prompt_toolkit, sockets, a clock (``time``, ``datetime``), randomness
  (``random``, ``secrets``, ``os.urandom``), threads or event loops.  (``os``
  itself is allowed: ``wire/log.py`` fsyncs a log file it is handed.)
* ``ui/``: never sockets, never keys (``cryptography``, ``net``), never ``wire``.
* ``net/`` (networking: addresses, transport, lobby, match driver, keys, ...):
  never prompt_toolkit or ``ui``, except its table glue ``net/table.py``, and
  nothing in ``net/`` but ``net/commands.py`` imports ``net/commands.py``.
* Everything else (``cli``, ``arena``, ``net/commands.py``, ...) wires layers together.

Also: outside ``ai/`` nothing calls a ``shuffle``/``sample`` method (the deal
comes from ``shuffle.py``'s specified algorithm, never from ``random``); and
trio's guest mode (``start_guest_run``) is used only in ``ui/bridge.py``.

Imports under ``if TYPE_CHECKING:`` are for type annotations only and are not
counted against the layers above.  No import circle anywhere in the package: the modules
import each other one way, counting every import -- those under ``if TYPE_CHECKING:`` and
those inside a function too (:func:`import_cycles`).
"""

from __future__ import annotations

import ast
import sys
from dataclasses import dataclass
from pathlib import Path

PACKAGE_ROOT = Path(__file__).resolve().parent.parent / "p2ptrumps"

CORE = ("p2ptrumps.cards", "p2ptrumps.rules", "p2ptrumps.shuffle", "p2ptrumps.text", "p2ptrumps.notation",
        "p2ptrumps.message")  # message: lazy messages, translated by the display layers (p2ptrumps/i18n.py)
GAME = ("p2ptrumps.record", "p2ptrumps.match", "p2ptrumps.files",  # files: stdlib file helpers
        "p2ptrumps.events", "p2ptrumps.seats",  # the one event vocabulary; players and the in-process driver
        "p2ptrumps.system")  # system: what differs between operating systems, stdlib only
PURE_STDLIB = (
    "__future__", "abc", "collections", "dataclasses", "enum", "functools", "hashlib",
    "itertools", "math", "operator", "re", "types", "typing",
)
THIRD_PARTY_IO = ("trio", "prompt_toolkit", "msgpack", "cryptography", "platformdirs", "outcome")
NOT_SANS_IO = (
    "trio", "prompt_toolkit", "socket", "ssl", "selectors", "asyncio", "threading", "subprocess",
    "time", "datetime", "random", "secrets", "os.urandom", "os.getrandom",
)


@dataclass(frozen=True)
class Rule:
    """What one layer may import.

    ``project``: the only project modules allowed (prefixes), or None for any.
    ``external``: if not None, the only non-project modules allowed (prefixes).
    ``stdlib_only``: non-project imports must be standard library.
    ``deny``: modules never allowed (prefixes; project or not).
    """

    project: tuple[str, ...] | None = None
    external: tuple[str, ...] | None = None
    stdlib_only: bool = False
    deny: tuple[str, ...] = ()


RULES: dict[str, Rule] = {
    "core": Rule(project=CORE, external=PURE_STDLIB),
    "game": Rule(project=CORE + GAME, deny=THIRD_PARTY_IO),
    "ai": Rule(project=(*CORE, "p2ptrumps.ai"), stdlib_only=True, deny=("socket",)),
    "ai-adapter": Rule(
        project=(*CORE, *GAME, "p2ptrumps.ai"),
        external=(*sys.stdlib_module_names, "trio"),
        deny=("socket", "prompt_toolkit"),
    ),
    "wire": Rule(project=(*CORE, "p2ptrumps.record", "p2ptrumps.match", "p2ptrumps.events", "p2ptrumps.wire"),
                 deny=NOT_SANS_IO),
    "ui": Rule(
        deny=("socket", "ssl", "selectors", "cryptography", "p2ptrumps.net", "p2ptrumps.wire"),
    ),
    "net": Rule(deny=("prompt_toolkit", "p2ptrumps.ui", "p2ptrumps.net.table", "p2ptrumps.net.commands")),
    "net-table": Rule(deny=("p2ptrumps.net.commands",)),
    "wiring": Rule(),
}


def module_name(path: Path, root: Path) -> str:
    rel = path.relative_to(root.parent).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def layer_of(module: str) -> str:
    if module in CORE:
        return "core"
    if module in GAME:
        return "game"
    if module == "p2ptrumps.ai.player":
        return "ai-adapter"
    if module == "p2ptrumps.net.table":
        return "net-table"
    if module == "p2ptrumps.net.commands":
        return "wiring"
    for name in ("ai", "wire", "ui", "net"):
        prefix = f"p2ptrumps.{name}"
        if module == prefix or module.startswith(prefix + "."):
            return name
    return "wiring"


def matches(name: str, prefixes: tuple[str, ...]) -> bool:
    return any(name == p or name.startswith(p + ".") for p in prefixes)


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def imports_of(tree: ast.Module, module: str, is_package: bool, type_only: bool = False) -> list[tuple[str, int]]:
    """Every imported module name (absolute) with its line, skipping ``if TYPE_CHECKING:`` blocks
    unless ``type_only``."""
    skip: set[int] = set()
    for node in ast.walk(tree) if not type_only else ():
        if isinstance(node, ast.If) and _is_type_checking(node.test):
            for child in node.body:
                skip.update(id(n) for n in ast.walk(child))
    package = module if is_package else module.rpartition(".")[0]
    found: list[tuple[str, int]] = []
    for node in ast.walk(tree):
        if id(node) in skip:
            continue
        if isinstance(node, ast.Import):
            found.extend((alias.name, node.lineno) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base_parts = package.split(".")
                if node.level > 1:
                    base_parts = base_parts[: len(base_parts) - (node.level - 1)]
                base = ".".join(base_parts)
                target = f"{base}.{node.module}" if node.module else base
            else:
                target = node.module or ""
            if target == "__future__":
                found.append((target, node.lineno))
                continue
            # "from X import y" may import the submodule X.y: record both forms.
            found.extend((f"{target}.{alias.name}", node.lineno) for alias in node.names)
    return found


def check_tree(root: Path) -> list[str]:
    """All violations of the import arrows in the package at ``root``, as ``"path:line: what"``."""
    problems: list[str] = []
    stdlib = set(sys.stdlib_module_names)
    for path in sorted(root.rglob("*.py")):
        module = module_name(path, root)
        layer = layer_of(module)
        rule = RULES[layer]
        rel = path.relative_to(root.parent).as_posix()
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for name, line in imports_of(tree, module, path.name == "__init__.py"):
            where = f"{rel}:{line}"
            top = name.split(".")[0]
            if matches(name, rule.deny):
                problems.append(f"{where}: {layer} module imports {name}")
            elif top == "p2ptrumps":
                if rule.project is not None and not matches(name, rule.project):
                    problems.append(f"{where}: {layer} module imports {name}")
            elif rule.external is not None and not matches(name, rule.external):
                problems.append(f"{where}: {layer} module imports {name}")
            elif rule.stdlib_only and top not in stdlib:
                problems.append(f"{where}: {layer} module imports third-party {name}")
        in_ai = layer in ("ai", "ai-adapter")
        for node in ast.walk(tree):
            if (layer == "wire" and isinstance(node, ast.Attribute) and node.attr in ("urandom", "getrandom")
                    and isinstance(node.value, ast.Name) and node.value.id == "os"):
                problems.append(f"{rel}:{node.lineno}: wire module reads randomness (os.{node.attr})")
            if isinstance(node, ast.Attribute) and node.attr == "start_guest_run" and rel != "p2ptrumps/ui/bridge.py":
                problems.append(f"{rel}:{node.lineno}: trio guest mode outside ui/bridge.py")
            if in_ai:
                continue
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                    and node.func.attr in ("shuffle", "sample")):
                problems.append(f"{rel}:{node.lineno}: {node.func.attr}() outside ai/ (deals come from shuffle.py)")
            if isinstance(node, ast.ImportFrom) and node.module == "random":
                for alias in node.names:
                    if alias.name in ("shuffle", "sample"):
                        problems.append(f"{rel}:{node.lineno}: random.{alias.name} outside ai/")
    return sorted(problems, key=_by_place)


def import_graph(root: Path) -> dict[str, set[str]]:
    """Who imports whom among the modules of the package at ``root``: every import counts, those
    under ``if TYPE_CHECKING:`` and those inside a function too.  ``from X import y`` is an arrow to
    the module ``X.y`` when there is one (a compiled module with its ``.pyi`` stub too), else to ``X``
    (a package's ``__init__`` included)."""
    modules = {module_name(p, root): p for p in root.rglob("*.py")}
    stubs = {module_name(p, root) for p in root.rglob("*.pyi")}
    graph: dict[str, set[str]] = {}
    for module, path in modules.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        targets = set()
        for name, _ in imports_of(tree, module, path.name == "__init__.py", type_only=True):
            target = name if name in modules or name in stubs else name.rpartition(".")[0]
            if target in modules and target != module:
                targets.add(target)
        graph[module] = targets
    return graph


def import_cycles(root: Path) -> list[list[str]]:
    """Import circles in the package at ``root`` (each a sorted list of module names; empty when
    the imports run one way), type-only and function-level imports included."""
    graph = import_graph(root)
    # Tarjan's strongly connected components: a component of more than one module is a circle.
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
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
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return sorted(found)


def _by_place(problem: str) -> tuple[str, int]:
    path, line, _ = problem.split(":", 2)
    return path, int(line)


def test_the_package_keeps_the_arrows() -> None:
    assert check_tree(PACKAGE_ROOT) == []


def test_the_package_imports_run_one_way() -> None:
    assert import_cycles(PACKAGE_ROOT) == []


def test_every_module_has_a_layer() -> None:
    layers = {module_name(p, PACKAGE_ROOT): layer_of(module_name(p, PACKAGE_ROOT)) for p in PACKAGE_ROOT.rglob("*.py")}
    assert {m: layers[m] for m in (*CORE, *GAME)} == {
        "p2ptrumps.cards": "core", "p2ptrumps.rules": "core", "p2ptrumps.shuffle": "core", "p2ptrumps.text": "core",
        "p2ptrumps.notation": "core", "p2ptrumps.message": "core",
        "p2ptrumps.record": "game", "p2ptrumps.match": "game", "p2ptrumps.files": "game",
        "p2ptrumps.events": "game", "p2ptrumps.seats": "game", "p2ptrumps.system": "game",
    }
    assert layers["p2ptrumps.ai"] == "ai"
    assert layers["p2ptrumps.commands.main"] == "wiring"
    assert (layers["p2ptrumps.net.transport"], layers["p2ptrumps.net.table"], layers["p2ptrumps.net.commands"]) == (
        "net", "net-table", "wiring")



def test_architecture_names_every_package_and_module() -> None:
    """ARCHITECTURE.md says what each module holds: a new module is named there too."""
    text = (PACKAGE_ROOT.parent / "ARCHITECTURE.md").read_text(encoding="utf-8")
    missing = []
    for path in sorted(PACKAGE_ROOT.rglob("*.py")):
        rel = path.relative_to(PACKAGE_ROOT)
        if path.name == "__init__.py":
            named = f"`{rel.parent.as_posix()}/`" in text if rel.parent.parts else True
        else:
            named = f"`{path.stem}`" in text or f"{path.name}`" in text
        if not named:
            missing.append(rel.as_posix())
    assert missing == []

SYNTHETIC = {
    "__init__.py": "",
    "cards.py": "from __future__ import annotations\nimport hashlib\n",
    "rules.py": "import trio\nfrom .cards import Card\nfrom .ui import app\nimport time\n",
    "shuffle.py": "import random\nfrom . import rules\n",
    "match.py": "import os\nfrom .record import MatchRecord\nimport trio\n",
    "record.py": "import json\nfrom random import shuffle\ndef load():\n    from .match import MatchRunner\n",
    "ai/__init__.py": (
        "import random\nfrom ..rules import Move\nfrom .player import AIPlayer\nrandom.Random().shuffle([])\n"
    ),
    "ai/search.py": "import time\nimport trio\nfrom ..wire import session\n",
    "ai/player.py": "import trio\nfrom ..match import Event\nfrom ..net.transport import x\n",
    "wire/__init__.py": "",
    "wire/session.py": (
        "from typing import TYPE_CHECKING\nfrom ..rules import Move\nimport time\nimport secrets\n"
        "from os import urandom\nfrom ..net import transport\nfrom ..ui.app import TableApp\n"
        "if TYPE_CHECKING:\n    import trio\nimport os\nnonce = os.urandom(32)\n"
    ),
    "ui/__init__.py": "",
    "ui/app.py": (
        "import socket\nfrom ..wire import session\nfrom ..net.transport import connect\nimport prompt_toolkit\n"
    ),
    "ui/bridge.py": "import trio\ntrio.lowlevel.start_guest_run(None)\n",
    "ui/other.py": "import trio\ntrio.lowlevel.start_guest_run(None)\nfrom cryptography import x509\n",
    "net/__init__.py": "",
    "net/transport.py": "import trio\nimport socket\nfrom ..ui import app\nfrom .lobby import host\n",
    "net/lobby.py": "from . import transport\nfrom .commands import run_host\nimport prompt_toolkit\n",
    "net/table.py": "import prompt_toolkit\nfrom ..ui import app\nfrom .lobby import host\nfrom .commands import run\n",
    "net/commands.py": "from .table import run_with_ui\nfrom .lobby import host\n",
    "net/config.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .remote import NetGame\n",
    "net/remote.py": "from .config import NetConfig\n",
    "cli.py": "import socket\nimport random\nfrom .ui import app\nfrom .net.transport import x\nrng.sample([], 1)\n",
}


def test_the_checker_catches_violations(tmp_path: Path) -> None:
    root = tmp_path / "p2ptrumps"
    for name, text in SYNTHETIC.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    assert check_tree(root) == [
        "p2ptrumps/ai/player.py:3: ai-adapter module imports p2ptrumps.net.transport.x",
        "p2ptrumps/ai/search.py:2: ai module imports third-party trio",
        "p2ptrumps/ai/search.py:3: ai module imports p2ptrumps.wire.session",
        "p2ptrumps/cli.py:5: sample() outside ai/ (deals come from shuffle.py)",
        "p2ptrumps/match.py:3: game module imports trio",
        "p2ptrumps/net/lobby.py:2: net module imports p2ptrumps.net.commands.run_host",
        "p2ptrumps/net/lobby.py:3: net module imports prompt_toolkit",
        "p2ptrumps/net/table.py:4: net-table module imports p2ptrumps.net.commands.run",
        "p2ptrumps/net/transport.py:3: net module imports p2ptrumps.ui.app",
        "p2ptrumps/record.py:2: random.shuffle outside ai/",
        "p2ptrumps/rules.py:1: core module imports trio",
        "p2ptrumps/rules.py:3: core module imports p2ptrumps.ui.app",
        "p2ptrumps/rules.py:4: core module imports time",
        "p2ptrumps/shuffle.py:1: core module imports random",
        "p2ptrumps/ui/app.py:1: ui module imports socket",
        "p2ptrumps/ui/app.py:2: ui module imports p2ptrumps.wire.session",
        "p2ptrumps/ui/app.py:3: ui module imports p2ptrumps.net.transport.connect",
        "p2ptrumps/ui/other.py:2: trio guest mode outside ui/bridge.py",
        "p2ptrumps/ui/other.py:3: ui module imports cryptography.x509",
        "p2ptrumps/wire/session.py:3: wire module imports time",
        "p2ptrumps/wire/session.py:4: wire module imports secrets",
        "p2ptrumps/wire/session.py:5: wire module imports os.urandom",
        "p2ptrumps/wire/session.py:6: wire module imports p2ptrumps.net.transport",
        "p2ptrumps/wire/session.py:7: wire module imports p2ptrumps.ui.app.TableApp",
        "p2ptrumps/wire/session.py:11: wire module reads randomness (os.urandom)",
    ]
    # A lazy import inside a function (record -> match), a type-only one (net/config -> net/remote) and
    # the circles that cross the packages (rules -> ui -> wire -> net -> ui) count all the same.
    assert import_cycles(root) == [
        ["p2ptrumps.match", "p2ptrumps.record"],
        ["p2ptrumps.net.commands", "p2ptrumps.net.lobby", "p2ptrumps.net.table", "p2ptrumps.net.transport",
         "p2ptrumps.rules", "p2ptrumps.ui.app", "p2ptrumps.wire.session"],
        ["p2ptrumps.net.config", "p2ptrumps.net.remote"],
    ]
