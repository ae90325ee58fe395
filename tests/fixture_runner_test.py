#!/usr/bin/python3
"""Self-test of the fixture runner (tests/run_fixture.py) and of the sidecar format
(schemas/fixture-expect.schema.json, tests/fixture_expect.py).

  * python3-jsonschema (Debian's, JSON Schema 2020-12) accepts the schema, accepts every
    sidecar under fixtures/, and rejects the same broken sidecars as the runner's own
    validator;
  * planted failures fail, each with a message that says what is wrong: a wrong message
    substring, a wrong note substring, an extra diagnostic in the repro, a missing one, a
    wrong verdict, a sidecar that breaks the schema;
  * an expectation the CLI cannot run is skipped (exit 77), never passed, and fails with
    --strict; with a CLI that has the options, the invocations carry them (a stand-in CLI
    that echoes its arguments);
  * --update keeps what was written by hand and replaces a message substring that no
    longer matches.

Usage: /usr/bin/python3 tests/fixture_runner_test.py --cli build/tools/fusecheck
Exit status: 0 passed, 1 failed, 77 everything else passed but python3-jsonschema is missing.
"""

import argparse
import copy
import glob
import json
import os
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tests"))
import fixture_expect as fx  # noqa: E402

RUNNER = os.path.join(ROOT, "tests", "run_fixture.py")
failures = []


def expect(cond, what):
    print(("ok   " if cond else "FAIL ") + what)
    if not cond:
        failures.append(what)


def run_runner(cli, *args):
    p = subprocess.run([sys.executable, RUNNER, "--cli", cli] + list(args), capture_output=True, text=True,
                       env={k: v for k, v in os.environ.items() if k != "FC_FIXTURE_STRICT"})
    return p.returncode, p.stdout + p.stderr


def write_json(path, data):
    with open(path, "w", encoding="utf-8") as f:
        f.write(fx.dump(data) if "runs" in data else json.dumps(data))


# ---------------------------------------------------------------------------

BROKEN = [
    ("unknown key in a run", lambda d: d["runs"][0].update({"diagnostic": []})),
    ("unknown verdict", lambda d: d["runs"][0].update({"verdict": "pass"})),
    ("verdict and exit together", lambda d: d["runs"][0].update({"exit": 2})),
    ("a code that is not FCnnnn", lambda d: d["runs"][0]["diagnostics"][0].update({"code": "E105"})),
    ("notes_contain not a list", lambda d: d["runs"][0]["diagnostics"][0].update({"notes_contain": "cycle"})),
    ("an empty message_contains", lambda d: d["runs"][0]["diagnostics"][0].update({"message_contains": ""})),
    ("a point key with an unknown word", lambda d: d["runs"][0].update({"points": {"2024-06 cuda": {}}})),
    ("no format", lambda d: d.pop("format")),
    ("format version 2", lambda d: d.update({"format": "fusecheck.expect/2"})),
    ("no runs", lambda d: d.update({"runs": []})),
    ("args empty", lambda d: d["runs"][0].update({"args": []})),
    ("a negative limit", lambda d: d["runs"][0].update({"max_seconds": -1})),
]

# Broken in ways the schema cannot say; the runner's rules reject them.
BROKEN_RULES = [
    ("fixed_by without a findings verdict",
     {"args": ["check"], "points": {"2024-06": {"verdict": "clean", "fixed_by": 2487}}}),
    ("fixed_by on a run without points", {"args": ["check"], "verdict": "findings", "fixed_by": 2487}),
    ("a point twice", {"args": ["check"], "points": {"head": {}, "2024-07, head": {}}}),
    ("--nvfuser in args and points", {"args": ["check", "--nvfuser", "head"], "points": {"head": {}}}),
    ("diagnostics in a text run", {"args": ["validate"], "format": "text", "diagnostics": []}),
]


def test_schema():
    try:
        import jsonschema
    except ImportError:
        print("skip python3-jsonschema is missing: the schema is checked by the runner's validator only")
        return False
    with open(fx.SCHEMA_PATH, encoding="utf-8") as f:
        schema = json.load(f)
    cls = jsonschema.Draft202012Validator
    cls.check_schema(schema)
    v = cls(schema)
    sidecars = sorted(glob.glob(os.path.join(ROOT, "fixtures", "**", "*.expect.json"), recursive=True))
    bad = []
    for path in sidecars:
        data = fx.read_json(path)
        errs = [e.message for e in v.iter_errors(data)]
        mine = fx.schema_validator().errors(data)
        if errs or mine:
            bad.append(f"{os.path.relpath(path, ROOT)}: jsonschema {errs[:2]}, runner {mine[:2]}")
    expect(not bad, f"python3-jsonschema and the runner accept all {len(sidecars)} sidecars" +
           "".join("\n     " + b for b in bad))
    base = fx.read_json(os.path.join(ROOT, "fixtures", "invalid", "cycle.expect.json"))
    for what, change in BROKEN:
        d = copy.deepcopy(base)
        change(d)
        js = list(v.iter_errors(d))
        mine = fx.schema_validator().errors(d)
        expect(bool(js) and bool(mine), f"schema rejects: {what} (jsonschema: {len(js)}, runner: {mine[:1]})")
    return True


def test_rules():
    base = fx.read_json(os.path.join(ROOT, "fixtures", "invalid", "cycle.expect.json"))
    for what, run in BROKEN_RULES:
        d = copy.deepcopy(base)
        d["runs"] = [run]
        try:
            fx.validate("planted", d)
            msg = None
        except fx.FixtureError as e:
            msg = str(e).splitlines()[-1].strip()
        expect(msg is not None, f"runner rejects: {what} ({msg})")


# ---------------------------------------------------------------------------

def planted_copy(tmp, name):
    """fixtures/invalid/NAME.{json,expect.json} copied into tmp; returns (sidecar path, data)."""
    for ext in (".json", ".expect.json"):
        shutil.copy(os.path.join(ROOT, "fixtures", "invalid", name + ext), tmp)
    side = os.path.join(tmp, name + ".expect.json")
    return side, fx.read_json(side)


def test_planted(cli, tmp):
    side, data = planted_copy(tmp, "cycle")
    rc, out = run_runner(cli, side)
    expect(rc == 0, f"the copied fixture passes (exit {rc})")

    d = copy.deepcopy(data)
    d["runs"][0]["diagnostics"][0]["message_contains"] = "the exprs form a loop"
    write_json(side, d)
    rc, out = run_runner(cli, side)
    expect(rc == 1 and 'does not contain "the exprs form a loop"' in out and "the exprs form a cycle" in out,
           "a wrong message substring fails, quoting the message it got")

    d = copy.deepcopy(data)
    d["runs"][0]["diagnostics"][0]["notes_contain"] = ["produced by expr 6 (add)", "produced by expr 9"]
    write_json(side, d)
    rc, out = run_runner(cli, side)
    expect(rc == 1 and 'no note contains "produced by expr 9"' in out and "produced by expr 6 (add)\"" not in out,
           "a wrong note substring fails, naming only that substring")

    d = copy.deepcopy(data)
    d["runs"][0]["diagnostics"].append({"code": "FC0207", "pointer": "/meshes/0/devices/1"})
    write_json(side, d)
    rc, out = run_runner(cli, side)
    expect(rc == 1 and "missing diagnostic    FC0207 /meshes/0/devices/1" in out, "a missing diagnostic fails")

    write_json(side, data)
    repro = os.path.join(tmp, "cycle.json")
    with open(repro, encoding="utf-8") as f:
        text = f.read()
    devices = '"devices": [\n        %d,\n        1\n      ]'
    planted = text.replace(devices % 0, devices % 1, 1)
    expect(planted != text, "planting a repeated mesh device into the repro")
    with open(repro, "w", encoding="utf-8") as f:
        f.write(planted)
    rc, out = run_runner(cli, side)
    expect(rc == 1 and "unexpected diagnostic FC0207 /meshes/0/devices/1 18:9" in out
           and "missing diagnostic" not in out, "an extra diagnostic in the repro fails, and only it")
    with open(repro, "w", encoding="utf-8") as f:
        f.write(text)

    d = copy.deepcopy(data)
    d["runs"][0]["verdict"] = "clean"
    write_json(side, d)
    rc, out = run_runner(cli, side)
    expect(rc == 1 and "exit 2 (bad-input), expected 0 (clean)" in out, "a wrong verdict fails")

    d = copy.deepcopy(data)
    d["runs"][1]["diagnostics"] = []
    write_json(side, d)
    rc, out = run_runner(cli, side)
    expect(rc == 1 and 'a text run has no "diagnostics"' in out, "a sidecar against the format's rules fails")

    with open(side, "w", encoding="utf-8") as f:
        f.write(json.dumps(dict(data, runs=[dict(data["runs"][0], diagnostic=[])])))
    rc, out = run_runner(cli, side)
    expect(rc == 1 and 'unknown key "diagnostic"' in out, "a sidecar against the schema fails before any run")

    d = copy.deepcopy(data)
    d["runs"][0]["numerics"] = {"max_abs_error": 0}
    write_json(side, d)
    rc, out = run_runner(cli, side)
    expect(rc == 77 and "numerics expectations are not checked" in out, "numerics expectations are skipped, said so")


def test_update(cli, tmp):
    side, data = planted_copy(tmp, "cycle")
    d = copy.deepcopy(data)
    d["comment"] = "hand-written"
    e = d["runs"][0]["diagnostics"][0]
    e["message_contains"] = "form a cycle"
    e["notes_contain"] = ["produced by expr 6 (add)", "no such note"]
    e["comment"] = "the first edge of the cycle"
    del e["line"], e["col"]
    d["runs"][1]["output_contains"].append("not in the output")
    write_json(side, d)
    rc, out = run_runner(cli, "--update", side)
    new = fx.read_json(side)
    n = new["runs"][0]["diagnostics"][0]
    expect(rc == 0 and new["comment"] == "hand-written" and n["message_contains"] == "form a cycle"
           and n["notes_contain"] == ["produced by expr 6 (add)"] and n.get("comment")
           and "line" not in n and "col" not in n,
           "--update keeps hand-written keys that still hold and drops a note substring that does not")
    expect('dropped notes_contain "no such note"' in out and '"not in the output" is not in the output' in out,
           "--update says what it dropped or cannot fix")

    n["message_contains"] = "form a loop"
    write_json(side, new)
    rc, out = run_runner(cli, "--update", side)
    n = fx.read_json(side)["runs"][0]["diagnostics"][0]
    expect(n["message_contains"].startswith("the exprs form a cycle") and '"form a loop" ->' in out,
           "--update replaces a message substring that no longer matches, and says so")

    repro = os.path.join(tmp, "cycle2.json")
    shutil.copy(os.path.join(tmp, "cycle.json"), repro)
    rc, out = run_runner(cli, "--update", repro)
    made = fx.read_json(os.path.join(tmp, "cycle2.expect.json"))
    expect(rc == 0 and made["runs"][0]["verdict"] == "bad-input"
           and made["runs"][0]["diagnostics"][0]["message_contains"],
           "--update makes a sidecar for a repro that has none, with the words of each diagnostic")


# ---------------------------------------------------------------------------
# A stand-in CLI: its help says what it takes (FAKE_CLI_OPEN=1: any point and the
# profile options); a run prints one diagnostic whose message is its arguments.

FAKE = r'''#!PYTHON
import json, os, sys
args = sys.argv[1:]
if args == ["--version"]:
    print("fake 0"); sys.exit(0)
if "--help" in args:
    if os.environ.get("FAKE_CLI_OPEN") == "1":
        print("  --nvfuser POINT    a date, commit, version or alias\n  --frontend TEXT\n  --executor TEXT\n"
              "  --matrix\n  --expect-fixed-by PR")
    else:
        print("  --matrix\n  --nvfuser TEXT:{2024-06,2024-07,head}\n  --format ENUM")
    sys.exit(0)
ok = "--expect-fixed-by" in args
d = {"code": "FC0999", "message": " ".join(args), "location": {"pointer": "", "line": None, "col": None}}
print(json.dumps({"diagnostics": [] if ok else [d]}))
sys.exit(0 if ok else 1)
'''


def test_points(tmp):
    fake = os.path.join(tmp, "fake-cli")
    with open(fake, "w", encoding="utf-8") as f:
        f.write(FAKE.replace("PYTHON", sys.executable))
    os.chmod(fake, 0o755)
    with open(os.path.join(tmp, "p.json"), "w", encoding="utf-8") as f:
        f.write("{}")
    want = "check --nvfuser 2024-06-30 --frontend cpp --executor mde-fec --bind i0=2 p.json --format json"
    side = os.path.join(tmp, "p.expect.json")
    write_json(side, {"format": fx.FORMAT, "input": "p.json", "runs": [{
        "args": ["check", "--bind", "i0=2"],
        "points": {
            "2024-06-30 cpp mde-fec": {"verdict": "findings", "fixed_by": 2487,
                                       "diagnostics": [{"code": "FC0999", "message_contains": want}]},
            "head": {"verdict": "findings", "diagnostics": [{"code": "FC0999"}]},
        }}]})
    os.environ["FAKE_CLI_OPEN"] = "0"
    rc, out = run_runner(fake, side)
    expect(rc == 77 and "ok" not in out.split()[0] and out.startswith("SKIP")
           and "skipped: point 2024-06-30: this CLI's --nvfuser takes only 2024-06, 2024-07, head" in out
           and "skipped: fixed_by 2487: this CLI's `check` has no --expect-fixed-by" in out
           and "1 invocation(s) passed" in out,
           "points and fixed_by a CLI cannot run are skipped (exit 77) and named; the rest runs")
    rc, out = run_runner(fake, "--strict", side)
    expect(rc == 1 and "(--strict)" in out, "with --strict a skipped invocation fails")
    os.environ["FAKE_CLI_OPEN"] = "1"
    rc, out = run_runner(fake, side)
    expect(rc == 0 and "3 invocation(s)" in out,
           "with a CLI that takes points and profiles, each spec runs with --nvfuser/--frontend/--executor "
           f"after the subcommand, plus check --matrix --expect-fixed-by ({out.strip()[:300]})")
    got = [inv.args for inv in fx.expand(fx.read_json(side))]
    expect(got[-1] == ["check", "--matrix", "--expect-fixed-by", "2487", "--nvfuser", "2024-06-30", "--frontend", "cpp",
                       "--executor", "mde-fec", "--bind", "i0=2"], f"the fixed_by invocation: {got[-1]}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cli", required=True)
    args = ap.parse_args()
    cli = os.path.abspath(args.cli)
    have_jsonschema = test_schema()
    test_rules()
    with tempfile.TemporaryDirectory() as tmp:
        test_planted(cli, tmp)
    with tempfile.TemporaryDirectory() as tmp:
        test_update(cli, tmp)
    with tempfile.TemporaryDirectory() as tmp:
        test_points(tmp)
    if failures:
        print(f"{len(failures)} check(s) failed")
        return 1
    return 0 if have_jsonschema else 77


if __name__ == "__main__":
    sys.exit(main())
