#!/usr/bin/env python3
"""Checks `fusecheck check --format json` against schemas/verdict.schema.json on the
repros of fixtures/seed and fixtures/nvfuser, at their own point and at head, with an
independent validator (Debian's python3-jsonschema).

    tests/validate_verdict_schema.py SOURCE_DIR CLI

Exit status: 0 every output validates, 1 a failure, 3 the jsonschema module is missing
(CTest reports the test as skipped)."""
import json
import pathlib
import subprocess
import sys


def main():
    root, cli = pathlib.Path(sys.argv[1]), sys.argv[2]
    try:
        import jsonschema
    except ImportError:
        print("validate_verdict_schema: python3-jsonschema is not installed", file=sys.stderr)
        return 3
    schema = json.loads((root / "schemas/verdict.schema.json").read_text())
    validator = jsonschema.Draft202012Validator(schema)
    repros = sorted(p for d in ("seed", "nvfuser") for p in (root / "fixtures" / d).glob("*.json")
                    if not p.name.endswith(".expect.json"))
    failures, checked = [], 0
    for repro in repros:
        for extra in ([], ["--nvfuser", "head"]):
            cmd = [cli, "check", str(repro), "--format", "json"] + extra
            p = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
            if p.returncode == 2 and extra:
                continue  # the recorded path does not exist at head (a usage error)
            if p.returncode not in (0, 1, 5):
                failures.append(f"{' '.join(cmd[1:])}: exit {p.returncode}: {p.stderr.strip()[:200]}")
                continue
            doc = json.loads(p.stdout)
            checked += 1
            for e in sorted(validator.iter_errors(doc), key=lambda e: list(e.absolute_path))[:5]:
                failures.append(f"{repro.name} {extra}: /{'/'.join(map(str, e.absolute_path))}: {e.message[:200]}")
            if doc["verdict"] == "not-decided" and not doc["not_decided"]:
                failures.append(f"{repro.name} {extra}: not decided with no reason")
    for f in failures:
        print("FAIL", f, file=sys.stderr)
    print(f"validate_verdict_schema: {checked} verdicts, {len(failures)} failures")
    return 1 if failures or not checked else 0


if __name__ == "__main__":
    sys.exit(main())
