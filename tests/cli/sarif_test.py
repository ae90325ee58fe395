#!/usr/bin/env python3
"""SARIF and GitHub annotations from every command that reports diagnostics.

    sarif_test.py --cli build/tools/fusecheck --source . --workdir DIR [--schema sarif-schema-2.1.0.json]

Runs each command that reports diagnostics with `--format sarif` (and `--format github`) on a
repro that makes it report some, from the source tree's root with `--sarif-root` at that root,
and checks the structure that code scanning relies on (always): version 2.1.0, one run, the tool
and its rules, every result's ruleId among the rules and ruleIndex pointing at it, a level, a
message, artifact URIs relative to the root (uriBaseId SRCROOT, no leading "/" or "..") that
name files that exist, regions with startLine >= 1, originalUriBaseIds.SRCROOT a file: URI of
the root; and that the exit code is the one of the same command in text.

With --structure-only that is all. With --schema (the OASIS SARIF 2.1.0 schema, read from ../shared/schemas/ where it exists: it is
data and is not copied into the repository) every document is also validated with
python3-jsonschema's Draft-04 validator. Without the schema file the schema part is skipped
LOUDLY (exit 77: CTest shows it as skipped, not passed) after the structural checks passed.
Exit 0 pass, 1 fail, 77 schema skipped.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys

SEED = "fixtures/seed/matmul_allreduce_bias.json"


def commands(work):
    """(name, args) of every command that reports diagnostics, each on a repro that makes it do so."""
    return [
        ("check", ["check", SEED]),
        ("validate", ["validate", "fixtures/invalid/cycle.json"]),
        ("print", ["print", "fixtures/invalid/dangling_tensor.json"]),
        ("convert", ["convert", "fixtures/invalid/dangling_tensor.json", "-o", os.path.join(work, "c.json")]),
        ("segment", ["segment", SEED]),
        ("concretize", ["concretize", SEED]),
        ("explain", ["explain", SEED, "T5"]),
        ("fix", ["fix", "fixtures/analysis/reshape_unevaluable.json", "-o", os.path.join(work, "f.json")]),
        ("run", ["run", "fixtures/nvfuser/transpose_reduction_outer.json", "--nvfuser", "2024-06-24"]),
        ("reduce", ["reduce", "fixtures/interchange/segment_input_reduction.json", "--until", "FC0301", "-o",
                    os.path.join(work, "r.json"), "--export-python", os.path.join(work, "r.py")]),
        ("import", ["import", "fixtures/invalid-import/py_bad_dtype.py"]),
        ("export", ["export", "fixtures/interchange/segment_input_reduction.json"]),
        ("test", ["test", failing_sidecar(work)]),
    ]


def failing_sidecar(work):
    """A repro whose sidecar expects the wrong verdict: `fusecheck test` reports FC0701 on it."""
    source = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "fixtures", "nvfuser",
                          "transpose_reduction_outer.json")
    shutil.copyfile(source, os.path.join(work, "wrong.json"))
    path = os.path.join(work, "wrong.expect.json")
    with open(path, "w", encoding="utf-8") as f:
        json.dump({"format": "fusecheck.expect/1", "input": "wrong.json",
                   "runs": [{"args": ["check", "--nvfuser", "2024-06-24"], "verdict": "clean", "diagnostics": []}]},
                  f, indent=2)
    return path


def structure(doc, root, name):
    problems = []
    if doc.get("version") != "2.1.0":
        problems.append("version is not 2.1.0")
    runs = doc.get("runs")
    if not isinstance(runs, list) or len(runs) != 1:
        return problems + ["not exactly one run"]
    run = runs[0]
    driver = run.get("tool", {}).get("driver", {})
    if driver.get("name") != "fusecheck" or not driver.get("version"):
        problems.append("tool.driver has no name fusecheck and a version")
    rules = driver.get("rules", [])
    ids = [r.get("id") for r in rules]
    base = run.get("originalUriBaseIds", {}).get("SRCROOT", {}).get("uri", "")
    if base != "file://" + root.rstrip("/") + "/":
        problems.append(f"originalUriBaseIds.SRCROOT is {base!r}, not the root")
    results = run.get("results")
    if not isinstance(results, list) or not results:
        problems.append("no results (each command here reports a diagnostic)")
        results = []
    for i, r in enumerate(results):
        where = f"results[{i}]"
        if r.get("ruleId") not in ids:
            problems.append(f"{where}: ruleId {r.get('ruleId')} is not a rule")
        elif ids[r.get("ruleIndex", -1)] != r["ruleId"]:
            problems.append(f"{where}: ruleIndex does not point at {r['ruleId']}")
        if r.get("level") not in ("error", "warning", "note"):
            problems.append(f"{where}: level {r.get('level')!r}")
        if not r.get("message", {}).get("text"):
            problems.append(f"{where}: no message text")
        for loc in r.get("locations", []) + r.get("relatedLocations", []):
            phys = loc.get("physicalLocation")
            if not phys:
                continue
            art = phys.get("artifactLocation", {})
            uri = art.get("uri", "")
            if uri.startswith("file://") and "uriBaseId" not in art:
                # A file outside the root is named by its absolute file: URI.
                path = uri[len("file://"):]
                if path.startswith(root.rstrip("/") + "/") or not os.path.exists(path):
                    problems.append(f"{where}: absolute artifact {uri} is inside the root or does not exist")
            elif art.get("uriBaseId") != "SRCROOT" or uri.startswith("/") or uri.startswith("..") or "://" in uri:
                problems.append(f"{where}: artifact {art} is not relative to the root")
            elif not os.path.exists(os.path.join(root, uri)):
                problems.append(f"{where}: artifact {uri} does not exist under the root")
            region = phys.get("region")
            if region is not None and region.get("startLine", 0) < 1:
                problems.append(f"{where}: region {region}")
    return [f"{name}: {p}" for p in problems]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cli", required=True)
    ap.add_argument("--source", required=True, help="the source tree (commands run there, the SARIF root)")
    ap.add_argument("--workdir", required=True)
    ap.add_argument("--schema", help="the OASIS SARIF 2.1.0 schema (optional)")
    ap.add_argument("--structure-only", action="store_true", help="check the structure alone (exit 0, never 77)")
    args = ap.parse_args()
    root = os.path.realpath(args.source)
    work = os.path.realpath(args.workdir)
    os.makedirs(work, exist_ok=True)
    cli = os.path.realpath(args.cli)
    validator = None
    schema_note = None
    if args.structure_only:
        pass
    elif args.schema and os.path.exists(args.schema):
        import jsonschema  # python3-jsonschema (Debian)
        with open(args.schema, encoding="utf-8") as f:
            validator = jsonschema.Draft4Validator(json.load(f))
    else:
        schema_note = (f"SKIPPED: the SARIF 2.1.0 schema {args.schema or '(none given)'} does not exist: the "
                       "documents were checked for structure only, NOT against the OASIS schema")
    problems, documents = [], 0
    for name, cmd in commands(work):
        text = subprocess.run([cli] + cmd, cwd=root, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        p = subprocess.run([cli, "--sarif-root", root] + cmd + ["--format", "sarif"], cwd=root,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        if p.returncode != text.returncode:
            problems.append(f"{name}: exit {p.returncode} with --format sarif, {text.returncode} in text")
        try:
            doc = json.loads(p.stdout)
        except ValueError as e:
            problems.append(f"{name}: stdout is not JSON ({e}): {p.stdout[:300]!r} {p.stderr[-300:]!r}")
            continue
        documents += 1
        problems += structure(doc, root, name)
        if validator is not None:
            for err in sorted(validator.iter_errors(doc), key=lambda e: list(e.path))[:5]:
                problems.append(f"{name}: schema: {'/'.join(map(str, err.path))}: {err.message[:200]}")
        g = subprocess.run([cli, "--sarif-root", root] + cmd + ["--format", "github"], cwd=root,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        lines = [l for l in g.stdout.splitlines() if l.startswith("::")]
        if not lines or not all(l.split(" ", 1)[0] in ("::error", "::warning", "::notice") for l in lines):
            problems.append(f"{name}: --format github printed no annotations: {g.stdout[:300]!r}")
        elif any("file=" + root + "/" in l for l in lines):
            problems.append(f"{name}: an annotation names a file under the root by its absolute path: {lines[0][:200]}")
    if problems:
        print("FAIL")
        for pr in problems:
            print("  " + pr)
        return 1
    print(f"ok: {documents} SARIF documents have the structure code scanning needs; GitHub annotations too")
    if validator is not None:
        print(f"ok: all {documents} validate against {args.schema}")
        return 0
    if args.structure_only:
        return 0
    print(schema_note)
    return 77


if __name__ == "__main__":
    sys.exit(main())
