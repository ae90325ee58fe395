#!/usr/bin/env python3
"""Which src/ sources clang-tidy must check: those whose result can differ from the base's.

clang-tidy's verdict on a translation unit depends only on the text it reads (the source and
every header it includes), its compile flags, the checks and clang-tidy itself. `.ci/tidy-base`
names a commit whose whole src/ passed clang-tidy (the last landed one: its CI ran it) and the
digest of what was the same for every source then: the distinct compile flags of src/ (paths of
the tree and the build written as ${root} and ${build}) and clang-tidy's version. A source of
this tree needs checking again when the source or any file its last compile read (ninja's
dependency log of the build) differs from that commit. Every source is checked when the digest
differs, .clang-tidy changed, or the base is not a commit of this clone.

  tools/tidy_scope.py --root R --build B [--base-file F]  prints the sources, one per line;
                                                         the reason goes to stderr
  tools/tidy_scope.py --root R --build B --digest        prints this build's digest
  tools/tidy_scope.py --self-test                        checks the selection rule
"""
import argparse
import hashlib
import json
import os
import shlex
import subprocess
import sys

# A change to this may change the verdict on every translation unit.
EVERYTHING = (".clang-tidy",)


def run(cmd, cwd):
    return subprocess.run(cmd, cwd=cwd, capture_output=True, text=True)


def object_of(entry):
    """The object file a compile-database entry writes (its -o argument), relative to the build."""
    args = entry["arguments"] if "arguments" in entry else shlex.split(entry["command"])
    for i, a in enumerate(args[:-1]):
        if a == "-o":
            return args[i + 1]
    return None


def digest(entries, root, build):
    """What every source's verdict shares: its distinct compile flags and clang-tidy's version."""
    flags = set()
    for e in entries:
        args = e["arguments"] if "arguments" in e else shlex.split(e["command"])
        kept, skip = [], False
        for a in args:
            if skip:
                skip = False
            elif a in ("-o", "-c"):
                skip = True
            elif a != e["file"]:
                kept.append(a.replace(build, "${build}").replace(root, "${root}"))
        flags.add(" ".join(kept))
    try:
        version = run(["clang-tidy", "--version"], None).stdout.strip()
    except OSError:
        version = "no clang-tidy"
    text = "\n".join(sorted(flags)) + "\n" + version
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def read_base(path):
    """(commit, digest) from a base file: a 40-hex line and a `flags <digest>` line."""
    commit = flags = ""
    for line in open(path):
        line = line.strip()
        if len(line) == 40 and all(c in "0123456789abcdef" for c in line):
            commit = line
        elif line.startswith("flags "):
            flags = line.split()[1]
    return commit, flags


def ninja_deps(build):
    """{object: [paths read]} from ninja's dependency log; objects never compiled are absent."""
    out = run(["ninja", "-C", build, "-t", "deps"], build)
    deps, current = {}, None
    for line in out.stdout.splitlines():
        if not line.strip():
            continue
        if not line.startswith(" "):
            current = line.split(":", 1)[0]
            deps[current] = [] if "(VALID)" in line else None
        elif current is not None and deps[current] is not None:
            deps[current].append(line.strip())
    return deps


def select(sources, deps_of, changed, root):
    """The sources to check: no recorded deps (never compiled: check it), or any dep changed.

    sources: absolute paths; deps_of: {source: [absolute paths] or None}; changed: paths relative
    to root."""
    changed_abs = {os.path.join(root, c) for c in changed}
    picked = []
    for s in sources:
        deps = deps_of.get(s)
        if deps is None or s in changed_abs or any(d in changed_abs for d in deps):
            picked.append(s)
    return picked


def changed_since(root, base):
    """Tracked paths that differ from base in the working tree, plus untracked ones; None when
    base is not a commit of this clone (a shallow clone, a tree without git)."""
    if run(["git", "rev-parse", "--verify", "--quiet", base + "^{commit}"], root).returncode != 0:
        return None
    diff = run(["git", "diff", "--name-only", base], root)
    if diff.returncode != 0:
        return None
    untracked = run(["git", "ls-files", "--others", "--exclude-standard"], root)
    return set(diff.stdout.split()) | set(untracked.stdout.split())


def src_entries(root, build):
    """The compile database's entries for the .cpp sources under root/src."""
    db = json.load(open(os.path.join(build, "compile_commands.json")))
    src = os.path.join(root, "src") + os.sep
    return [e for e in db if e["file"].startswith(src) and e["file"].endswith(".cpp")]


def scope(root, build, base_file):
    entries = src_entries(root, build)
    sources = sorted({e["file"] for e in entries})
    if not base_file or not os.path.exists(base_file):
        return sources, "no base: every source"
    base, flags = read_base(base_file)
    if not base:
        return sources, f"{base_file} names no commit: every source"
    here = digest(entries, root, build)
    if flags != here:
        return sources, (f"compile flags or clang-tidy differ from the base's (digest {here}, "
                         f"base {flags or 'none'}): every source")
    changed = changed_since(root, base)
    if changed is None:
        return sources, f"base {base[:12]} is not a commit of this clone: every source"
    hit = sorted(c for c in changed if c in EVERYTHING)
    if hit:
        return sources, f"{', '.join(hit)} changed since {base[:12]}: every source"
    deps = ninja_deps(build)
    deps_of = {}
    for e in entries:
        obj = object_of(e)
        deps_of[e["file"]] = deps.get(obj) if obj else None
    picked = select(sources, deps_of, changed, root)
    return picked, (f"{len(picked)} of {len(sources)} sources read a file changed since "
                    f"{base[:12]} ({len(changed)} paths changed)")


def self_test():
    root = "/r"
    a, b, c, d = (f"/r/src/m/{n}.cpp" for n in "abcd")
    deps_of = {a: [a, "/r/src/m/h.h", "/usr/include/x.h"], b: [b, "/r/src/m/g.h"], c: None,
               d: [d]}
    cases = [
        (set(), [c]),                              # nothing changed: only the never-compiled one
        ({"src/m/h.h"}, [a, c]),                   # a header: its includers
        ({"src/m/d.cpp"}, [c, d]),                 # a source itself
        ({"docs/x.md", "src/m/g.h"}, [b, c]),      # unrelated paths ignored
    ]
    bad = 0
    for changed, want in cases:
        got = select([a, b, c, d], deps_of, changed, root)
        if got != want:
            print(f"self-test: changed {sorted(changed)}: got {got}, want {want}", file=sys.stderr)
            bad += 1
    cmd = {"file": a, "command": "/usr/bin/c++ -I/x -o src/CMakeFiles/m.dir/a.cpp.o -c /r/src/m/a.cpp"}
    if object_of(cmd) != "src/CMakeFiles/m.dir/a.cpp.o":
        print(f"self-test: object_of gave {object_of(cmd)}", file=sys.stderr)
        bad += 1
    # The digest does not depend on where the tree or the build is, nor on the file list, but on
    # every flag.
    def db(r, name, flag="-O2"):
        return [{"file": f"{r}/src/{name}.cpp",
                 "command": f"c++ -I{r}/src -I{r}/b/gen {flag} -o x/{name}.o -c {r}/src/{name}.cpp"}]
    one, two = digest(db("/r", "a"), "/r", "/r/b"), digest(db("/t/c", "z"), "/t/c", "/t/c/b")
    three = digest(db("/r", "a", "-O0"), "/r", "/r/b")
    if one != two or one == three:
        print(f"self-test: digests {one} {two} {three}", file=sys.stderr)
        bad += 1
    print("tidy_scope self-test: " + ("ok" if not bad else f"{bad} failed"))
    return 1 if bad else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--root")
    ap.add_argument("--build")
    ap.add_argument("--base-file", default="")
    ap.add_argument("--digest", action="store_true")
    ap.add_argument("--self-test", action="store_true")
    a = ap.parse_args()
    if a.self_test:
        return self_test()
    if not a.root or not a.build:
        ap.error("--root and --build are required")
    root, build = os.path.realpath(a.root), os.path.realpath(a.build)
    if a.digest:
        print(digest(src_entries(root, build), root, build))
        return 0
    picked, why = scope(root, build, a.base_file)
    print(why, file=sys.stderr)
    for s in picked:
        print(s)
    return 0


if __name__ == "__main__":
    sys.exit(main())
