"""The documentation (issue #23, point 6): the site builds without warnings, its commands run.

- ``mkdocs build --strict`` succeeds (``make test`` builds it too), and a page added later that no
  ``nav`` lists raises no warning;
- the README is under 200 lines;
- the shell blocks marked ``<!-- docs-test: bash -->`` run as written, in order, in an empty
  folder (the getting-started walk-through: simulate, materialize, report, export);
- the Python blocks marked ``<!-- docs-test: python -->`` (DuckDB, ``pyarrow.dataset``) then run
  in that folder and each returns one table: the folder's own columns and every stored row;
- every other command of a ``bash`` block of the docs and README is run by the test named for it
  in ``RUN_ELSEWHERE``.
"""

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pyarrow as pa
import pytest

from agentic_pipeline.storage import DataRoot

REPO = Path(__file__).resolve().parents[1]
PAGES = sorted((REPO / "docs").glob("*.md")) + [REPO / "README.md"]
BLOCK = re.compile(r"(<!-- docs-test: (\w+) -->\n)?```(\w+)\n(.*?)```", re.S)
#: commands of unmarked bash blocks, and the test that runs them
RUN_ELSEWHERE = {
    "make demo": "tests/test_demo_output.py",
    "make test": ".ci/run (CI runs `make test` on a clean checkout)",
    "make dev": "tests/test_make_dev.py",
    "jq -c 'del(.metadata)' sft.jsonl > train.jsonl": "tests/test_docs.py::test_jq_strips_lineage",
    "dagster-webserver -w workspace.yaml -h 0.0.0.0 -p 3000": "tests/test_webserver.py",
    "dagster-daemon run -w workspace.yaml": "tests/test_webserver.py",
    # the extras' pins are in the dev extra, which `make test` installs; their tests import them
    "pip install 'agentic-pipeline[otel]'": "tests/test_source_otel.py",
    "pip install 'agentic-pipeline[langfuse]'": "tests/test_source_langfuse.py",
}


def _blocks(page: Path) -> list[tuple[str | None, str, str]]:
    """(docs-test marker, language, code) of every fenced block of ``page``."""
    return [(m[2], m[3], m[4]) for m in BLOCK.finditer(page.read_text())]


def _commands(code: str) -> list[str]:
    """The commands of a shell block (comments dropped)."""
    lines = [line.split("  #")[0].rstrip() for line in code.splitlines()]
    return [line for line in lines if line and not line.lstrip().startswith("#")]


def test_the_readme_is_short():
    assert len((REPO / "README.md").read_text().splitlines()) < 200


def test_mkdocs_builds_without_warnings_also_with_a_page_no_nav_lists(tmp_path):
    docs = tmp_path / "docs"
    shutil.copytree(REPO / "docs", docs)
    (docs / "a-later-page.md").write_text("# A page another change adds\n\nText.\n")
    shutil.copy(REPO / "mkdocs.yml", tmp_path / "mkdocs.yml")
    mkdocs = Path(sys.executable).parent / "mkdocs"
    proc = subprocess.run(
        [str(mkdocs), "build", "--strict", "--site-dir", str(tmp_path / "site")],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    assert "WARNING" not in proc.stderr, proc.stderr
    assert (tmp_path / "site" / "a-later-page.html").exists()


def test_every_command_of_the_docs_is_run_by_a_test():
    unmarked = []
    for page in PAGES:
        for marker, language, code in _blocks(page):
            if language == "bash" and marker is None:
                unmarked += [(page.name, c) for c in _commands(code)]
    missing = [(p, c) for p, c in unmarked if c not in RUN_ELSEWHERE]
    assert not missing, f"commands no test runs: {missing}"
    for where in RUN_ELSEWHERE.values():
        path = where.split("::")[0].split(" ")[0]
        assert (REPO / path).exists(), where


def test_jq_strips_lineage(tmp_path):
    if shutil.which("jq") is None:
        pytest.skip("jq is not installed")
    (tmp_path / "sft.jsonl").write_text('{"messages": [], "tools": [], "metadata": {"ds": "x"}}\n')
    command = "jq -c 'del(.metadata)' sft.jsonl > train.jsonl"
    assert command in RUN_ELSEWHERE
    subprocess.run(["bash", "-c", command], cwd=tmp_path, check=True)
    assert (tmp_path / "train.jsonl").read_text() == '{"messages":[],"tools":[]}\n'


@pytest.mark.slow
def test_the_walk_through_runs_and_each_example_reads_one_table(tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith("AGENTIC_PIPELINE_")}
    env.pop("DAGSTER_HOME", None)
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    env["TLDEXTRACT_PUBLIC_SUFFIX_LIST_URLS"] = ""
    ran = 0
    for page in PAGES:
        for marker, _, code in _blocks(page):
            if marker != "bash":
                continue
            for command in _commands(code):
                proc = subprocess.run(
                    ["bash", "-c", command],
                    cwd=tmp_path,
                    env=env,
                    capture_output=True,
                    text=True,
                    timeout=1800,
                )
                assert proc.returncode == 0, (command, proc.stdout[-2000:], proc.stderr[-2000:])
                ran += 1
    assert ran >= 5
    root = DataRoot(tmp_path / "data")
    examples = 0
    cwd = os.getcwd()
    os.chdir(tmp_path)  # the examples read data/ relative to the folder that holds it
    try:
        for page in PAGES:
            for marker, _, code in _blocks(page):
                if marker != "python":
                    continue
                scope: dict = {}
                exec(compile(code, f"{page.name} example", "exec"), scope)
                table = scope["table"]
                assert isinstance(table, pa.Table), page.name
                folder = re.search(r"data/warehouse/(\w+)", code)[1]
                _assert_one_table(root, folder, table)
                examples += 1
    finally:
        os.chdir(cwd)
    assert examples >= 4


def _assert_one_table(root: DataRoot, folder: str, table: pa.Table) -> None:
    """``table`` is the folder's one table: its columns (``ds`` from the folder names) and every
    stored row of every day, nothing else."""
    days = root.partitions("warehouse", folder)
    assert days, folder
    if folder.startswith("training_") and folder != "training_rl":  # JSON lines
        name = {"training_sft": "sft.jsonl"}.get(folder, f"{folder[9:]}.jsonl")
        expected_rows = sum(
            len((root.partition_dir("warehouse", folder, ds) / name).read_text().splitlines())
            for ds in days
        )
        assert table.num_rows == expected_rows and table.num_rows > 0, folder
        assert {"messages", "tools", "metadata", "ds"} <= set(table.column_names), folder
        return
    stored = root.read_partitions("warehouse", folder, days)
    assert table.num_rows == stored.num_rows > 0, folder
    assert set(table.column_names) == set(stored.column_names), folder
