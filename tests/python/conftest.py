"""Shared fixtures of the Python tests (run by tests/python/run_pytest.py under /usr/bin/python3).

FUSECHECK_CLI names the CLI and PYTHONPATH holds the build tree's package (<build>/python); CTest sets
both. Tests that need the compiled module or torch are skipped with the reason printed (pytest -rs).
"""
import os
import subprocess

import pytest

pytest_plugins = ["pytester", "fusecheck.pytest_plugin"]

SOURCE = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
SEED = os.path.join(SOURCE, "fixtures", "seed", "matmul_allreduce_bias.json")


def _core_reason():
    try:
        import fusecheck._core  # noqa: F401

        return None
    except ImportError as e:
        return f"fusecheck._core is not built for this Python: {e}"


def _torch_reason():
    try:
        import torch  # noqa: F401

        return None
    except ImportError as e:
        return f"torch is not installed (Debian: python3-torch): {e}"


needs_core = pytest.mark.skipif(_core_reason() is not None, reason=str(_core_reason()))
needs_torch = pytest.mark.skipif(_torch_reason() is not None, reason=str(_torch_reason()))


@pytest.fixture(scope="session")
def cli():
    path = os.environ.get("FUSECHECK_CLI")
    if not path or not os.path.exists(path):
        pytest.skip(f"FUSECHECK_CLI does not name the fusecheck executable ({path!r})")
    return path


@pytest.fixture(scope="session")
def seed_path():
    return SEED


def run_cli(cli, *args, check=True):
    p = subprocess.run([cli, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if check and p.returncode != 0:
        raise AssertionError(f"fusecheck {' '.join(args)} exited {p.returncode}:\n{p.stdout}\n{p.stderr}")
    return p
