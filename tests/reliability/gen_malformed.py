#!/usr/bin/env python3
"""Writes the large malformed inputs of the malformed-input suite (docs/reliability.md)
into a build-tree folder, each with its sidecar (docs/fixtures.md), so that
multi-megabyte and 100,000-deep inputs are not committed to the repository.

    python3 tests/reliability/gen_malformed.py --seed fixtures/seed/matmul_allreduce_bias.json --out DIR
    python3 tests/reliability/gen_malformed.py --list

Each case is the seed repro with one problem. The sidecar expects exit 2 and
the one located diagnostic, and bounds the CLI's CPU time and peak memory
(max_seconds / max_rss_mb, see tests/run_fixture.py). Plain Python 3.
"""

import argparse
import json
import os
import sys

DEEP = 100_000
MB = 1 << 20
# The cases, in order (CMake reads this list at configure time with --list).
NAMES = (
    "deep_arrays_100k", "deep_objects_100k", "deep_mixed_100k", "deep_unclosed_100k",
    "deep_parens_extent", "deep_negation_extent", "long_sum_extent", "huge_string_invalid_utf8",
    "huge_string_truncated", "huge_tensor_name", "huge_dangling_name", "huge_unknown_key",
    "huge_number_extent", "huge_bigint_string_extent", "huge_whitespace_only", "huge_shape_array",
    "import_py_deep_brackets_100k", "import_py_long_line", "import_ir_deep_parens_100k",
    "import_ir_huge_name", "import_segments_huge_garbage",
)
LIMITS = {"max_seconds": 1.0, "max_rss_mb": 256}


def seed_text(seed_path):
    with open(seed_path, encoding="utf-8") as f:
        return json.dumps(json.load(f), indent=1) + "\n"


def with_placeholder(seed, edit):
    """The seed pretty-printed with edit(doc) applied; "@@X@@" marks a spot to splice raw text into."""
    doc = json.loads(seed)
    edit(doc)
    return json.dumps(doc, indent=1) + "\n"


def splice(text, raw):
    assert '"@@X@@"' in text
    return text.replace('"@@X@@"', raw, 1)


def where(text, marker):
    """(line, col) of the first byte of marker in text, 1-based, columns in bytes."""
    b = text.encode("utf-8", errors="surrogateescape")
    i = b.index(marker.encode("utf-8", errors="surrogateescape"))
    line = b.count(b"\n", 0, i) + 1
    col = i - (b.rfind(b"\n", 0, i) + 1) + 1
    return line, col


def set_key(key, value):
    return lambda d: d.__setitem__(key, value)


def set_extent(value):
    return lambda d: d["tensors"][2]["logical"][0].__setitem__("extent", value)


def cases(seed):
    """Yields (name, bytes, diagnostic dict)."""
    # 100,000 nested arrays: the reader stops at its depth limit (1024).
    t = splice(with_placeholder(seed, set_key("seed", "@@X@@")), "[" * DEEP + "]" * DEEP)
    line, col = where(t, "[" * 1025)
    yield "deep_arrays_100k", t, ("FC0004", "/seed" + "/0" * 1023, line, col + 1023)
    # 100,000 nested objects under "provenance".
    t = splice(with_placeholder(seed, set_key("provenance", "@@X@@")), '{"a":' * DEEP + "1" + "}" * DEEP)
    line, col = where(t, '{"a":' * 1024)
    yield "deep_objects_100k", t, ("FC0004", "/provenance" + "/a" * 1023, line, col + 5 * 1023)
    # Alternating arrays and objects.
    t = splice(with_placeholder(seed, set_key("seed", "@@X@@")), '[{"a":' * (DEEP // 2) + "0" + "}]" * (DEEP // 2))
    line, col = where(t, '[{"a":')
    yield "deep_mixed_100k", t, ("FC0004", "/seed" + "/0/a" * 511 + "/0", line, col + 6 * 511 + 1)
    # 100,000 unclosed arrays: deep and truncated at once (depth is hit first).
    t = splice(with_placeholder(seed, set_key("seed", "@@X@@")), "[" * DEEP).rstrip()
    t = t[: t.index("[" * DEEP) + DEEP]
    line, col = where(t, "[" * DEEP)
    yield "deep_unclosed_100k", t, ("FC0004", "/seed" + "/0" * 1023, line, col + 1023)
    # 100,000 nested parentheses in a scalar expression (its parser has its own limit).
    t = with_placeholder(seed, set_extent("(" * DEEP + "i7" + ")" * DEEP))
    line, col = where(t, '"' + "(" * 8)
    yield "deep_parens_extent", t, ("FC0015", "/tensors/2/logical/0/extent", line, col)
    # 100,000 unary minus signs.
    t = with_placeholder(seed, set_extent("-" * DEEP + "i7"))
    line, col = where(t, '"' + "-" * 8)
    yield "deep_negation_extent", t, ("FC0015", "/tensors/2/logical/0/extent", line, col)
    # A 500,000-term sum that ends in a dangling operator.
    t = with_placeholder(seed, set_extent("i7 + " * 500_000))
    line, col = where(t, '"i7 + i7')
    yield "long_sum_extent", t, ("FC0015", "/tensors/2/logical/0/extent", line, col)
    # An 8 MiB provenance string with a stray Latin-1 byte at its end.
    t = with_placeholder(seed, lambda d: d["provenance"].__setitem__("note", "x" * (8 * MB) + "@@BAD@@"))
    b = t.encode("utf-8").replace(b"@@BAD@@", b"\xe9", 1)
    line, col = where(t, "@@BAD@@")
    yield "huge_string_invalid_utf8", b, ("FC0020", "", line, col)
    # An 8 MiB provenance string that the file ends inside.
    t = with_placeholder(seed, lambda d: d["provenance"].__setitem__("note", "y" * (8 * MB)))
    t = t[: t.index("y" * 16) + 4 * MB]
    line, col = where(t, '"' + "y" * 16)
    yield "huge_string_truncated", t, ("FC0003", "/provenance/note", line, col + 1 + 4 * MB)
    # A 4 MiB tensor name that nothing else uses; T9 is then a dangling output.
    name = "T" + "9" * (4 * MB)
    t = with_placeholder(seed, lambda d: d["tensors"][9].__setitem__("name", name))
    yield "huge_tensor_name", t, [("FC0101", "/exprs/6/outputs/0") + where(t, '"T9"\n   ]'),
                                  ("FC0101", "/outputs/0") + where(t, '"T9"\n ]')]
    # A 4 MiB output name that names no tensor.
    t = with_placeholder(seed, set_key("outputs", [name]))
    line, col = where(t, '"' + name[:16])
    yield "huge_dangling_name", t, ("FC0101", "/outputs/0", line, col)
    # A 4 MiB unknown key.
    t = with_placeholder(seed, lambda d: d.__setitem__("k" * (4 * MB), 1))
    line, col = where(t, '"' + "k" * 16)
    yield "huge_unknown_key", t, ("FC0011", "/" + "k" * (4 * MB), line, col + 4 * MB + 4)
    # A 1 MiB integer literal as an extent.
    t = splice(with_placeholder(seed, set_extent("@@X@@")), "7" * MB)
    line, col = where(t, "7" * 16)
    yield "huge_number_extent", t, ("FC0021", "/tensors/2/logical/0/extent", line, col)
    # A 1 MiB big-integer string as an extent.
    t = with_placeholder(seed, set_extent("8" * MB))
    line, col = where(t, '"' + "8" * 16)
    yield "huge_bigint_string_extent", t, ("FC0021", "/tensors/2/logical/0/extent", line, col)
    # 16 MiB of whitespace and nothing else.
    t = " \n\t" * (16 * MB // 3)
    yield "huge_whitespace_only", t, ("FC0003", "", t.count("\n") + 1, len(t) - t.rfind("\n"))
    # One 1,000,000-element array where a 3-element shape is expected.
    t = splice(with_placeholder(seed, lambda d: d["concrete_inputs"][0].__setitem__("shape", "@@X@@")),
               "[" + ", ".join(["1"] * 1_000_000) + "]")
    line, col = where(t, "[1, 1, 1, 1")
    yield "huge_shape_array", t, ("FC0114", "/concrete_inputs/0/shape", line, col)


def import_cases(source_dir):
    """Yields (name, text, diagnostics, import args) for the importers."""
    imp = os.path.join(source_dir, "fixtures", "import")
    with open(os.path.join(imp, "seed_matmul_allreduce_bias.py"), encoding="utf-8") as f:
        py = f.read()
    with open(os.path.join(imp, "seed_issue_2481.ir.txt"), encoding="utf-8") as f:
        ir = f.read()
    with open(os.path.join(imp, "seed_segmented_fusion.txt"), encoding="utf-8") as f:
        seg = f.read()
    # 100,000 nested lists as a permute's dims (the importer's limit is 64 levels; the call's
    # parenthesis is one of them).
    old = "dims=[0, 2, 1]"
    t = py.replace(old, "dims=" + "[" * DEEP + "0" + "]" * DEEP, 1)
    line, col = where(t, "dims=[")
    yield "import_py_deep_brackets_100k", t, ("FC0601", "", line, col + 5 + 63), ["--from", "nvfuser-python"]
    # An 8 MiB comment line, then a call that is never closed.
    t = py.replace("import torch\n", "import torch\n# " + "z" * (8 * MB) + "\n", 1)
    t = t.replace("T4 = fd.ops.matmul(T3, T1)", "T4 = fd.ops.matmul(T3, T1", 1)
    line, col = where(t, "T4 = fd.ops.matmul(")
    yield "import_py_long_line", t, ("FC0601", "", line, col + 18), ["--from", "nvfuser-python"]
    # 100,000 nested parentheses around an operand of the printed IR.
    old = "= __half2float(T5_g[ rS14{i0}, iS15{i3}, iS16{i6} ] (DeviceMesh{0 1}));"
    t = ir.replace(old, "= __half2float(" + "(" * DEEP + "T5_g[ rS14{i0}, iS15{i3}, iS16{i6} ] (DeviceMesh{0 1})"
                   + ")" * DEEP + ");", 1)
    line, col = where(t, "= __half2float((")
    yield "import_ir_deep_parens_100k", t, ("FC0601", "", line, col + 15 + 65), ["--from", "nvfuser-ir"]
    # A printed tensor with a 4 MiB name whose domain is never closed.
    t = ir + "\nT" + "7" * (4 * MB) + "_l[ iS99{i3}\n"
    yield "import_ir_huge_name", t, None, ["--from", "nvfuser-ir"]
    # A segmented dump whose group details are 4 MiB of one unbroken token.
    t = seg[: seg.index("group details:")] + "group details:\ng{" + "q" * (4 * MB) + "\n"
    yield "import_segments_huge_garbage", t, None, ["--from", "nvfuser-segments"]


def sidecar(name, diags, args=("validate",), ext=".json"):
    diags = diags if isinstance(diags, list) else [diags]
    args = list(args)
    if args[0] == "import":
        # The importers report follow-on problems too (names left undefined by
        # the first error): the text run checks the first one, located.
        want = [f"{name}{ext}:{diags[0][2]}:{diags[0][3]}: error[{diags[0][0]}]"] if diags != [None] else ["error[FC0"]
        return {"format": "fusecheck.expect/1", "input": name + ext,
                "runs": [dict({"args": args, "format": "json", "verdict": "bad-input"}, **LIMITS),
                         dict({"args": args, "format": "text", "verdict": "bad-input", "output_contains": want},
                              **LIMITS)]}
    return {
        "format": "fusecheck.expect/1",
        "input": name + ext,
        "runs": [
            dict({"args": args, "verdict": "bad-input",
                  "diagnostics": [dict(zip(("code", "pointer", "line", "col"), d)) for d in diags]},
                 **LIMITS),
            dict({"args": args, "format": "text", "verdict": "bad-input",
                  "output_contains": [f"error[{diags[0][0]}]"]}, **LIMITS),
        ],
    }


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", help="the seed repro")
    ap.add_argument("--source-dir", help="the repository (for fixtures/import/)")
    ap.add_argument("--out", help="folder to write the inputs and sidecars into")
    ap.add_argument("--list", action="store_true", help="print the case names and exit")
    args = ap.parse_args(argv)
    if args.list:
        print("\n".join(NAMES))
        return 0
    if not args.seed or not args.out or not args.source_dir:
        ap.error("--seed, --source-dir and --out are required (or --list)")
    os.makedirs(args.out, exist_ok=True)
    seed = seed_text(args.seed)
    written = []
    for name, data, diag in cases(seed):
        written.append(name)
        raw = data if isinstance(data, bytes) else data.encode("utf-8")
        with open(os.path.join(args.out, name + ".json"), "wb") as f:
            f.write(raw)
        with open(os.path.join(args.out, name + ".expect.json"), "w", encoding="utf-8") as f:
            json.dump(sidecar(name, diag), f, indent=1)
            f.write("\n")
    for name, data, diag, iargs in import_cases(args.source_dir):
        written.append(name)
        ext = ".py" if "_py_" in name else ".txt"
        with open(os.path.join(args.out, name + ext), "w", encoding="utf-8") as f:
            f.write(data)
        with open(os.path.join(args.out, name + ".expect.json"), "w", encoding="utf-8") as f:
            json.dump(sidecar(name, diag, ["import"] + iargs, ext), f, indent=1)
            f.write("\n")
    if tuple(written) != NAMES:
        print("gen_malformed: NAMES is out of date", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
