#!/usr/bin/env python3
"""The layer rule of src/: a layer may include only itself and the layers
before it in LAYERS. This file holds the order; docs/architecture.md lists it
for readers, and `--doc` checks that the two agree.

  tools/check_layers.py [--root DIR]        check every file under DIR/src
                                            (default: this repository)
  tools/check_layers.py --doc FILE.md       check FILE's layer list against LAYERS
  tools/check_layers.py --self-test         plant a violation in a scratch tree
                                            and check that it is caught

A layer is a folder src/<layer>/ (subfolders belong to it). Checked: every
`#include "x/..."` and `__has_include("x/...")` whose first component is a
layer, in every file under src/ (sources, headers, .inc, .def, .in), and the
DEPS of each fc_layer(...) call in src/CMakeLists.txt: each library links
exactly the earlier layers its folder includes. A folder of src/ that is not
in LAYERS is an error too. And the place rule: outside src/io/ no code spells
a JSON pointer into a repro (a string literal "/tensors...", "/exprs...", or
JsonPointer): it says where with a typed place (src/diag/place.h), and io/
spells it. Exit 0 when clean, 1 with one line per violation
(file:line: the rule), 2 on bad usage.
"""
import argparse
import os
import re
import sys
import tempfile

# The layers of src/, lowest first. A layer may use itself and the layers
# before it; tools/ and tests/ may use any.
LAYERS = [
    "support",
    "diag",
    "ir",
    "io",
    "analysis",
    "passes",
    "pipeline",
    "rewrite",
    "exec",
    "viz",
    "reduce",
    "difftest",
    "driver",
]
RANK = {name: i for i, name in enumerate(LAYERS)}

INCLUDE = re.compile(r'^\s*#\s*include\s*"([A-Za-z0-9_]+)/|__has_include\s*\(\s*"([A-Za-z0-9_]+)/')
FC_LAYER = re.compile(r"\bfc_layer\(\s*([A-Za-z0-9_]+)([^)]*)\)", re.S)
DEPS = re.compile(r"\bDEPS\b((?:\s+fc_[A-Za-z0-9_]+)*)")


def rule(layer):
    allowed = LAYERS[: RANK[layer] + 1]
    return f"src/{layer}/ may include only {', '.join(allowed)} (order in tools/check_layers.py)"


def check_includes(src):
    """Yields (path, line number, message) for every include of a later layer."""
    for layer in sorted(os.listdir(src)):
        folder = os.path.join(src, layer)
        if not os.path.isdir(folder):
            continue
        if layer not in RANK:
            yield folder, 0, f"src/{layer}/ is not a layer: add it to LAYERS in tools/check_layers.py"
            continue
        for root, dirs, files in os.walk(folder):
            dirs.sort()
            for name in sorted(files):
                path = os.path.join(root, name)
                try:
                    with open(path, encoding="utf-8", errors="replace") as f:
                        lines = f.readlines()
                except OSError as e:
                    yield path, 0, f"cannot read: {e}"
                    continue
                for n, line in enumerate(lines, 1):
                    for m in INCLUDE.finditer(line):
                        used = m.group(1) or m.group(2)
                        if used in RANK and RANK[used] > RANK[layer]:
                            yield path, n, f'includes "{used}/", a later layer: {rule(layer)}'


# A string literal that starts a pointer into a repro, or the pointer builder.
POINTER = re.compile(r'"/(?:tensors|exprs|scalars|inputs|outputs|concrete_inputs|meshes|segmentation|runs)\b'
                     r'|\bJsonPointer\b')
# The layers that spell places: io/, and diag/, which declares JsonPointer for io/.
SPELLERS = {"io", "diag"}


def check_places(src):
    """Yields (path, line number, message) for every pointer spelled outside io/."""
    for layer in sorted(os.listdir(src)):
        if layer in SPELLERS or layer not in RANK:
            continue
        for root, dirs, files in os.walk(os.path.join(src, layer)):
            dirs.sort()
            for name in sorted(files):
                path = os.path.join(root, name)
                with open(path, encoding="utf-8", errors="replace") as f:
                    for n, line in enumerate(f, 1):
                        code = line.split("//", 1)[0]
                        m = POINTER.search(code)
                        if m:
                            yield path, n, (f"spells a JSON pointer ({m.group(0)}...): say where with a typed "
                                            "place (src/diag/place.h); io/ spells it (src/io/place_pointer.h)")


def included_layers(src, layer):
    used = set()
    for root, _, files in os.walk(os.path.join(src, layer)):
        for name in files:
            with open(os.path.join(root, name), encoding="utf-8", errors="replace") as f:
                for line in f:
                    for m in INCLUDE.finditer(line):
                        u = m.group(1) or m.group(2)
                        if u in RANK and u != layer:
                            used.add(u)
    return used


def check_cmake(src):
    """Each fc_layer(NAME DEPS ...) links exactly the layers NAME/ includes."""
    path = os.path.join(src, "CMakeLists.txt")
    if not os.path.exists(path):
        return
    with open(path, encoding="utf-8") as f:
        text = f.read()
    seen = set()
    for m in FC_LAYER.finditer(text):
        layer, args = m.group(1), m.group(2)
        line = text.count("\n", 0, m.start()) + 1
        if layer not in RANK:
            continue  # the function's own definition, or not a layer
        seen.add(layer)
        d = DEPS.search(args)
        deps = {x[len("fc_"):] for x in d.group(1).split()} if d else set()
        for dep in sorted(deps, key=lambda x: RANK.get(x, -1)):
            if dep not in RANK:
                yield path, line, f"fc_{layer} links fc_{dep}, which is not a layer library"
            elif RANK[dep] >= RANK[layer]:
                yield path, line, f"fc_{layer} links fc_{dep}, a later layer: {rule(layer)}"
        if os.path.isdir(os.path.join(src, layer)):
            used = included_layers(src, layer)
            for dep in sorted(used - deps, key=RANK.get):
                yield path, line, f"fc_{layer} does not link fc_{dep}, but src/{layer}/ includes it"
            for dep in sorted(deps - used, key=lambda x: RANK.get(x, -1)):
                if dep in RANK:
                    yield path, line, f"fc_{layer} links fc_{dep}, but src/{layer}/ includes nothing of it"
    for layer in LAYERS:
        if seen and layer not in seen and os.path.isdir(os.path.join(src, layer)):
            yield path, 0, f"src/{layer}/ has no fc_layer({layer} ...) library"


def check_tree(root):
    src = os.path.join(root, "src")
    if not os.path.isdir(src):
        print(f"check_layers: {src} is not a folder", file=sys.stderr)
        return 2
    problems = list(check_includes(src)) + list(check_cmake(src)) + list(check_places(src))
    for path, n, msg in problems:
        where = os.path.relpath(path, root) + (f":{n}" if n else "")
        print(f"{where}: {msg}")
    if problems:
        print(f"check_layers: {len(problems)} violation(s) of the layer order", file=sys.stderr)
        return 1
    return 0


def doc_layers(path):
    """The layers docs/architecture.md lists: the numbered items `N. `src/NAME/``
    of its "## Layers" section, in order."""
    layers, inside = [], False
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.startswith("## "):
                inside = line.strip() == "## Layers"
                continue
            m = re.match(r"\d+\.\s+`src/([A-Za-z0-9_]+)/`", line) if inside else None
            if m:
                layers.append(m.group(1))
    return layers


def check_doc(path):
    listed = doc_layers(path)
    if listed != LAYERS:
        print(f"{path}: the layers listed under \"## Layers\" are {listed or 'none'}; "
              f"tools/check_layers.py has {LAYERS}")
        return 1
    return 0


def self_test():
    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, "src")

        def plant(path, text):
            os.makedirs(os.path.dirname(os.path.join(src, path)), exist_ok=True)
            with open(os.path.join(src, path), "w") as f:
                f.write(text)

        def fails(what):
            print(f"check_layers self-test: {what}", file=sys.stderr)
            return 1

        plant("exec/ok.h", '#include "ir/fusion.h"\n')
        os.makedirs(os.path.join(src, "ir"))
        if list(check_includes(src)):
            return fails("a downward include was rejected")
        plant("ir/bad.h", '// planted\n#include "exec/run.h"\n')
        found = list(check_includes(src))
        if len(found) != 1 or found[0][1] != 2:
            return fails(f"the planted include was not caught: {found}")
        plant("io/spells.cpp", 'std::string p = "/exprs/" + n;\n')
        plant("exec/says.cpp", '// a comment may quote "/exprs/3"\nfail(m, Place::expr(e));\n')
        if list(check_places(src)):
            return fails("a typed place or io/'s spelling was rejected")
        plant("exec/spells.cpp", '\nfail(m, "/exprs/" + std::to_string(e));\n')
        found = list(check_places(src))
        if len(found) != 1 or found[0][1] != 2 or "typed place" not in found[0][2]:
            return fails(f"the planted pointer was not caught: {found}")
    return 0


def main():
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--root", default=here, help="repository root (default: this one)")
    p.add_argument("--doc", help="check this Markdown file's layer list against LAYERS")
    p.add_argument("--self-test", action="store_true")
    a = p.parse_args()
    if a.self_test:
        return self_test()
    if a.doc:
        return check_doc(a.doc)
    return check_tree(a.root)


if __name__ == "__main__":
    sys.exit(main())
