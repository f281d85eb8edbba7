"""The suite can't hang: every test has a time limit (pytest-timeout, set in pyproject.toml)."""

import subprocess
import sys


def test_this_run_has_a_limit_per_test(request):
    assert request.config.pluginmanager.hasplugin("timeout")
    assert 0 < float(request.config.getini("timeout")) <= 600


def test_a_test_that_would_wait_forever_is_stopped_and_fails(tmp_path):
    (tmp_path / "test_forever.py").write_text("import threading\n\n\ndef test_forever():\n"
                                              "    threading.Event().wait()\n")
    run = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-o", "timeout=2",
                          "--rootdir", str(tmp_path), str(tmp_path)],
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 1 and "Timeout" in run.stdout and "1 failed" in run.stdout
