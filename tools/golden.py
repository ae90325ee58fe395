#!/usr/bin/env python3
"""Golden outputs: what the CLI prints for every fixture, collected so that two builds
(a refactoring and the commit before it) can be compared byte for byte.

    tools/golden.py collect --cli BUILD/tools/fusecheck --out DIR
    tools/golden.py compare DIR_A DIR_B

`collect` runs, with the CLI copied to a temporary folder as `fusecheck` (so that argv[0]
is the same for every build):
  - every invocation of every fixture sidecar (fixtures/**/X.expect.json), in the
    sidecar's folder, exactly as tests/run_fixture.py runs it (tests/fixture_expect.py
    expands a sidecar into its invocations);
  - on every loadable repro under fixtures/ (valid/, analysis/, seed/, fuzz/, reduce/,
    perf/), each subcommand's default output: validate, print (both styles), convert,
    check (text, json, --matrix), segment (--ranks), concretize, explain --error, fix,
    run (CPU), dot, export (Python, C++ test);
  - import of every file in fixtures/import/.
Each result is a file `<case>.txt` holding the command, the exit status, stdout, stderr
and any file the command wrote. Options that report time (`--time-report`) are never
used. `compare` lists the cases whose files differ, and the first differing lines.

Plain Python 3 standard library. Exit status of compare: 0 identical, 1 differences.
"""

import argparse
import concurrent.futures
import difflib
import os
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tests"))
import fixture_expect  # noqa: E402  (the sidecar format: tests/fixture_expect.py)
FIX = os.path.join(ROOT, "fixtures")
TIMEOUT_S = 120
# Folders whose repros load: each gets every subcommand's default output.
LOADABLE = ("valid", "analysis", "seed", "fuzz", "reduce", "nvfuser")


def run(cli, cwd, args, extra_files=()):
    cmd = [cli] + args
    try:
        p = subprocess.run(cmd, cwd=cwd, stdin=subprocess.DEVNULL, capture_output=True,
                           timeout=TIMEOUT_S)
        rc, out, err = p.returncode, p.stdout, p.stderr
    except subprocess.TimeoutExpired:
        rc, out, err = "timeout", b"", b""
    text = [f"$ fusecheck {' '.join(args)}", f"exit: {rc}", "--- stdout",
            out.decode("utf-8", "replace"), "--- stderr", err.decode("utf-8", "replace")]
    for f in extra_files:
        text.append(f"--- file {os.path.basename(f)}")
        try:
            with open(f, encoding="utf-8", errors="replace") as fh:
                text.append(fh.read())
        except OSError:
            text.append("(not written)")
    return "\n".join(text)


def sidecar_cases():
    for dirpath, _, files in sorted(os.walk(FIX)):
        for name in sorted(files):
            if not name.endswith(".expect.json"):
                continue
            path = os.path.join(dirpath, name)
            data = fixture_expect.read_json(path)
            rel = os.path.relpath(path, FIX)[: -len(".expect.json")]
            # The invocations the fixture runner makes, numbered in its order.
            for i, inv in enumerate(fixture_expect.expand(data)):
                if "--time-report" in inv.args:
                    continue  # wall times differ from run to run
                yield f"sidecar/{rel}/{i}", dirpath, inv.command(data["input"]), ()


def repro_cases(tmp):
    for folder in LOADABLE:
        d = os.path.join(FIX, folder)
        if not os.path.isdir(d):
            continue
        for name in sorted(os.listdir(d)):
            if not name.endswith(".json") or name.endswith(".expect.json"):
                continue
            stem = f"repro/{folder}/{name[:-5]}"
            out = os.path.join(tmp, stem.replace("/", "__"))
            commands = [
                ("validate", ["validate", name]),
                ("validate-json", ["validate", name, "--format", "json"]),
                ("print", ["print", name]),
                ("print-head", ["print", name, "--style", "head"]),
                ("convert", ["convert", name]),
                ("check", ["check", name]),
                ("check-json", ["check", name, "--format", "json"]),
                ("check-matrix", ["check", name, "--matrix"]),
                ("check-trace", ["check", name, "--trace"]),
                ("segment", ["segment", name, "--ranks"]),
                ("concretize", ["concretize", name]),
                ("explain-error", ["explain", "--error",
                                   "Could not evaluate dynamic extent: i0"]),
                ("fix", ["fix", name, "-o", out + ".fixed.json"], (out + ".fixed.json",)),
                ("run", ["run", name]),
                ("run-json", ["run", name, "--format", "json"]),
                ("dot", ["dot", name]),
                ("export-python", ["export", name, "--to", "nvfuser-python"]),
                ("export-cpp", ["export", name, "--to", "nvfuser-cpp-test"]),
            ]
            for c in commands:
                yield f"{stem}/{c[0]}", d, c[1], c[2] if len(c) > 2 else ()


def import_cases(tmp):
    d = os.path.join(FIX, "import")
    for name in sorted(os.listdir(d)):
        out = os.path.join(tmp, "import__" + name + ".json")
        yield f"import/{name}", d, ["import", name, "-o", out], (out,)


def collect(cli, out_dir, jobs):
    shutil.rmtree(out_dir, ignore_errors=True)
    os.makedirs(out_dir)
    with tempfile.TemporaryDirectory() as tmp:
        exe = os.path.join(tmp, "fusecheck")
        shutil.copy2(cli, exe)
        files_dir = os.path.join(tmp, "files")
        os.makedirs(files_dir)
        cases = list(sidecar_cases()) + list(repro_cases(files_dir)) + list(import_cases(files_dir))

        def one(case):
            name, cwd, args, extra = case
            text = run(exe, cwd, args, extra)
            text = text.replace(files_dir, "$TMP")
            path = os.path.join(out_dir, name + ".txt")
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w", encoding="utf-8") as f:
                f.write(text)

        with concurrent.futures.ThreadPoolExecutor(jobs) as ex:
            list(ex.map(one, cases))
    print(f"golden: {len(cases)} cases written to {out_dir}")


def listing(d):
    out = set()
    for dirpath, _, files in os.walk(d):
        for f in files:
            out.add(os.path.relpath(os.path.join(dirpath, f), d))
    return out


def compare(a, b, max_lines):
    la, lb = listing(a), listing(b)
    diffs = 0
    for name in sorted(la | lb):
        if name not in la or name not in lb:
            print(f"only in {'B' if name not in la else 'A'}: {name}")
            diffs += 1
            continue
        with open(os.path.join(a, name), encoding="utf-8") as f:
            ta = f.read().splitlines()
        with open(os.path.join(b, name), encoding="utf-8") as f:
            tb = f.read().splitlines()
        if ta != tb:
            diffs += 1
            print(f"differs: {name}")
            d = list(difflib.unified_diff(ta, tb, "A", "B", n=0, lineterm=""))
            for line in d[2: 2 + max_lines]:
                print("    " + line)
    print(f"golden: {len(la | lb)} cases, {diffs} differ")
    return 1 if diffs else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    c = sub.add_parser("collect")
    c.add_argument("--cli", required=True)
    c.add_argument("--out", required=True)
    c.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    k = sub.add_parser("compare")
    k.add_argument("a")
    k.add_argument("b")
    k.add_argument("--max-lines", type=int, default=12)
    args = ap.parse_args()
    if args.cmd == "collect":
        collect(os.path.abspath(args.cli), os.path.abspath(args.out), args.jobs)
        return 0
    return compare(args.a, args.b, args.max_lines)


if __name__ == "__main__":
    sys.exit(main())
