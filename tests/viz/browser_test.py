#!/usr/bin/env python3
"""Loads a fusecheck HTML report in headless Chromium and checks its DOM.

    browser_test.py --cli build/tools/fusecheck --repro fixtures/seed/x.json --workdir DIR

Writes DIR/seed-report.html with `fusecheck report`, has Chromium render it
(--dump-dom after the inline script ran, and --screenshot), then checks:
the pipeline steps are there, at least one step shows a computed diff with
added and removed lines, the failing step is marked, the FC0301 diagnostic
with its notes is there, the graph is embedded as SVG with the failing tensor
T5 as an element id (when the report says Graphviz was available), and the
inline script ran (html[data-ready]). Keeps DIR/seed-report.png.

Exit 0 pass, 1 fail, 77 skipped (no chromium) -- CTest's SKIP_RETURN_CODE.
"""
import argparse
import html.parser
import os
import shutil
import subprocess
import sys
import tempfile

CHROMIUM_FLAGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
    "--hide-scrollbars",
]


class Dom(html.parser.HTMLParser):
    """Collects elements (tag, attrs) and text per element id of interest."""

    def __init__(self):
        super().__init__()
        self.elements = []  # (tag, dict(attrs))
        self.text = []

    def handle_starttag(self, tag, attrs):
        self.elements.append((tag, dict(attrs)))

    def handle_startendtag(self, tag, attrs):
        self.elements.append((tag, dict(attrs)))

    def handle_data(self, data):
        self.text.append(data)

    def with_class(self, cls):
        return [a for _, a in self.elements if cls in (a.get("class") or "").split()]

    def by_id(self, ident):
        return [(t, a) for t, a in self.elements if a.get("id") == ident]


def find_chromium():
    for name in ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable"):
        path = shutil.which(name)
        if path:
            return path
    return None


def chromium(browser, args, profile, timeout=180):
    cmd = [browser] + CHROMIUM_FLAGS + ["--user-data-dir=" + profile] + args
    return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=timeout, text=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cli", required=True)
    ap.add_argument("--repro", required=True)
    ap.add_argument("--workdir", required=True)
    args = ap.parse_args()

    browser = find_chromium()
    if not browser:
        print("SKIP: chromium not found (Debian: apt-get install -y chromium); the report was not "
              "checked in a browser")
        return 77

    os.makedirs(args.workdir, exist_ok=True)
    report = os.path.join(args.workdir, "seed-report.html")
    shot = os.path.join(args.workdir, "seed-report.png")
    for p in (report, shot):
        if os.path.exists(p):
            os.remove(p)
    r = subprocess.run([args.cli, "report", args.repro, "-o", report], stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True, timeout=300)
    print(r.stdout.strip())
    if r.returncode not in (0, 1) or not os.path.exists(report):
        print("FAIL: fusecheck report exited %d" % r.returncode)
        return 1
    with open(report, encoding="utf-8") as f:
        source = f.read()
    graph_expected = "<svg" in source

    url = "file://" + os.path.abspath(report)
    failures = []
    with tempfile.TemporaryDirectory(prefix="fc-chromium-") as profile:
        dump = chromium(browser, ["--virtual-time-budget=5000", "--dump-dom", url], os.path.join(profile, "a"))
        if dump.returncode != 0 or "<html" not in dump.stdout:
            print(dump.stderr[-2000:])
            print("FAIL: chromium --dump-dom exited %d" % dump.returncode)
            return 1
        snap = chromium(browser, ["--window-size=1400,1800", "--screenshot=" + os.path.abspath(shot), url],
                        os.path.join(profile, "b"))
        if snap.returncode != 0 or not os.path.exists(shot) or os.path.getsize(shot) < 10000:
            failures.append("no screenshot (chromium exited %d)" % snap.returncode)

    dom = Dom()
    dom.feed(dump.stdout)

    html_attrs = [a for t, a in dom.elements if t == "html"]
    if not html_attrs or html_attrs[0].get("data-ready") != "1":
        failures.append("the inline script did not run (no html[data-ready=1])")
    steps = dom.with_class("step")
    passes = {a.get("data-pass") for a in steps}
    if len(steps) < 5 or not {"segment", "segment-inputs", "bind", "concretize"} <= passes:
        failures.append("pipeline steps missing: %d steps, passes %s" % (len(steps), sorted(p for p in passes if p)))
    failing = [a for a in steps if "failing" in (a.get("class") or "").split()]
    if len(failing) != 1 or failing[0].get("data-pass") != "concretize" or failing[0].get("data-scope") != "segment 2":
        failures.append("the failing step is not marked as concretize (segment 2): %s" % failing)
    if not dom.with_class("step-diff"):
        failures.append("no step shows a diff")
    if not dom.with_class("diff-add") or not dom.with_class("diff-del"):
        failures.append("no added / removed diff lines")
    diags = [a for a in dom.with_class("diag") if a.get("data-code") == "FC0301"]
    if not diags:
        failures.append("the FC0301 diagnostic is missing")
    text = " ".join(dom.text)
    for needle in ("cannot evaluate extent i0", "fix[strip-reduction-axes]", "re-check", "Reduction axis rS14"):
        if needle not in text:
            failures.append("text missing: %r" % needle)
    if not dom.by_id("fix-check"):
        failures.append("the fix's check diff is missing")
    if graph_expected:
        if not any(t == "svg" for t, _ in dom.elements):
            failures.append("the graph SVG did not load")
        if not dom.by_id("tensor_T5"):
            failures.append("the graph has no element tensor_T5")
        if not dom.by_id("segment_2"):
            failures.append("the graph has no cluster segment_2")
        links = [a for a in dom.with_class("node-link") if a.get("data-node") == "tensor_T5"]
        if not links:
            failures.append("no diagnostic links to tensor_T5")
    else:
        print("note: the report has no graph (built without Graphviz); graph checks skipped")

    if failures:
        for f in failures:
            print("FAIL: " + f)
        return 1
    print("PASS: %d steps, diff present, FC0301 present%s; screenshot %s" %
          (len(steps), ", graph embedded" if graph_expected else "", shot))
    return 0


if __name__ == "__main__":
    sys.exit(main())
