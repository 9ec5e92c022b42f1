"""Replay the attack on the pipeline (issue 11) and print, per line of the attack, held or broke.

Each line of the attack is reproduced by one or more tests (small inputs: the heavy parts scaled
down, real Dagster, real Presidio, real processes killed with SIGKILL). This script runs exactly
those tests in one pytest session and reports each line as ``held`` when every test of the line
passed, ``broke`` otherwise (a skipped test counts as broke: the line was not shown to hold).

    python benchmarks/attack.py            # about N minutes on 2 cores
    python benchmarks/attack.py --list     # the lines and their tests, without running them
"""

import argparse
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

#: (attack line, the tests that reproduce it). The node ids are pytest's, relative to the repo.
ATTACK: list[tuple[str, list[str]]] = []


def _node_outcomes(junit: Path) -> dict[str, str]:
    outcomes: dict[str, str] = {}
    for case in ET.parse(junit).getroot().iter("testcase"):
        path = case.get("classname", "").replace(".", "/")
        node = f"{path}.py::{case.get('name')}"
        if case.find("failure") is not None or case.find("error") is not None:
            outcomes[node] = "failed"
        elif case.find("skipped") is not None:
            outcomes[node] = "skipped"
        else:
            outcomes[node] = "passed"
    return outcomes


def _matches(node: str, outcome_node: str) -> bool:
    """A listed node id matches itself and, without brackets, each of its parametrized cases."""
    return outcome_node == node or outcome_node.startswith(node + "[")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--list", action="store_true", help="list the lines and their tests")
    args = parser.parse_args()
    if args.list:
        for line, nodes in ATTACK:
            print(line)
            for node in nodes:
                print(f"    {node}")
        return 0
    nodes = sorted({node for _, tests in ATTACK for node in tests})
    with tempfile.TemporaryDirectory() as tmp:
        junit = Path(tmp) / "attack.xml"
        subprocess.run(
            [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", f"--junitxml={junit}",
             *nodes],
            cwd=REPO,
            check=False,
        )
        outcomes = _node_outcomes(junit) if junit.exists() else {}
    held = 0
    print()
    for line, tests in ATTACK:
        results = [o for n, o in outcomes.items() if any(_matches(t, n) for t in tests)]
        ok = bool(results) and all(o == "passed" for o in results)
        held += ok
        print(f"{'held ' if ok else 'BROKE'}  {line}  ({len(results)} test(s))")
    print(f"\n{held} of {len(ATTACK)} lines held")
    return 0 if held == len(ATTACK) else 1


if __name__ == "__main__":
    sys.exit(main())
