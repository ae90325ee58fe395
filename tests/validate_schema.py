#!/usr/bin/python3
"""Validates the repro fixtures against schemas/fusion.schema.json with an
independent validator (Debian's python3-jsonschema, JSON Schema 2020-12).

Checks, exiting non-zero on any failure:
  * the schema is a valid 2020-12 schema;
  * its enums agree with the C++ lists (ops and their attributes from
    src/ir/ops.def, DType / IterType / ParallelType from src/ir/types.h);
  * every fixture in fixtures/valid and fixtures/seed validates;
  * a few documents that break the format are rejected (so that a schema
    accepting everything cannot pass).

Usage: /usr/bin/python3 tests/validate_schema.py [REPO_ROOT]
"""
import copy
import json
import pathlib
import re
import sys

try:
    import jsonschema
except ImportError:  # pragma: no cover
    print("validate_schema: the jsonschema module is missing (apt install python3-jsonschema)", file=sys.stderr)
    sys.exit(3)

ATTR_KEYS = {"DType": "dtype", "Approximate": "approximate", "Flags": "flags", "Shape": "shape", "Dims": "dims",
             "Ranges": "ranges", "Pad": "pad", "Value": "value", "Dim": "dim", "Keepdim": "keepdim",
             "Correction": "correction", "Start": "start", "Step": "step", "Name": "name",
             "OriginalShape": "original_shape"}


def read_ops(root):
    ops = {}
    for line in (root / "src/ir/ops.def").read_text().splitlines():
        m = re.match(r'FC_OP\(\s*\w+,\s*"(\w+)",\s*\w+,\s*-?\d+,\s*-?\d+,\s*-?\d+,\s*(.*)\)\s*$', line)
        if m:
            ops[m.group(1)] = {ATTR_KEYS[a] for a in re.findall(r"A\((\w+)\)", m.group(2))}
    return ops


def read_enum(root, name):
    text = re.sub(r"//[^\n]*", "", (root / "src/ir/types.h").read_text())
    m = re.search(r"enum class " + name + r"\s*:\s*\w+\s*\{(.*?)\};", text, re.S)
    body = m.group(1)
    return [v.strip() for v in body.split(",") if v.strip()]


def main():
    root = pathlib.Path(sys.argv[1]) if len(sys.argv) > 1 else pathlib.Path(__file__).resolve().parent.parent
    schema = json.loads((root / "schemas/fusion.schema.json").read_text())
    failures = []
    cls = jsonschema.Draft202012Validator
    cls.check_schema(schema)
    validator = cls(schema)
    defs = schema["$defs"]

    # Enums agree with the C++ lists.
    ops = read_ops(root)
    if sorted(defs["expr"]["properties"]["op"]["enum"]) != sorted(ops):
        failures.append("schema op enum differs from src/ir/ops.def")
    for clause in defs["expr"]["allOf"]:
        key = clause["then"]["not"]["required"][0]
        refusing = set(clause["if"]["properties"]["op"]["enum"])
        expected = {op for op, attrs in ops.items() if key not in attrs}
        if refusing != expected:
            failures.append(f"schema: ops refusing '{key}' differ from ops.def: {sorted(refusing ^ expected)}")
    for enum, schema_list in (("DType", defs["dtype"]["enum"]),
                              ("IterType", defs["axis"]["properties"]["iter"]["enum"]),
                              ("ParallelType", defs["axis"]["properties"]["parallel"]["enum"])):
        if sorted(read_enum(root, enum)) != sorted(schema_list):
            failures.append(f"schema {enum} enum differs from src/ir/types.h")

    # Every valid fixture validates.
    files = sorted(list((root / "fixtures/valid").glob("*.json")) + list((root / "fixtures/seed").glob("*.json")) +
                   list((root / "fixtures/nvfuser").glob("*.json")))
    files = [f for f in files if not f.name.endswith(".expect.json")]
    if not files:
        failures.append("no fixtures found")
    for f in files:
        try:
            doc = json.loads(f.read_text())
        except json.JSONDecodeError as e:
            failures.append(f"{f}: not JSON: {e}")
            continue
        errors = sorted(validator.iter_errors(doc), key=lambda e: list(e.absolute_path))
        for e in errors[:5]:
            failures.append(f"{f.relative_to(root)}: /{'/'.join(map(str, e.absolute_path))}: {e.message[:200]}")
        if not errors:
            print(f"ok {f.relative_to(root)}")

    # The schema rejects what the format forbids.
    seed = json.loads((root / "fixtures/seed/matmul_allreduce_bias.json").read_text())
    bad = []
    d = copy.deepcopy(seed); d["colour"] = 1; bad.append(("unknown top-level key", d))
    d = copy.deepcopy(seed); d["format"] = "fusecheck.fusion/3"; bad.append(("format version", d))
    d = copy.deepcopy(seed); d["origin"] = {"kind": "notebook"}; bad.append(("origin kind", d))
    d = copy.deepcopy(seed); d["origin"] = {"frontend": "cpp"}; bad.append(("origin without kind", d))
    d = copy.deepcopy(seed); d["nvfuser"] = {"date": "2024-06-30"}; bad.append(("nvfuser key", d))
    d = copy.deepcopy(seed); del d["outputs"]; bad.append(("missing outputs", d))
    d = copy.deepcopy(seed); d["exprs"][6]["dims"] = [0]; bad.append(("attribute the op refuses", d))
    d = copy.deepcopy(seed); d["exprs"][0]["op"] = "frobnicate"; bad.append(("unknown op", d))
    d = copy.deepcopy(seed); d["tensors"][0]["logical"][0]["parallel"] = "DIDw"; bad.append(("parallel type", d))
    d = copy.deepcopy(seed); d["tensors"][0]["logical"][0]["iter"] = "Loop"; bad.append(("iter type", d))
    d = copy.deepcopy(seed); del d["tensors"][0]["logical"][0]["extent"]; bad.append(("axis without extent", d))
    d = copy.deepcopy(seed); d["tensors"][0]["name"] = "max"; bad.append(("reserved name", d))
    d = copy.deepcopy(seed); d["concrete_inputs"][0]["value"] = "i0"; bad.append(("non-literal value", d))
    for what, doc in bad:
        if validator.is_valid(doc):
            failures.append(f"schema accepts a document with a bad {what}")

    for f in failures:
        print("FAIL", f, file=sys.stderr)
    print(f"validate_schema: {len(files)} fixtures, {len(bad)} negative checks, {len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
