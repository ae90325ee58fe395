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
20-second timeout. A run may also bound the CLI's resources:
"max_seconds" (user + system CPU time of the child) and "max_rss_mb" (its
peak resident set), both measured with wait4()'s rusage of that one child,
over and above what `<cli> --version` costs on this build (a CUDA build
maps cuBLAS and NCCL at start-up: ~1 s and ~200 MiB before main()).
Sanitizer builds are slower and bigger: when FC_FIXTURE_SANITIZED=1 (set by
tests/fixtures.cmake for FC_SANITIZE builds) the limits are multiplied by
FC_FIXTURE_TIME_SCALE (default 10) and FC_FIXTURE_RSS_SCALE (default 8). `--update` rewrites "exit" and "diagnostics" from what
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
import tempfile
import threading

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


def limit_scales():
    """(time scale, rss scale) for max_seconds / max_rss_mb: 1 unless the CLI is a sanitizer build."""
    if os.environ.get("FC_FIXTURE_SANITIZED", "") not in ("", "0"):
        return (float(os.environ.get("FC_FIXTURE_TIME_SCALE", "10")),
                float(os.environ.get("FC_FIXTURE_RSS_SCALE", "8")))
    return 1.0, 1.0


_baseline = {}


def baseline(cli):
    """(cpu seconds, peak rss MiB) of `cli --version`: the start-up cost every run pays."""
    if cli not in _baseline:
        runs = [run_child([cli, "--version"], None)[3:] for _ in range(2)]
        _baseline[cli] = (min(r[0] for r in runs), min(r[1] for r in runs))
    return _baseline[cli]


def execute(cli, folder, args, input_name, fmt):
    """Runs the CLI; returns (cmd, exit code, stdout, stderr, cpu seconds, peak rss MiB) of that child alone."""
    cmd = [cli] + [str(a) for a in args] + [input_name, "--format", fmt]
    return (cmd,) + run_child(cmd, folder)


def run_child(cmd, folder):
    """(exit code, stdout, stderr, cpu seconds, peak rss MiB) of one child process."""
    with tempfile.TemporaryFile() as fo, tempfile.TemporaryFile() as fe:
        try:
            p = subprocess.Popen(cmd, cwd=folder, stdin=subprocess.DEVNULL, stdout=fo, stderr=fe)
        except OSError as e:
            raise FixtureError(f"cannot run {cmd[0]}: {e}")
        killed = []
        timer = threading.Timer(TIMEOUT_S, lambda: (killed.append(True), p.kill()))
        timer.start()
        try:
            _, status, usage = os.wait4(p.pid, 0)
        finally:
            timer.cancel()
        p.returncode = os.waitstatus_to_exitcode(status)
        fo.seek(0)
        fe.seek(0)
        out = fo.read().decode("utf-8", errors="replace")
        err = fe.read().decode("utf-8", errors="replace")
    if killed:
        raise FixtureError(f"timed out after {TIMEOUT_S} s: {' '.join(cmd)}")
    # ru_maxrss is in KiB on Linux.
    return p.returncode, out, err, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024.0


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
    cmd, rc, out, err, cpu_s, rss_mb = execute(cli, folder, run["args"], input_name, fmt)
    problems = []
    label = f"run {index} (`{' '.join(cmd)[:300]}`)"
    time_scale, rss_scale = limit_scales()
    if "max_seconds" in run or "max_rss_mb" in run:
        base_s, base_mb = baseline(cli)
        if "max_seconds" in run and cpu_s - base_s > run["max_seconds"] * time_scale:
            problems.append(f"{label}: took {cpu_s:.2f} s of CPU ({base_s:.2f} s at start-up), "
                            f"limit {run['max_seconds'] * time_scale:g} s beyond start-up")
        if "max_rss_mb" in run and rss_mb - base_mb > run["max_rss_mb"] * rss_scale:
            problems.append(f"{label}: peak memory {rss_mb:.0f} MiB ({base_mb:.0f} MiB at start-up), "
                            f"limit {run['max_rss_mb'] * rss_scale:g} MiB beyond start-up")
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
    cmd, rc, out, err, _, _ = execute(cli, folder, run["args"], input_name, fmt)
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
