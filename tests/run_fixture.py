#!/usr/bin/env python3
"""Fixture runner: runs the fusecheck CLI on each repro as a user would and checks what it
does against the sidecar X.expect.json beside the repro (format fusecheck.expect/1,
docs/fixtures.md; the format itself is in tests/fixture_expect.py).

    tests/run_fixture.py --cli build/tools/fusecheck fixtures/invalid/cycle.expect.json
    tests/run_fixture.py --cli build/tools/fusecheck --update fixtures/invalid/*.expect.json

Each sidecar is first validated against schemas/fixture-expect.schema.json. Each of its
invocations then runs in the sidecar's folder, `<cli> <args...> <input> --format json|text`,
with a 20-second timeout; the runner checks the exit status (the verdict), the diagnostics
both ways (code, location, message and note substrings), output substrings and the CPU time
and memory limits. An invocation this CLI cannot run (a point it does not name, a
--frontend / --executor / --expect-fixed-by it lacks) is skipped and said so, never passed:
the exit status is then 77 (CTest's SKIP_RETURN_CODE) unless something failed, and 1 with
--strict. `--update` rewrites verdicts and diagnostics from what the CLI does now, keeping
what was written by hand; review the diff.

Limits ("max_seconds": user + system CPU time of the child; "max_rss_mb": its peak resident
set) are measured with wait4() for that one child, over and above what `<cli> --version`
costs on this build (a CUDA build maps cuBLAS and NCCL at start-up: ~1 s and ~200 MiB
before main()). Sanitizer builds are slower and bigger: when FC_FIXTURE_SANITIZED=1 (set by
tests/fixtures.cmake for FC_SANITIZE builds) the limits are multiplied by
FC_FIXTURE_TIME_SCALE (default 10) and FC_FIXTURE_RSS_SCALE (default 8).

Plain Python 3 standard library. Exit status: 0 all passed, 1 a fixture failed, 2 usage
error, 77 nothing failed but something was skipped.
"""

import argparse
import json
import os
import re
import shlex
import subprocess
import sys
import tempfile
import threading

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fixture_expect as fx  # noqa: E402
from fixture_expect import FixtureError  # noqa: E402

TIMEOUT_S = 20
SKIPPED = 77


# ---------------------------------------------------------------------------
# Running the CLI.

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


# ---------------------------------------------------------------------------
# What this CLI can do, read from `<cli> SUBCOMMAND --help` (only for invocations that
# name a point, a frontend, an executor or a fixed_by).

_help = {}


def subcommand_help(cli, sub):
    if (cli, sub) not in _help:
        rc, out, err, _, _ = run_child([cli, sub, "--help"], None)
        if rc != 0:
            raise FixtureError(f"`{cli} {sub} --help` exited {rc}: cannot tell which options it takes\n{err[-500:]}")
        _help[(cli, sub)] = out
    return _help[(cli, sub)]


def has_option(help_text, option):
    return re.search(r"(^|[\s,])" + re.escape(option) + r"(?![\w-])", help_text, re.M) is not None


def nvfuser_choices(help_text):
    """The values --nvfuser takes when the help lists a closed set ("--nvfuser TEXT:{a,b,c}");
    None when it takes any point."""
    m = re.search(r"--nvfuser\s+\S*?:\{([^}]*)\}", help_text)
    return [c.strip() for c in m.group(1).split(",")] if m else None


def cannot_run(cli, inv):
    """Why this CLI cannot run the invocation (a skip), or None. Raises FixtureError for an
    invocation no CLI could run (a point on a subcommand without --nvfuser)."""
    if inv.spec is None:
        return None
    sub = inv.args[0]
    text = subcommand_help(cli, sub)
    point, frontend, executor = inv.spec
    if not has_option(text, "--nvfuser"):
        raise FixtureError(f"{inv.label()}: `{sub}` takes no --nvfuser, so the run cannot have points")
    if inv.kind == "fixed_by" and not has_option(text, "--expect-fixed-by"):
        return f"fixed_by {inv.fixed_by}: this CLI's `{sub}` has no --expect-fixed-by"
    choices = nvfuser_choices(text)
    if inv.kind == "run" and choices is not None and point not in choices:
        return f"point {point}: this CLI's --nvfuser takes only {', '.join(choices)}"
    for flag, value in (("--frontend", frontend), ("--executor", executor)):
        if value and not has_option(text, flag):
            return f"{flag} {value}: this CLI's `{sub}` has no {flag}"
    return None


# ---------------------------------------------------------------------------
# Checking.

def verdict_text(code):
    name = fx.VERDICT_OF_EXIT.get(code)
    return f"{code} ({name})" if name else str(code)


def expected_exit(outcome):
    if "verdict" in outcome:
        return fx.VERDICTS[outcome["verdict"]]
    return outcome.get("exit")


def parse_output(cmd, out, err):
    try:
        return fx.actual_diagnostics(json.loads(out))
    except ValueError as e:
        raise FixtureError(f"stdout of `{' '.join(cmd)}` is not JSON ({e})\n"
                           f"--- stdout ---\n{out[-2000:]}\n--- stderr ---\n{err[-2000:]}")


def check_invocation(cli, folder, input_name, inv):
    """Problems (empty: it passed) and skips of one invocation."""
    o = inv.outcome
    cmd = [cli] + inv.command(input_name)
    rc, out, err, cpu_s, rss_mb = run_child(cmd, folder)
    label = f"{inv.label()} (`{' '.join(cmd)[:300]}`)"
    problems, skips = [], []
    time_scale, rss_scale = limit_scales()
    if "max_seconds" in o or "max_rss_mb" in o:
        base_s, base_mb = baseline(cli)
        if "max_seconds" in o and cpu_s - base_s > o["max_seconds"] * time_scale:
            problems.append(f"took {cpu_s:.2f} s of CPU ({base_s:.2f} s at start-up), "
                            f"limit {o['max_seconds'] * time_scale:g} s beyond start-up")
        if "max_rss_mb" in o and rss_mb - base_mb > o["max_rss_mb"] * rss_scale:
            problems.append(f"peak memory {rss_mb:.0f} MiB ({base_mb:.0f} MiB at start-up), "
                            f"limit {o['max_rss_mb'] * rss_scale:g} MiB beyond start-up")
    if rc < 0:
        problems.append(f"killed by signal {-rc} (a crash)")
    want = expected_exit(o)
    if want is not None and rc != want:
        problems.append(f"exit {verdict_text(rc)}, expected {verdict_text(want)}")
    if inv.fmt == "json" and "diagnostics" in o:
        try:
            problems += fx.compare_diagnostics(o["diagnostics"], parse_output(cmd, out, err))
        except FixtureError as e:
            problems.append(str(e))
    # Text diagnostics go to stderr (as a compiler's do), so a text run's output is
    # stdout followed by stderr; a JSON run's is stdout alone.
    text = out + err if inv.fmt == "text" else out
    for s in o.get("output_contains", []):
        if s not in text:
            where = " (it is on stderr)" if s in err else ""
            problems.append(f"output lacks {json.dumps(s)}{where}")
    if "numerics" in o:
        skips.append(f"{inv.label()}: numerics expectations are not checked by this runner yet")
    if problems and err.strip():
        problems.append(f"stderr:\n{err[-2000:]}")
    return [f"{label}: {p}" for p in problems], skips


def check_sidecar(cli, path):
    """(problems, skips, invocations run) of one sidecar."""
    data = fx.load(path)
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.exists(os.path.join(folder, data["input"])):
        raise FixtureError(f"{path}: input {data['input']} does not exist beside it")
    problems, skips, ran = [], [], 0
    for inv in fx.expand(data):
        why = cannot_run(cli, inv)
        if why:
            skips.append(f"{inv.label()}: skipped: {why}")
            continue
        p, s = check_invocation(cli, folder, data["input"], inv)
        problems += p
        skips += s
        ran += 1
    return problems, skips, ran


# ---------------------------------------------------------------------------
# Updating.

NEW_RUN_ARGS = {".json": ["validate"], ".py": ["import", "--from", "nvfuser-python"]}


def new_sidecar(repro, args):
    if args is None:
        args = NEW_RUN_ARGS.get(os.path.splitext(repro)[1])
        if args is None:
            raise FixtureError(f"{repro}: say what to run with --new-args (e.g. \"import --from nvfuser-ir\")")
    return {"format": fx.FORMAT, "input": os.path.basename(repro), "runs": [{"args": args}]}


def observe(cli, folder, input_name, inv):
    """(exit code, diagnostics or None for text runs, output) of one invocation."""
    cmd = [cli] + inv.command(input_name)
    rc, out, err, _, _ = run_child(cmd, folder)
    if rc < 0:
        raise FixtureError(f"`{' '.join(cmd)}` was killed by signal {-rc}; not recording a crash")
    if inv.fmt == "text":
        return rc, None, out + err
    return rc, parse_output(cmd, out, err), out


def update_run(cli, folder, input_name, i, run):
    """The run rewritten from what the CLI does now, and notes for the reviewer."""
    notes = []
    own_keys = [k for k in fx.OUTCOME_KEYS if k in run]
    if "points" not in run:
        inv = fx.Invocation(i, "run", list(run["args"]), run.get("format", "json"), fx.merged_outcome(run, {}))
        rc, actual, output = observe(cli, folder, input_name, inv)
        own, more = fx.record({k: run[k] for k in own_keys}, inv.outcome, rc, actual, output)
        new = {k: v for k, v in run.items() if k not in own_keys}
        new.update(own)
        return new, [f"run {i}: {n}" for n in more]
    spec_outcomes = []
    for key, po in run["points"].items():
        merged = fx.merged_outcome(run, po)
        for spec in fx.parse_point_key(key):
            args = list(run["args"])
            inv = fx.Invocation(i, "run", args[:1] + fx.point_flags(spec) + args[1:], run.get("format", "json"),
                                merged, spec)
            why = cannot_run(cli, inv)
            if why:
                notes.append(f"{inv.label()}: kept as written: {why}")
                spec_outcomes.append((spec, dict(po)))
                continue
            # Defaults of the run that are recorded move into each point.
            own = {k: run[k] for k in fx.RECORDED if k in run}
            own.update(po)
            rc, actual, output = observe(cli, folder, input_name, inv)
            own, more = fx.record(own, merged, rc, actual, output)
            notes += [f"{inv.label()}: {n}" for n in more]
            spec_outcomes.append((spec, own))
    new = {k: v for k, v in run.items() if k not in fx.RECORDED}
    new["points"] = fx.regroup_points(spec_outcomes)
    return new, notes


def update_sidecar(cli, path, new_args):
    """Rewrites the sidecar of path; returns notes for the reviewer."""
    side = fx.sidecar_path(path)
    if os.path.exists(side):
        data = fx.read_json(side)
        if isinstance(data, dict) and "format" not in data and isinstance(data.get("runs"), list):
            data = fx.migrate(data)
        fx.validate(side, data)
    elif side == path:
        raise FixtureError(f"{side} does not exist (pass the repro to create it)")
    else:
        data = new_sidecar(path, new_args)
    folder = os.path.dirname(os.path.abspath(side))
    if not os.path.exists(os.path.join(folder, data["input"])):
        raise FixtureError(f"{side}: input {data['input']} does not exist beside it")
    notes, runs = [], []
    for i, run in enumerate(data["runs"]):
        new, more = update_run(cli, folder, data["input"], i, run)
        runs.append(new)
        notes += more
    data["runs"] = runs
    fx.validate(side, data)
    text = fx.dump(data)
    old = None
    if os.path.exists(side):
        with open(side, encoding="utf-8") as f:
            old = f.read()
    if text != old:
        with open(side, "w", encoding="utf-8") as f:
            f.write(text)
        print(f"updated {side}")
    return notes


# ---------------------------------------------------------------------------

def main(argv):
    ap = argparse.ArgumentParser(description="Run fusecheck fixtures against their sidecar expectations "
                                             "(docs/fixtures.md).")
    ap.add_argument("--cli", required=True, help="path to the fusecheck binary")
    ap.add_argument("--update", action="store_true",
                    help="rewrite verdicts and diagnostics from what the CLI does now (review the diff)")
    ap.add_argument("--new-args", help="with --update, for a repro without a sidecar: the run to record "
                                       "(default: validate for .json, import --from nvfuser-python for .py)")
    ap.add_argument("--strict", action="store_true", default=os.environ.get("FC_FIXTURE_STRICT", "") not in ("", "0"),
                    help="a skipped invocation fails (default from FC_FIXTURE_STRICT)")
    ap.add_argument("paths", nargs="+", help="X.expect.json sidecars (or repros, with --update)")
    args = ap.parse_args(argv)
    cli = os.path.abspath(args.cli)
    if not os.access(cli, os.X_OK):
        print(f"run_fixture: {args.cli} is not an executable", file=sys.stderr)
        return 2
    new_args = shlex.split(args.new_args) if args.new_args else None
    failed = skipped = 0
    for path in args.paths:
        if args.update:
            try:
                for n in update_sidecar(cli, path, new_args):
                    print(f"  note: {n}")
            except FixtureError as e:
                failed += 1
                print(f"FAIL {path}\n  " + str(e).replace("\n", "\n  "))
            continue
        try:
            problems, skips, ran = check_sidecar(cli, path)
        except FixtureError as e:
            problems, skips, ran = [str(e)], [], 0
        if skips and args.strict:
            problems += [f"{s} (--strict)" for s in skips]
            skips = []
        if problems:
            failed += 1
            print(f"FAIL {path}")
            for p in problems + skips:
                print("  " + p.replace("\n", "\n  "))
        elif skips:
            skipped += 1
            print(f"SKIP {path} ({ran} invocation(s) passed, {len(skips)} not checked)")
            for s in skips:
                print("  " + s)
        else:
            print(f"ok   {path} ({ran} invocation(s))")
    if failed:
        return 1
    return SKIPPED if skipped else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
