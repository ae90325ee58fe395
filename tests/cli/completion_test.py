#!/usr/bin/env python3
"""Shell completion and man pages, generated from the CLI's definition.

    completion_test.py --cli build/tools/fusecheck --workdir DIR

Checks, by running them as a user's shell and man would:
- bash: the script parses (`bash -n`), and completing `fusecheck ch` offers `check`, `fusecheck
  check --for` offers `--format`, `fusecheck check --format ` offers the formats as words, and
  `fusecheck --color ` offers auto, always and never;
- zsh: the script names every subcommand and the formats (zsh itself is not needed);
- man: one page per subcommand plus fusecheck.1, each a roff page (.TH) whose NAME and options
  are the CLI's own (`fusecheck-check` lists --nvfuser with its eras written as words).
Exit 0 pass, 1 fail.
"""
import argparse
import os
import subprocess
import sys


def complete(script, words):
    """COMPREPLY of the bash function for `words` (the last one is being completed)."""
    quoted = " ".join("'" + w.replace("'", "'\\''") + "'" for w in words)
    prog = (f"source '{script}'\nCOMP_WORDS=({quoted})\nCOMP_CWORD={len(words) - 1}\n"
            "_fusecheck\nprintf '%s\\n' \"${COMPREPLY[@]}\"\n")
    p = subprocess.run(["bash", "-c", prog], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    return p.stdout.split()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cli", required=True)
    ap.add_argument("--workdir", required=True)
    args = ap.parse_args()
    os.makedirs(args.workdir, exist_ok=True)
    problems = []

    bash = os.path.join(args.workdir, "fusecheck.bash")
    with open(bash, "w", encoding="utf-8") as f:
        f.write(subprocess.run([args.cli, "--generate-completion", "bash"], stdout=subprocess.PIPE, text=True,
                               check=True).stdout)
    if subprocess.run(["bash", "-n", bash]).returncode != 0:
        problems.append("the bash completion script does not parse")
    for words, want in ((["fusecheck", "ch"], ["check"]), (["fusecheck", "check", "--for"], ["--format"]),
                        (["fusecheck", "check", "--format", ""], ["text", "json", "sarif", "github"]),
                        (["fusecheck", "--color", ""], ["auto", "always", "never"]),
                        (["fusecheck", "te"], ["test"])):
        got = complete(bash, words)
        missing = [w for w in want if w not in got]
        if missing:
            problems.append(f"bash: completing {' '.join(words)!r} gives {got}, without {missing}")

    zsh = subprocess.run([args.cli, "--generate-completion", "zsh"], stdout=subprocess.PIPE, text=True).stdout
    if not zsh.startswith("#compdef fusecheck"):
        problems.append("zsh: the script does not start with #compdef fusecheck")
    for w in ("check", "test", "explain", "sarif", "github"):
        if w not in zsh:
            problems.append(f"zsh: the script never names {w}")
    bad = subprocess.run([args.cli, "--generate-completion", "fish"], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)
    if bad.returncode != 2 or "bash or zsh" not in bad.stderr:
        problems.append(f"--generate-completion fish: exit {bad.returncode}, {bad.stderr!r}")

    man = os.path.join(args.workdir, "man1")
    os.makedirs(man, exist_ok=True)
    for old in os.listdir(man):
        os.remove(os.path.join(man, old))
    subprocess.run([args.cli, "--generate-man", man], check=True)
    pages = sorted(os.listdir(man))
    for sub in ("check", "test", "explain", "fuzz", "report", "run"):
        if f"fusecheck-{sub}.1" not in pages:
            problems.append(f"man: no fusecheck-{sub}.1 among {pages}")
    if "fusecheck.1" not in pages:
        problems.append("man: no fusecheck.1")
    with open(os.path.join(man, "fusecheck-check.1"), encoding="utf-8") as f:
        check = f.read()
    # The page as text: roff's escaped hyphens and font changes undone.
    check = check.replace("\\-", "-").replace("\\fB", "").replace("\\fI", "").replace("\\fR", "")
    for want in (".TH", "fusecheck-check", "--nvfuser", "--frontend", "--format"):
        if want not in check:
            problems.append(f"man: fusecheck-check.1 does not contain {want!r}")
    if "ENUM:" in check or "->" in check:
        problems.append("man: fusecheck-check.1 shows the parser's internals (ENUM: / ->)")

    if problems:
        print("FAIL")
        for p in problems:
            print("  " + p)
        return 1
    print(f"ok: bash and zsh completion, {len(pages)} man pages")
    return 0


if __name__ == "__main__":
    sys.exit(main())
