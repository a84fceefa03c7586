"""The layer check of `make lint` (.ci/check_layers.py): an upward import fails, the real tree passes.

Runs the checker as `make lint` does (a child process), on a temporary fake Sources tree and on the repository.
No build, no network: well under a second.
"""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CHECKER = ROOT / ".ci" / "check_layers.py"

TABLE = """\
# a fake package's layers
Core L0
CThing L0
Wire L1
Engine L2
Feature L3
Other L3
App L4
"""


def run(root: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(CHECKER), "--root", str(root)], capture_output=True, text=True,
                          timeout=30)


def fake_tree(root: Path, files: dict[str, str], table: str = TABLE) -> Path:
    (root / ".ci").mkdir(parents=True)
    (root / ".ci" / "layers.txt").write_text(table)
    for name in ("Core", "CThing", "Wire", "Engine", "Feature", "Other", "App"):
        (root / "Sources" / name).mkdir(parents=True)
    for path, text in files.items():
        f = root / "Sources" / path
        f.parent.mkdir(parents=True, exist_ok=True)
        f.write_text(text)
    return root


def test_an_upward_import_fails_naming_the_file_line_and_both_layers(tmp_path):
    root = fake_tree(tmp_path, {
        "Core/Time.swift": "import Glibc\n",
        "Wire/Parser.swift": "import Core\nimport CThing\n",
        # Sideways and downward imports are fine; the fourth line reaches up from L2 to L3.
        "Engine/Sub/Hub.swift": "import Foundation\nimport Wire\n\n@preconcurrency import Feature\n",
        "Feature/Ingest.swift": "internal import Engine\npublic import Other\n",
        "App/Main.swift": "import Feature\nimport Core\n",
    })
    result = run(root)
    assert result.returncode == 1, result.stdout + result.stderr
    assert "Sources/Engine/Sub/Hub.swift:4: Engine (L2) imports Feature (L3)" in result.stderr
    # Only that one: same-layer (Feature -> Other), downward and outside modules pass.
    assert result.stderr.count(" imports ") == 1, result.stderr


def test_every_import_form_is_read_and_comments_are_not(tmp_path):
    root = fake_tree(tmp_path, {
        "Wire/A.swift": (
            "// import App\n"
            "/* import App\n"
            "   import App */\n"
            "let s = \"\"\"\n"
            "import App\n"
            "\"\"\"\n"
            "internal import App\n"
            "public import struct App.Thing\n"
            "@_implementationOnly import App\n"
            "  @preconcurrency internal import App.Sub\n"
        ),
    })
    result = run(root)
    assert result.returncode == 1
    lines = sorted(int(l.split(":")[1]) for l in result.stderr.splitlines() if l.startswith("Sources/Wire/A.swift:"))
    assert lines == [7, 8, 9, 10], result.stderr
    assert "Wire (L1) imports App (L4)" in result.stderr


def test_a_target_missing_from_the_table_fails(tmp_path):
    root = fake_tree(tmp_path, {"Newcomer/X.swift": "import Core\n"})
    result = run(root)
    assert result.returncode == 1
    assert "Sources/Newcomer: target Newcomer is missing from layers.txt" in result.stderr


def test_a_clean_fake_tree_passes(tmp_path):
    root = fake_tree(tmp_path, {"App/Main.swift": "import Feature\nimport Engine\n",
                                "Feature/F.swift": "import Other\n"})
    result = run(root)
    assert result.returncode == 0, result.stderr
    assert "none upward" in result.stdout


def test_the_repository_has_no_upward_import_and_every_target_a_layer():
    result = run(ROOT)
    assert result.returncode == 0, result.stderr
