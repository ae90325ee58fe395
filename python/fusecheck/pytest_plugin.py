"""A pytest plugin: the fixture `fusecheck_check` fails a test with fusecheck's diagnostics.

Enable it with `-p fusecheck.pytest_plugin` on the command line, or in a conftest.py:

    pytest_plugins = ["fusecheck.pytest_plugin"]

    def test_my_fusion_segments_at_2024_06(fusecheck_check):
        fusecheck_check("repro.py", nvfuser="2024-06")   # fails with the FC0301 text if it breaks

`fusecheck_check(path_or_text_or_repro, nvfuser=None, bind=None)` returns the Verdict when the era
replays the fusion without an error; otherwise the test fails, its message the diagnostics as the
CLI prints them (code, location, message, notes). A repro that does not load fails the same way.
"""
from __future__ import annotations

from typing import Any, Callable, Mapping, Optional, Union

import pytest

import fusecheck


def _describe(r: "fusecheck.Repro") -> str:
    return r.name or r.path or "<repro>"


@pytest.fixture
def fusecheck_check() -> Callable[..., "fusecheck.Verdict"]:
    def check(
        repro: Union[str, "fusecheck.Repro", Any], nvfuser: Optional[str] = None, bind: Optional[Mapping[str, int]] = None
    ) -> "fusecheck.Verdict":
        try:
            r = repro if isinstance(repro, fusecheck.Repro) else fusecheck.load(repro)
        except fusecheck.LoadError as e:
            pytest.fail("fusecheck: the repro does not load:\n" + "\n".join(str(d) for d in e.diagnostics), pytrace=False)
        v = r.check(nvfuser=nvfuser, bind=bind)
        if not v.ok:
            lines = [f"fusecheck: {_describe(r)} fails under nvFuser {v.era} ({len(v.errors)} error(s)):"]
            lines += [str(d) for d in v.diagnostics]
            pytest.fail("\n".join(lines), pytrace=False)
        return v

    return check
