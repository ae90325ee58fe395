#!/usr/bin/env python3
"""Seeds for the import_paste harness: the fixtures' printed IR, dumps and repros as GitHub
pastes mangle them (bold markers, quote markers, bullets for `+`, eaten `__`, joined lines, HTML
entities, non-breaking spaces, fences, <details>, prose between lines, CRLF, tabs), a few at a
time. Deterministic: the same variants on every machine (random.Random(seed)).

    paste_variants.py OUT_DIR [--per-source N] [--seed S] FILE...
"""
import argparse
import os
import random
import re
import sys


def variants(rng):
    def bold(t):
        pat = r'(T\d+_[gl]\w*|[ri]S\d+\{[^}]*\}|bS\d+\{[^}]*\})'
        return re.sub(pat, lambda m: '**' + m.group(1) + '**' if rng.random() < 0.3 else m.group(1), t)

    def quote(t):
        return '\n'.join(('> ' + l) if rng.random() < 0.9 else l for l in t.split('\n'))

    def bullets(t):
        return t.replace(' + ', ' \u2022 ') if rng.random() < 0.5 else t.replace('+', '\u2022')

    def eat_underscores(t):
        return t.replace('__', '')

    def join_lines(t):
        out = []
        for line in t.split('\n'):
            if out and rng.random() < 0.15:
                out[-1] += ' ' + line
            else:
                out.append(line)
        return '\n'.join(out)

    def escapes(t):
        return re.sub(r'([_*])', lambda m: '\\' + m.group(1) if rng.random() < 0.2 else m.group(1), t)

    def entities(t):
        return t.replace('&', '&amp;').replace('<', '&lt;').replace('>', '&gt;')

    def nbsp(t):
        return t.replace(' ', '\u00a0') if rng.random() < 0.2 else t.replace('  ', ' \u00a0')

    def fence(t):
        info = rng.choice(['', 'python', 'cpp', 'text'])
        return 'The repro:\n\n```' + info + '\n' + t + '\n```\n\nIt fails at head too.\n'

    def prose(t):
        lines = t.split('\n')
        lines.insert(rng.randrange(len(lines) + 1), 'It fails on this line, see the log above.')
        return '\n'.join(lines)

    def crlf(t):
        return t.replace('\n', '\r\n')

    def tabs(t):
        return t.replace('    ', '\t')

    def details(t):
        return '<details><summary>repro</summary>\n\n' + t + '\n\n</details>\n'

    return [bold, quote, bullets, eat_underscores, join_lines, escapes, entities, nbsp, fence, prose,
            crlf, tabs, details]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('out')
    ap.add_argument('files', nargs='+')
    ap.add_argument('--per-source', type=int, default=8)
    ap.add_argument('--seed', type=int, default=1)
    ap.add_argument('--max-bytes', type=int, default=4096)
    a = ap.parse_args()
    rng = random.Random(a.seed)
    ops = variants(rng)
    os.makedirs(a.out, exist_ok=True)
    n = 0
    for path in sorted(a.files):
        with open(path, encoding='utf-8', errors='replace') as f:
            text = f.read()
        for _ in range(a.per_source):
            t = text
            for op in rng.sample(ops, rng.randint(1, 4)):
                t = op(t)
            name = os.path.join(a.out, 'variant-%04d' % n)
            with open(name, 'wb') as f:
                f.write(t.encode('utf-8')[:a.max_bytes])
            n += 1
    print(n, file=sys.stderr)


if __name__ == '__main__':
    main()
