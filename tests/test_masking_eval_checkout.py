"""The masking benchmark measures the checkout it runs from: its child processes (a name model
left out per corpus, ``agentic-pipeline materialize``) import this checkout's code, also when
the virtualenv was installed from another copy of the repository."""

from __future__ import annotations

import os
import subprocess
import sys

from benchmarks.masking_eval import run


def test_a_child_process_imports_this_checkout(tmp_path):
    env = run.this_checkout_env({"PYTHONPATH": str(tmp_path), "PATH": os.environ["PATH"]})
    assert env["PYTHONPATH"].split(os.pathsep) == [str(run.REPO), str(tmp_path)]
    code = "import agentic_pipeline, pathlib; print(pathlib.Path(agentic_pipeline.__file__).parent)"
    out = subprocess.run(
        [sys.executable, "-c", code], env=env, cwd=tmp_path, capture_output=True, text=True
    )
    assert out.stdout.strip() == str(run.REPO / "agentic_pipeline")
