#!/usr/bin/env python3
"""The report and the graph tell the verdict, in a real browser.

    browser_verdict_test.py --cli build/tools/fusecheck --source . --workdir DIR [--images docs/images]

For the seed (FC0301), an edge hazard (FC0302) and an unevaluable reshape (FC0303), makes the
HTML report and the graph's SVG, loads each in headless Chromium at 1280 px and checks the DOM
after the page's script ran:

- the verdict (`FAIL: 1 error (FC0302)`, as `fusecheck check` counts them) is in the report's
  title and header, and in the graph's title;
- every diagnostic `fusecheck check --format json` reports is in the report, and the graph shows
  the code of every diagnostic that has a place in the fusion;
- the report does not overflow horizontally at 1280 px (nothing outside the graph panel, which
  scrolls inside itself, is wider than the window).

Screenshots go to DIR (and, with --images, to docs/images/<case>-report.png and
<case>-graph.png: how the checked-in images are made). Without chromium the test says so and
exits 77 (CTest: skipped, never passed). Exit 0 pass, 1 fail.
"""
import argparse
import html.parser
import json
import os
import shutil
import subprocess
import sys
import tempfile

FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync", "--hide-scrollbars",
         "--force-device-scale-factor=1"]

CASES = [
    ("seed", "fixtures/seed/matmul_allreduce_bias.json", []),
    ("fc0302", "fixtures/nvfuser/transpose_reduction_outer.json", ["--nvfuser", "2024-06-24"]),
    ("fc0303", "fixtures/analysis/reshape_unevaluable.json", []),
]

# Appended to a copy of the report: records what the test reads back from the dumped DOM.
PROBE = """<script>
(function () {
  var d = document.documentElement, w = d.clientWidth, wide = [];
  document.querySelectorAll('body *').forEach(function (e) {
    if (e.parentElement && e.parentElement.closest('.graph-panel')) return;
    if (e.closest('.hidden') || e.closest('details:not([open]) > :not(summary)')) return;
    var r = e.getBoundingClientRect();
    if (r.width > 0 && r.right > w + 1) wide.push(e.tagName.toLowerCase() + (e.id ? '#' + e.id : '') + '.' + e.className);
  });
  var codes = [];
  document.querySelectorAll('#diagnostics .diag[data-code]').forEach(function (e) { codes.push(e.dataset.code); });
  d.setAttribute('data-probe-scroll-width', String(Math.max(d.scrollWidth, document.body.scrollWidth)));
  d.setAttribute('data-probe-client-width', String(w));
  d.setAttribute('data-probe-title', document.title);
  d.setAttribute('data-probe-codes', codes.join(','));
  d.setAttribute('data-probe-wide', wide.slice(0, 5).join(' '));
})();
</script>"""


class Dom(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.elements, self.text = [], []

    def handle_starttag(self, tag, attrs):
        self.elements.append((tag, dict(attrs)))

    def handle_startendtag(self, tag, attrs):
        self.elements.append((tag, dict(attrs)))

    def handle_data(self, data):
        self.text.append(data)


def find_chromium():
    for name in ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable"):
        if shutil.which(name):
            return shutil.which(name)
    return None


def chromium(browser, args, profile):
    return subprocess.run([browser] + FLAGS + ["--user-data-dir=" + profile] + args, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True, timeout=180)


def verdict(diags):
    errors = [d for d in diags if d["severity"] == "error"]
    warnings = [d for d in diags if d["severity"] == "warning"]
    if not errors and not warnings:
        return "clean"
    codes = []  # in the order the diagnostics come
    for d in diags:
        if d["severity"] in ("error", "warning") and d["code"] not in codes:
            codes.append(d["code"])
    head = f"FAIL: {len(errors)} error{'s' if len(errors) != 1 else ''}" if errors else "WARN: "
    if warnings:
        head += (", " if errors else "") + f"{len(warnings)} warning{'s' if len(warnings) != 1 else ''}"
    return f"{head} ({', '.join(codes)})"


def check_case(browser, cli, source, work, images, name, repro, extra):
    failures = []
    run = lambda args: subprocess.run([cli] + args, cwd=source, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                      text=True, timeout=300)
    check = run(["check", repro, "--format", "json"] + extra)
    diags = json.loads(check.stdout)["diagnostics"]
    want = verdict(diags)
    report = os.path.join(work, f"{name}-report.html")
    svg = os.path.join(work, f"{name}-graph.svg")
    r = run(["report", repro, "-o", report] + extra)
    d = run(["dot", repro, "-o", os.path.join(work, f"{name}.dot"), "--svg", svg] + extra)
    if not os.path.exists(report) or not os.path.exists(svg):
        return [f"{name}: report / dot did not write their files: {r.stderr[-500:]} {d.stderr[-500:]}"]
    with open(report, encoding="utf-8") as f:
        page = f.read()
    probed = os.path.join(work, f"{name}-report.probe.html")
    with open(probed, "w", encoding="utf-8") as f:
        f.write(page.replace("</body>", PROBE + "\n</body>"))
    with tempfile.TemporaryDirectory(prefix="fc-chromium-") as profile:
        dump = chromium(browser, ["--window-size=1280,1000", "--virtual-time-budget=5000", "--dump-dom",
                                  "file://" + probed], os.path.join(profile, "a"))
        gdump = chromium(browser, ["--virtual-time-budget=2000", "--dump-dom", "file://" + svg],
                         os.path.join(profile, "b"))
        shots = [(f"{name}-report.png", "file://" + report, "1280,1400"), (f"{name}-graph.png", "file://" + svg,
                                                                           "1280,1000")]
        for png, url, size in shots:
            out = os.path.join(work, png)
            s = chromium(browser, ["--window-size=" + size, "--screenshot=" + out, url], os.path.join(profile, png))
            if s.returncode != 0 or not os.path.exists(out) or os.path.getsize(out) < 5000:
                failures.append(f"{name}: no screenshot {png} (chromium exited {s.returncode})")
            elif images:
                shutil.copyfile(out, os.path.join(images, png))
    dom = Dom()
    dom.feed(dump.stdout)
    root = next((a for t, a in dom.elements if t == "html"), {})
    title = root.get("data-probe-title", "")
    if want not in title:
        failures.append(f"{name}: the report's title {title!r} does not carry the verdict {want!r}")
    header = " ".join(dom.text)
    if want not in header:
        failures.append(f"{name}: the verdict {want!r} is not shown in the page")
    codes = sorted(c for c in root.get("data-probe-codes", "").split(",") if c)
    expected = sorted(x["code"] for x in diags)
    if codes != expected:
        failures.append(f"{name}: the report lists diagnostics {codes}, check reports {expected}")
    sw, cw = int(root.get("data-probe-scroll-width", "0")), int(root.get("data-probe-client-width", "0"))
    if not cw or sw > cw:
        failures.append(f"{name}: the page overflows at 1280 px: scrollWidth {sw} > clientWidth {cw}; wide: "
                        f"{root.get('data-probe-wide', '')}")
    elif root.get("data-probe-wide"):
        failures.append(f"{name}: elements wider than the window: {root.get('data-probe-wide')}")
    gtext = " ".join(t.strip() for t in _texts(gdump.stdout) if t.strip())
    if want not in gtext:
        failures.append(f"{name}: the graph's title does not carry the verdict {want!r}")
    for x in diags:
        if x["location"]["pointer"].startswith(("/tensors/", "/exprs/")) and x["code"] not in gtext:
            failures.append(f"{name}: the graph does not show {x['code']} ({x['message'][:80]})")
    print(f"{name}: {want}; report lists {codes}; width {sw}/{cw} px; graph and report screenshots in {work}")
    return failures


def _texts(markup):
    dom = Dom()
    dom.feed(markup)
    return dom.text


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cli", required=True)
    ap.add_argument("--source", required=True)
    ap.add_argument("--workdir", required=True)
    ap.add_argument("--images", help="also copy the screenshots here (docs/images)")
    args = ap.parse_args()
    browser = find_chromium()
    if not browser:
        print("SKIPPED: chromium not found (Debian: apt-get install -y chromium; tools/install-deps.sh installs it): "
              "the report and graph were NOT checked in a browser")
        return 77
    work = os.path.realpath(args.workdir)
    os.makedirs(work, exist_ok=True)
    failures = []
    for name, repro, extra in CASES:
        failures += check_case(browser, os.path.realpath(args.cli), os.path.realpath(args.source), work, args.images,
                               name, repro, extra)
    for f in failures:
        print("FAIL: " + f)
    if failures:
        return 1
    print("PASS: verdicts in titles, every diagnostic present, no horizontal overflow at 1280 px")
    return 0


if __name__ == "__main__":
    sys.exit(main())
