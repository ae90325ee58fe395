#!/usr/bin/env python3
"""Determinism: runs every fusecheck command on the seed and several fixtures,
in text and JSON/SARIF, and checks that stdout, stderr, the exit code and
every file the command writes are byte-identical

  * between two runs in the same environment, and
  * under LC_ALL=C, LC_ALL=C.UTF-8 and a comma-decimal locale (de_DE.UTF-8,
    compiled with localedef into the work folder when the system lacks it;
    skipped with a loud SKIP line when that is impossible), with a different
    TZ each time.

    python3 tests/reliability/determinism.py --cli build/tools/fusecheck --source-dir . --work /tmp/det
    python3 tests/reliability/determinism.py --cli A --source-dir . --work /tmp/det --dump OUT
        (writes each command's outputs under OUT/<case>/, for tests/reliability/cross_build.sh)

Every command runs in the same folder (emptied before each run) on copies of
its inputs with the same relative names, so a path in the output is the same
each time. Exit status: 0 identical, 1 a difference (each one is printed),
2 usage error. Plain Python 3 standard library only.
"""

import argparse
import difflib
import os
import shutil
import subprocess
import sys

SEED = "fixtures/seed/matmul_allreduce_bias.json"
PY = "fixtures/import/seed_matmul_allreduce_bias.py"
IR = "fixtures/import/seed_issue_2481.ir.txt"
SEG = "fixtures/import/seed_segmented_fusion.txt"
# Other repros the core commands also run on: valid, analysis findings, invalid.
OTHERS = [
    "fixtures/valid/mesh_2d.json",
    "fixtures/valid/reshape_rfactor.json",
    "fixtures/analysis/two_sums_edge_hazard.json",
    "fixtures/analysis/reshape_unevaluable.json",
    "fixtures/invalid/cycle.json",
    "fixtures/invalid/dtype_cast.json",
]

# (name, args); "in.json" / "in.py" / ... are the copied inputs; outputs go to out*.
SEED_CASES = [
    ("validate", ["validate", "in.json"]),
    ("validate-json", ["validate", "in.json", "--format", "json"]),
    ("print", ["print", "in.json"]),
    ("print-head", ["print", "in.json", "--style", "head"]),
    ("convert", ["convert", "in.json"]),
    ("convert-o", ["convert", "in.json", "-o", "out.json"]),
    ("check", ["check", "in.json"]),
    ("check-json", ["check", "in.json", "--format", "json"]),
    ("check-sarif", ["check", "in.json", "--format", "sarif"]),
    ("check-head", ["check", "in.json", "--nvfuser", "head"]),
    ("check-matrix", ["check", "in.json", "--matrix"]),
    ("check-matrix-json", ["check", "in.json", "--matrix", "--format", "json"]),
    ("check-trace", ["check", "in.json", "--trace"]),
    ("check-dump-dir", ["check", "in.json", "--dump-dir", "dump"]),
    ("segment", ["segment", "in.json"]),
    ("segment-ranks", ["segment", "in.json", "--ranks"]),
    ("segment-json", ["segment", "in.json", "--format", "json"]),
    ("segment-emit", ["segment", "in.json", "--emit-segments", "segs"]),
    ("concretize", ["concretize", "in.json"]),
    ("concretize-json", ["concretize", "in.json", "--format", "json"]),
    ("explain", ["explain", "in.json", "i0"]),
    ("explain-json", ["explain", "in.json", "i0", "--format", "json"]),
    ("explain-error", ["explain", "--error", "Could not evaluate dynamic extent: i0"]),
    ("fix", ["fix", "in.json", "-o", "out.json"]),
    ("fix-json", ["fix", "in.json", "-o", "out.json", "--format", "json"]),
    ("run", ["run", "in.json"]),
    ("run-json", ["run", "in.json", "--format", "json"]),
    ("run-fix", ["run", "in.json", "--fix"]),
    ("dot", ["dot", "in.json"]),
    ("dot-o", ["dot", "in.json", "-o", "out.dot", "--stage", "segment"]),
    ("dot-focus", ["dot", "in.json", "--focus", "T5"]),
    ("report", ["report", "in.json", "-o", "out.html"]),
    ("report-run", ["report", "in.json", "-o", "out.html", "--run"]),
    ("export-python", ["export", "in.json"]),
    ("export-cpp", ["export", "in.json", "--to", "nvfuser-cpp-test", "-o", "out.cpp"]),
    ("import-python", ["import", "in.py"]),
    ("import-python-o", ["import", "in.py", "-o", "out.json"]),
    ("import-ir", ["import", "--from", "nvfuser-ir", "in.ir.txt"]),
    ("import-segments", ["import", "--from", "nvfuser-segments", "in.seg.txt", "--format", "json"]),
    ("demo", ["demo", "--workdir", "demo"]),
    ("demo-default-workdir", ["demo"]),
]
OTHER_CASES = [
    ("validate-json", ["validate", "in.json", "--format", "json"]),
    ("print", ["print", "in.json"]),
    ("check", ["check", "in.json"]),
    ("check-sarif", ["check", "in.json", "--format", "sarif"]),
    ("check-matrix-json", ["check", "in.json", "--matrix", "--format", "json"]),
    ("segment-json", ["segment", "in.json", "--ranks", "--format", "json"]),
    ("concretize", ["concretize", "in.json"]),
    ("run-json", ["run", "in.json", "--format", "json"]),
    ("dot", ["dot", "in.json"]),
    ("export-python", ["export", "in.json"]),
]


def make_de_locale(work):
    """(env additions, description) for a comma-decimal locale, or (None, why not)."""
    have = subprocess.run(["locale", "-a"], capture_output=True, text=True).stdout.split()
    for name in have:
        if name.lower().replace("-", "") in ("de_de.utf8",):
            return {"LC_ALL": name}, name
    localedef = shutil.which("localedef")
    if not localedef:
        return None, "no de_DE locale and no localedef"
    locpath = os.path.join(work, "locale")
    os.makedirs(locpath, exist_ok=True)
    target = os.path.join(locpath, "de_DE.UTF-8")
    if not os.path.isdir(target):
        p = subprocess.run([localedef, "-i", "de_DE", "-f", "UTF-8", target], capture_output=True, text=True)
        if not os.path.isdir(target):
            return None, "localedef -i de_DE -f UTF-8 failed: " + (p.stderr or p.stdout).strip()[:300]
    return {"LC_ALL": "de_DE.UTF-8", "LOCPATH": locpath}, "de_DE.UTF-8 (localedef into " + locpath + ")"


def environments(work, with_de=True):
    base = dict(os.environ)
    for k in list(base):
        if k.startswith("LC_") or k in ("LANG", "LANGUAGE", "LOCPATH", "TZ"):
            del base[k]
    envs = [("C.UTF-8", dict(base, LC_ALL="C.UTF-8", TZ="UTC")),
            ("C.UTF-8-again", dict(base, LC_ALL="C.UTF-8", TZ="UTC")),
            ("C", dict(base, LC_ALL="C", TZ="America/St_Johns"))]
    if not with_de:
        return envs
    extra, what = make_de_locale(work)
    if extra is None:
        print(f"SKIP locale de_DE.UTF-8: {what} -- the comma-decimal locale is NOT covered by this run",
              flush=True)
    else:
        envs.append(("de_DE.UTF-8", dict(base, TZ="Asia/Kolkata", **extra)))
    return envs


def run_case(cli, src, cur, inputs, args, env):
    """Runs one command in `cur` (emptied first); returns {name: bytes} of everything it produced."""
    shutil.rmtree(cur, ignore_errors=True)
    os.makedirs(cur)
    for name, path in inputs.items():
        shutil.copyfile(os.path.join(src, path), os.path.join(cur, name))
    env = dict(env, TMPDIR=os.path.join(cur, "tmp"))
    os.makedirs(env["TMPDIR"])
    try:
        p = subprocess.run([cli] + args, cwd=cur, env=env, capture_output=True, timeout=300)
        rc, out, err = p.returncode, p.stdout, p.stderr
    except subprocess.TimeoutExpired:
        rc, out, err = "timeout", b"", b""
    result = {"(exit)": str(rc).encode(), "(stdout)": out, "(stderr)": err}
    for root, dirs, files in os.walk(cur):
        dirs.sort()
        for f in sorted(files):
            full = os.path.join(root, f)
            rel = os.path.relpath(full, cur)
            if rel in inputs:
                continue
            with open(full, "rb") as fh:
                result[rel] = fh.read()
        for d in dirs:
            rel = os.path.relpath(os.path.join(root, d), cur)
            result.setdefault(rel + "/", b"(dir)")
    return result


def describe(a, b):
    """A short unified diff of two outputs."""
    ta = a.decode("utf-8", errors="replace").splitlines()
    tb = b.decode("utf-8", errors="replace").splitlines()
    diff = list(difflib.unified_diff(ta, tb, lineterm="", n=0))
    return "\n".join(diff[2:14]) + ("\n..." if len(diff) > 14 else "")


def all_cases():
    inputs = {"in.json": SEED, "in.py": PY, "in.ir.txt": IR, "in.seg.txt": SEG}
    for name, args in SEED_CASES:
        yield "seed/" + name, inputs, args
    for path in OTHERS:
        stem = os.path.splitext(os.path.basename(path))[0]
        for name, args in OTHER_CASES:
            yield stem + "/" + name, {"in.json": path}, args


def main(argv):
    ap = argparse.ArgumentParser(description="fusecheck determinism check")
    ap.add_argument("--cli", required=True)
    ap.add_argument("--source-dir", required=True)
    ap.add_argument("--work", required=True, help="scratch folder (emptied)")
    ap.add_argument("--dump", help="only run once (C.UTF-8) and write each case's outputs here")
    args = ap.parse_args(argv)
    cli = os.path.abspath(args.cli)
    src = os.path.abspath(args.source_dir)
    work = os.path.abspath(args.work)
    os.makedirs(work, exist_ok=True)
    cur = os.path.join(work, "cur")
    envs = environments(work, with_de=not args.dump)[:1] if args.dump else environments(work)
    failures = 0
    cases = 0
    for case, inputs, cargs in all_cases():
        cases += 1
        results = [(label, run_case(cli, src, cur, inputs, cargs, env)) for label, env in envs]
        if args.dump:
            out = os.path.join(os.path.abspath(args.dump), case)
            os.makedirs(out, exist_ok=True)
            for name, data in results[0][1].items():
                dest = os.path.join(out, name.replace("/", "__").replace("(", "").replace(")", ""))
                with open(dest, "wb") as fh:
                    fh.write(data)
            continue
        base_label, base = results[0]
        for label, other in results[1:]:
            for name in sorted(set(base) | set(other)):
                a, b = base.get(name), other.get(name)
                if a == b:
                    continue
                failures += 1
                print(f"DIFF {case} `fusecheck {' '.join(cargs)}`: {name} differs between {base_label} and {label}")
                if a is None or b is None:
                    print(f"  only produced under {label if a is None else base_label}")
                else:
                    print("  " + describe(a, b).replace("\n", "\n  "))
    shutil.rmtree(cur, ignore_errors=True)
    if args.dump:
        print(f"wrote the outputs of {cases} cases under {args.dump}")
        return 0
    print(f"{cases} cases x {len(envs)} environments ({', '.join(l for l, _ in envs)}): "
          f"{'identical' if not failures else str(failures) + ' differences'}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
