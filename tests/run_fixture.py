#!/usr/bin/env python3
"""Fixture runner: runs the fusecheck CLI on a repro as a user would and
checks the result against the sidecar expectation file beside it
(docs/fixtures.md describes the format).

    python3 tests/run_fixture.py --cli build/tools/fusecheck fixtures/invalid/cycle.expect.json
    python3 tests/run_fixture.py --cli build/tools/fusecheck --update fixtures/invalid/*.expect.json

For each run of the sidecar the runner executes, in the sidecar's folder,
`<cli> <args...> <input> --format json` (or `--format text` when the run
says "format": "text"), checks the exit code, and compares the
(code, pointer, line, col) of stdout's "diagnostics" with the expected ones
as multisets, both ways: a missing diagnostic and an unexpected one both
fail. "stdout_contains" strings must appear in stdout (for text runs: in
stdout or stderr, where text diagnostics go). Each run has a
20-second timeout. `--update` rewrites "exit" and "diagnostics" from what
the CLI does now (creating the sidecar with one `validate` run when a repro
path X.json is given and X.expect.json does not exist); review the diff.

Plain Python 3 standard library only. Exit status: 0 all passed, 1 a
fixture failed, 2 usage error.
"""

import argparse
import collections
import json
import os
import subprocess
import sys

TIMEOUT_S = 20
KEYS = ("code", "pointer", "line", "col")


class FixtureError(Exception):
    pass


def sidecar_path(path):
    """X.expect.json for X.expect.json or X.json."""
    if path.endswith(".expect.json"):
        return path
    if path.endswith(".json"):
        return path[: -len(".json")] + ".expect.json"
    raise FixtureError(f"{path}: expected a .expect.json sidecar or a .json repro")


def load_sidecar(path):
    try:
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
    except (OSError, ValueError) as e:
        raise FixtureError(f"{path}: cannot read sidecar: {e}")
    if not isinstance(data, dict) or not isinstance(data.get("input"), str):
        raise FixtureError(f'{path}: sidecar needs an "input" string')
    runs = data.get("runs")
    if not isinstance(runs, list) or not runs:
        raise FixtureError(f'{path}: sidecar needs a non-empty "runs" array')
    for i, run in enumerate(runs):
        if not isinstance(run, dict) or not isinstance(run.get("args"), list):
            raise FixtureError(f'{path}: runs[{i}] needs an "args" array')
        if run.get("format", "json") not in ("json", "text"):
            raise FixtureError(f'{path}: runs[{i}].format must be "json" or "text"')
    return data


def execute(cli, folder, args, input_name, fmt):
    cmd = [cli] + [str(a) for a in args] + [input_name, "--format", fmt]
    try:
        p = subprocess.run(cmd, cwd=folder, capture_output=True, timeout=TIMEOUT_S)
    except subprocess.TimeoutExpired:
        raise FixtureError(f"timed out after {TIMEOUT_S} s: {' '.join(cmd)}")
    except OSError as e:
        raise FixtureError(f"cannot run {cmd[0]}: {e}")
    out = p.stdout.decode("utf-8", errors="replace")
    err = p.stderr.decode("utf-8", errors="replace")
    return cmd, p.returncode, out, err


def key(d):
    return tuple(d.get(k) for k in KEYS)


def fmt_key(k):
    code, pointer, line, col = k
    where = f"{line}:{col}" if line is not None else "?:?"
    return f"{code} {pointer or '(document)'} {where}"


def parse_diagnostics(cmd, out, err):
    try:
        doc = json.loads(out)
    except ValueError as e:
        raise FixtureError(
            f"stdout of `{' '.join(cmd)}` is not JSON ({e})\n--- stdout ---\n{out[-2000:]}\n--- stderr ---\n{err[-2000:]}"
        )
    diags = doc.get("diagnostics") if isinstance(doc, dict) else None
    if not isinstance(diags, list):
        raise FixtureError(f'stdout of `{" ".join(cmd)}` has no "diagnostics" array')
    result = []
    for d in diags:
        if not isinstance(d, dict):
            raise FixtureError("a diagnostic is not an object")
        loc = d.get("location") or {}
        result.append(
            {"code": d.get("code"), "pointer": loc.get("pointer"), "line": loc.get("line"), "col": loc.get("col")}
        )
    return result


def check_run(cli, folder, input_name, run, index):
    """Returns a list of problems (empty: the run passed)."""
    fmt = run.get("format", "json")
    cmd, rc, out, err = execute(cli, folder, run["args"], input_name, fmt)
    problems = []
    label = f"run {index} (`{' '.join(cmd)}`)"
    if rc < 0:
        problems.append(f"{label}: killed by signal {-rc} (a crash)")
    if "exit" in run and rc != run["exit"]:
        problems.append(f"{label}: exit {rc}, expected {run['exit']}")
    if fmt == "json" and "diagnostics" in run:
        try:
            got = collections.Counter(key(d) for d in parse_diagnostics(cmd, out, err))
        except FixtureError as e:
            problems.append(f"{label}: {e}")
            got = None
        if got is not None:
            want = collections.Counter(key(d) for d in run["diagnostics"])
            for k in sorted((want - got).elements(), key=str):
                problems.append(f"{label}: missing diagnostic     {fmt_key(k)}")
            for k in sorted((got - want).elements(), key=str):
                problems.append(f"{label}: unexpected diagnostic  {fmt_key(k)}")
    # Text diagnostics go to stderr (as a compiler's do), so a text run's
    # output is stdout followed by stderr; a JSON run's is stdout alone.
    text = out + err if fmt == "text" else out
    for s in run.get("stdout_contains", []):
        if s not in text:
            where = " (it is on stderr)" if s in err else ""
            problems.append(f"{label}: output lacks {s!r}{where}")
    if problems and err.strip():
        problems.append(f"{label}: stderr:\n{err[-2000:]}")
    return problems


def update_run(cli, folder, input_name, run):
    fmt = run.get("format", "json")
    cmd, rc, out, err = execute(cli, folder, run["args"], input_name, fmt)
    if rc < 0:
        raise FixtureError(f"`{' '.join(cmd)}` was killed by signal {-rc}; not recording a crash")
    new = {"args": run["args"]}
    if "format" in run:
        new["format"] = run["format"]
    new["exit"] = rc
    if fmt == "json":
        new["diagnostics"] = parse_diagnostics(cmd, out, err)
    for k, v in run.items():
        if k not in new and k != "diagnostics":
            new[k] = v
    return new


def dump_sidecar(data):
    """JSON with one diagnostic per line, so that review diffs stay small."""
    lines = ["{", f'  "input": {json.dumps(data["input"])},', '  "runs": [']
    runs = data["runs"]
    for i, run in enumerate(runs):
        lines.append("    {")
        items = list(run.items())
        for j, (k, v) in enumerate(items):
            comma = "," if j + 1 < len(items) else ""
            if k == "diagnostics" and v:
                lines.append(f'      "diagnostics": [')
                for n, d in enumerate(v):
                    dc = "," if n + 1 < len(v) else ""
                    lines.append("        " + json.dumps({kk: d.get(kk) for kk in KEYS}) + dc)
                lines.append("      ]" + comma)
            else:
                lines.append(f"      {json.dumps(k)}: {json.dumps(v)}{comma}")
        lines.append("    }" + ("," if i + 1 < len(runs) else ""))
    lines.append("  ]")
    for k, v in data.items():
        if k not in ("input", "runs"):
            lines[-1] += ","
            lines.append(f"  {json.dumps(k)}: {json.dumps(v)}")
    lines.append("}")
    return "\n".join(lines) + "\n"


def process(cli, path, update):
    side = sidecar_path(path)
    folder = os.path.dirname(os.path.abspath(side))
    if update and not os.path.exists(side):
        if side == path:
            raise FixtureError(f"{side} does not exist (pass the repro X.json to create it)")
        data = {"input": os.path.basename(path), "runs": [{"args": ["validate"]}]}
    else:
        data = load_sidecar(side)
    input_name = data["input"]
    if not os.path.exists(os.path.join(folder, input_name)):
        raise FixtureError(f"{side}: input {input_name} does not exist beside it")
    if update:
        data["runs"] = [update_run(cli, folder, input_name, r) for r in data["runs"]]
        text = dump_sidecar(data)
        old = open(side, encoding="utf-8").read() if os.path.exists(side) else None
        if text != old:
            with open(side, "w", encoding="utf-8") as f:
                f.write(text)
            print(f"updated {side}")
        return []
    problems = []
    for i, run in enumerate(data["runs"]):
        problems += check_run(cli, folder, input_name, run, i)
    return problems


def main(argv):
    ap = argparse.ArgumentParser(description="Run fusecheck fixtures against their sidecar expectations.")
    ap.add_argument("--cli", required=True, help="path to the fusecheck binary")
    ap.add_argument("--update", action="store_true", help="rewrite exit codes and diagnostics from the CLI")
    ap.add_argument("paths", nargs="+", help="X.expect.json sidecars (or X.json repros with --update)")
    args = ap.parse_args(argv)
    cli = os.path.abspath(args.cli)
    if not os.access(cli, os.X_OK):
        print(f"run_fixture: {args.cli} is not an executable", file=sys.stderr)
        return 2
    failed = 0
    for path in args.paths:
        try:
            problems = process(cli, path, args.update)
        except FixtureError as e:
            problems = [str(e)]
        if problems:
            failed += 1
            print(f"FAIL {path}")
            for p in problems:
                print("  " + p.replace("\n", "\n  "))
        elif not args.update:
            print(f"ok   {path}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
