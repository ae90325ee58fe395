"""The pytest plugin: fusecheck_check passes a clean repro and fails a broken one with the
diagnostics (code, location, message, notes) as the test's message."""
from conftest import SEED, needs_core

pytestmark = needs_core


def test_fixture_fails_with_the_diagnostics(pytester):
    pytester.makeconftest('pytest_plugins = ["fusecheck.pytest_plugin"]')
    pytester.makepyfile(
        f"""
        def test_broken(fusecheck_check):
            fusecheck_check({SEED!r}, nvfuser="2024-06")

        def test_clean(fusecheck_check):
            v = fusecheck_check({SEED!r}, nvfuser="2024-07")
            assert v.ok and v.era == "2024-07"

        def test_unloadable(fusecheck_check):
            fusecheck_check('{{"format": "fusecheck.fusion/1"}}')
        """
    )
    r = pytester.runpytest("-p", "no:cacheprovider")
    r.assert_outcomes(passed=1, failed=2)
    text = r.stdout.str()
    assert "fails under nvFuser 2024-06" in text
    assert "cannot evaluate extent i0" in text and "[FC0301]" in text
    assert "matmul_allreduce_bias.json:56:9" in text
    assert "keeps Reduction axes" in text  # a note
    assert "the repro does not load" in text and "FC0013" in text
