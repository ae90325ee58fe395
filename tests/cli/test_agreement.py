#!/usr/bin/env python3
"""`fusecheck test` and the project's own fixture runner must agree.

    test_agreement.py --cli build/tools/fusecheck --fixtures fixtures --workdir DIR

Runs `fusecheck test FIXTURES --format json --junit DIR/fixtures.junit.xml` (what CI runs for the
fixtures, and what users run on their own repros) and tests/run_fixture.py (the independent
Python reading of the same sidecar format) over every sidecar under FIXTURES, then checks:

- every sidecar gets the same verdict from both (pass, fail or skip), and nothing fails;
- the JUnit XML parses with Python's xml.etree, has one testcase per sidecar, and its counts
  and failures agree with the JSON report;
- `fusecheck test --update` on a copy of every sidecar leaves each byte for byte unchanged (the
  C++ writer lays sidecars out as the Python one does).

Exit 0 pass, 1 fail.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET

HERE = os.path.dirname(os.path.abspath(__file__))
RUNNER = os.path.join(os.path.dirname(HERE), "run_fixture.py")


def runner_verdicts(cli, sidecars):
    p = subprocess.run([sys.executable, RUNNER, "--cli", cli] + sidecars, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True)
    verdicts = {}
    for line in p.stdout.splitlines():
        for word, status in (("ok   ", "pass"), ("FAIL ", "fail"), ("SKIP ", "skip")):
            if line.startswith(word):
                path = line[len(word):].split(" (")[0].strip()
                verdicts[os.path.realpath(path)] = status
    return verdicts, p.stdout


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cli", required=True)
    ap.add_argument("--fixtures", required=True)
    ap.add_argument("--workdir", required=True)
    args = ap.parse_args()
    os.makedirs(args.workdir, exist_ok=True)
    junit = os.path.join(args.workdir, "fixtures.junit.xml")
    problems = []

    p = subprocess.run([args.cli, "test", args.fixtures, "--format", "json", "--junit", junit],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        report = json.loads(p.stdout)
    except ValueError as e:
        print(f"FAIL: `fusecheck test --format json` did not print JSON ({e}); exit {p.returncode}\n{p.stderr}")
        return 1
    ours = {os.path.realpath(r["sidecar"]): r["status"] for r in report["results"]}
    sidecars = sorted(r["sidecar"] for r in report["results"])
    print(f"fusecheck test: {report['test']} (exit {p.returncode})")
    if report["test"]["failed"]:
        for r in report["results"]:
            if r["status"] == "fail":
                problems.append(f"fusecheck test fails {r['sidecar']}: " + "; ".join(r["problems"])[:2000])

    theirs, text = runner_verdicts(args.cli, sidecars)
    print(f"tests/run_fixture.py: {len(theirs)} sidecars")
    if set(theirs) != set(ours):
        problems.append(f"the two saw different sidecars: only fusecheck test {sorted(set(ours) - set(theirs))[:5]}, "
                        f"only the runner {sorted(set(theirs) - set(ours))[:5]}")
    for path in sorted(set(ours) & set(theirs)):
        if ours[path] != theirs[path]:
            problems.append(f"{os.path.relpath(path)}: fusecheck test says {ours[path]}, the runner says {theirs[path]}")

    # JUnit, read by an independent reader.
    try:
        root = ET.parse(junit).getroot()
    except (ET.ParseError, OSError) as e:
        problems.append(f"{junit} does not parse: {e}")
        root = None
    if root is not None:
        suites = [root] if root.tag == "testsuite" else root.findall("testsuite")
        cases = [c for s in suites for c in s.findall("testcase")]
        failures = [c for c in cases if c.find("failure") is not None]
        skips = [c for c in cases if c.find("skipped") is not None]
        if len(cases) != len(ours):
            problems.append(f"JUnit has {len(cases)} testcases for {len(ours)} sidecars")
        if len(failures) != report["test"]["failed"] or len(skips) != report["test"]["skipped"]:
            problems.append(f"JUnit counts {len(failures)} failures, {len(skips)} skipped; the JSON report "
                            f"{report['test']['failed']}, {report['test']['skipped']}")
        for s in suites:
            if int(s.get("tests", -1)) != len(s.findall("testcase")):
                problems.append(f"JUnit suite {s.get('name')} says tests={s.get('tests')}")
        files = {os.path.realpath(c.get("file", "")) for c in cases}
        if files != set(ours):
            problems.append("JUnit testcases do not name the sidecars (file=...)")

    # --update leaves every sidecar as it is.
    copy = os.path.join(args.workdir, "fixtures-copy")
    shutil.rmtree(copy, ignore_errors=True)
    shutil.copytree(args.fixtures, copy)
    u = subprocess.run([args.cli, "test", "--update", copy], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    changed = [line for line in u.stdout.splitlines() if line.startswith("updated ") or line.startswith("FAIL ")]
    if u.returncode != 0 or changed:
        problems.append(f"`fusecheck test --update` changed or failed on unchanged sidecars (exit {u.returncode}): "
                        + "; ".join(changed[:10]) + ("\n" + u.stdout[-3000:] if u.returncode else ""))
    shutil.rmtree(copy, ignore_errors=True)

    if problems:
        print("FAIL")
        for pr in problems:
            print("  " + pr.replace("\n", "\n  "))
        return 1
    print(f"ok: {len(ours)} sidecars, the same verdict from both; JUnit parses; --update is stable")
    return 0


if __name__ == "__main__":
    sys.exit(main())
