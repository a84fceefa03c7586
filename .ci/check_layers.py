#!/usr/bin/env python3
"""Fail when a SwiftPM target imports a target of a higher layer (the first step of `make lint`).

The layer of every target under Sources/ is read from a committed table (.ci/layers.txt: `TargetName L0..L4`
per line, `#` comments). Every `Sources/<Target>/**/*.swift` is scanned for import declarations
(`import X`, `@preconcurrency import X`, `internal import X`, `public import X`, `import struct X.Y`, ...)
that name another target of the table. Same-layer imports are allowed; modules outside the table
(Foundation, NIOCore, ...) are not checked.

Exit status: 0 when every import points down or sideways, 1 on an upward import or a target under Sources/
missing from the table (each printed as file:line with both layers), 2 on an unreadable table.
Python 3 standard library only.
"""
from __future__ import annotations

import argparse
import re
import sys
from dataclasses import dataclass
from pathlib import Path

LAYER = re.compile(r"^L([0-9])$")
# Attributes (@preconcurrency, @testable, @_implementationOnly, @_spi(X), ...) and access levels, in any order,
# then `import`, an optional import kind, and the module (a submodule path keeps its top module).
IMPORT = re.compile(
    r"^\s*(?:(?:@\w+(?:\([^)]*\))?|public|package|internal|fileprivate|private)\s+)*"
    r"import\s+(?:(?:typealias|struct|class|enum|protocol|let|var|func)\s+)?"
    r"([A-Za-z_][A-Za-z0-9_]*)"
)


class TableError(Exception):
    pass


@dataclass(frozen=True)
class Finding:
    path: str
    line: int
    message: str

    def __str__(self) -> str:
        where = f"{self.path}:{self.line}" if self.line else self.path
        return f"{where}: {self.message}"


def read_table(path: Path) -> dict[str, int]:
    """`TargetName L<n>` per line; blank lines and `#` comments are skipped."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as e:
        raise TableError(f"{path}: cannot read the layer table ({e.strerror})") from e
    layers: dict[str, int] = {}
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        fields = line.split()
        match = LAYER.match(fields[-1]) if len(fields) == 2 else None
        if match is None:
            raise TableError(f"{path}:{number}: expected `TargetName L0..L4`, found {raw.strip()!r}")
        if fields[0] in layers:
            raise TableError(f"{path}:{number}: {fields[0]} is listed twice")
        layers[fields[0]] = int(match.group(1))
    return layers


def imports(text: str) -> list[tuple[int, str]]:
    """(line number, module) of each import declaration, outside comments and multi-line string literals."""
    found: list[tuple[int, str]] = []
    comment_depth = 0  # Swift block comments nest
    in_string = False
    for number, line in enumerate(text.splitlines(), start=1):
        if in_string:
            if '"""' in line:
                in_string = False
            continue
        if comment_depth:
            comment_depth += line.count("/*") - line.count("*/")
            comment_depth = max(comment_depth, 0)
            continue
        match = IMPORT.match(line)
        if match:
            found.append((number, match.group(1)))
        code = line.split("//", 1)[0]
        comment_depth = max(code.count("/*") - code.count("*/"), 0)
        if code.count('"""') % 2 == 1:
            in_string = True
    return found


def check(root: Path, table: Path) -> tuple[list[Finding], int, int]:
    """Findings, targets scanned, imports of table targets checked."""
    layers = read_table(table)
    sources = root / "Sources"
    findings: list[Finding] = []
    checked = 0
    targets = sorted(p for p in sources.iterdir() if p.is_dir()) if sources.is_dir() else []
    for target_dir in targets:
        target = target_dir.name
        if target not in layers:
            findings.append(Finding(
                f"Sources/{target}", 0,
                f"target {target} is missing from {table.name}: give it a layer (L0..L4) there"))
            continue
        own = layers[target]
        for swift in sorted(target_dir.rglob("*.swift")):
            relative = swift.relative_to(root).as_posix()
            for number, module in imports(swift.read_text(encoding="utf-8", errors="replace")):
                if module == target or module not in layers:
                    continue
                checked += 1
                if layers[module] > own:
                    findings.append(Finding(
                        relative, number,
                        f"{target} (L{own}) imports {module} (L{layers[module]}): "
                        f"a target may import only its own layer or lower ones"))
    return findings, len(targets), checked


def main(argv: list[str] | None = None) -> int:
    here = Path(__file__).resolve().parent
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=Path, default=here.parent, help="package root holding Sources/")
    parser.add_argument("--table", type=Path, help="layer table (default: ROOT/.ci/layers.txt)")
    args = parser.parse_args(argv)
    table = args.table or args.root / ".ci" / "layers.txt"
    try:
        findings, targets, checked = check(args.root, table)
    except TableError as e:
        print(f"layers: {e}", file=sys.stderr)
        return 2
    for finding in findings:
        print(finding, file=sys.stderr)
    if findings:
        print(f"layers: {len(findings)} problem(s); the layers are in {table}", file=sys.stderr)
        return 1
    print(f"layers: {targets} targets, {checked} imports between them, none upward")
    return 0


if __name__ == "__main__":
    sys.exit(main())
