"""The fixture expectation format, fusecheck.expect/1 (docs/fixtures.md): loading and
validating a sidecar, expanding it into CLI invocations, matching diagnostics, and writing
it back. tests/run_fixture.py runs what this module describes; tools/golden.py uses the
same expansion. Plain Python 3 standard library.
"""

import json
import os
import re

FORMAT = "fusecheck.expect/1"
SCHEMA_PATH = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                           "schemas", "fixture-expect.schema.json")

VERDICTS = {"clean": 0, "findings": 1, "bad-input": 2, "not-decided": 5}
VERDICT_OF_EXIT = {v: k for k, v in VERDICTS.items()}
FRONTENDS = ("python", "direct", "cpp")
EXECUTORS = ("fec", "mde", "mde-fec", "hostir")
# Keys of an outcome (what one invocation must give), in the order they are written.
OUTCOME_KEYS = ("comment", "verdict", "exit", "fixed_by", "max_seconds", "max_rss_mb", "numerics",
                "output_contains", "diagnostics")
RUN_KEYS = ("comment", "args", "format") + OUTCOME_KEYS[1:] + ("points",)
DIAG_KEYS = ("code", "pointer", "line", "col", "message_contains", "notes_contain", "comment")
LOCATION_KEYS = ("pointer", "line", "col")


class FixtureError(Exception):
    pass


# ---------------------------------------------------------------------------
# Schema validation. The runner checks each sidecar against
# schemas/fixture-expect.schema.json with the small validator below, which knows the
# JSON Schema keywords that schema uses and refuses any other (so the schema cannot say
# more than the runner checks). tests/fixture_runner_test.py checks that python3-jsonschema
# agrees with it on every sidecar.

_ANNOTATIONS = {"$schema", "$id", "$defs", "$comment", "title", "description", "default", "examples"}
_TYPES = {
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
    "string": lambda v: isinstance(v, str),
    "integer": lambda v: isinstance(v, int) and not isinstance(v, bool)
    or isinstance(v, float) and v.is_integer(),
    "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
    "boolean": lambda v: isinstance(v, bool),
    "null": lambda v: v is None,
}


def _json_equal(a, b):
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    return a == b


class SchemaValidator:
    """Validates instances against one JSON Schema (2020-12, the subset below)."""

    def __init__(self, schema):
        self.root = schema

    def errors(self, instance):
        out = []
        self._check(self.root, instance, "", out)
        return out

    def _resolve(self, ref):
        if not ref.startswith("#/"):
            raise FixtureError(f"schema: unsupported $ref {ref}")
        node = self.root
        for part in ref[2:].split("/"):
            node = node[part]
        return node

    def _check(self, s, v, where, out):
        if s is True:
            return
        if s is False:
            out.append(f"{where or '/'}: not allowed")
            return
        unknown = set(s) - _ANNOTATIONS - set(_KEYWORDS)
        if unknown:
            raise FixtureError(f"schema: keyword(s) the runner does not implement: {sorted(unknown)}")
        for k in s:
            if k in _KEYWORDS:
                _KEYWORDS[k](self, s, v, where, out)


def _kw_ref(self, s, v, where, out):
    self._check(self._resolve(s["$ref"]), v, where, out)


def _kw_type(self, s, v, where, out):
    types = s["type"] if isinstance(s["type"], list) else [s["type"]]
    if not any(_TYPES[t](v) for t in types):
        out.append(f"{where or '/'}: expected {' or '.join(types)}, found {json.dumps(v)[:60]}")


def _kw_enum(self, s, v, where, out):
    if not any(_json_equal(v, e) for e in s["enum"]):
        out.append(f"{where or '/'}: {json.dumps(v)[:60]} is not one of {', '.join(json.dumps(e) for e in s['enum'])}")


def _kw_const(self, s, v, where, out):
    if not _json_equal(v, s["const"]):
        out.append(f"{where or '/'}: expected {json.dumps(s['const'])}, found {json.dumps(v)[:60]}")


def _kw_required(self, s, v, where, out):
    if isinstance(v, dict):
        for k in s["required"]:
            if k not in v:
                out.append(f"{where or '/'}: missing key \"{k}\"")


def _kw_properties(self, s, v, where, out):
    if isinstance(v, dict):
        for k, sub in s["properties"].items():
            if k in v:
                self._check(sub, v[k], f"{where}/{k}", out)


def _kw_additional(self, s, v, where, out):
    if isinstance(v, dict):
        known = set(s.get("properties", {}))
        for k in v:
            if k not in known:
                if s["additionalProperties"] is False:
                    allowed = ", ".join(sorted(known))
                    out.append(f"{where or '/'}: unknown key \"{k}\" (allowed: {allowed})")
                else:
                    self._check(s["additionalProperties"], v[k], f"{where}/{k}", out)


def _kw_property_names(self, s, v, where, out):
    if isinstance(v, dict):
        for k in v:
            self._check(s["propertyNames"], k, f"{where}/{k} (key)", out)


def _kw_items(self, s, v, where, out):
    if isinstance(v, list):
        for i, item in enumerate(v):
            self._check(s["items"], item, f"{where}/{i}", out)


def _kw_min_items(self, s, v, where, out):
    if isinstance(v, list) and len(v) < s["minItems"]:
        out.append(f"{where or '/'}: needs at least {s['minItems']} item(s)")


def _kw_min_properties(self, s, v, where, out):
    if isinstance(v, dict) and len(v) < s["minProperties"]:
        out.append(f"{where or '/'}: needs at least {s['minProperties']} key(s)")


def _kw_min_length(self, s, v, where, out):
    if isinstance(v, str) and len(v) < s["minLength"]:
        out.append(f"{where or '/'}: needs at least {s['minLength']} character(s)")


def _kw_pattern(self, s, v, where, out):
    if isinstance(v, str) and not re.search(s["pattern"], v):
        form = s.get("description", s["pattern"])
        out.append(f"{where or '/'}: {json.dumps(v)} does not have the form {form}")


def _number(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _kw_minimum(self, s, v, where, out):
    if _number(v) and v < s["minimum"]:
        out.append(f"{where or '/'}: {v} is below {s['minimum']}")


def _kw_maximum(self, s, v, where, out):
    if _number(v) and v > s["maximum"]:
        out.append(f"{where or '/'}: {v} is above {s['maximum']}")


def _kw_exclusive_minimum(self, s, v, where, out):
    if _number(v) and v <= s["exclusiveMinimum"]:
        out.append(f"{where or '/'}: {v} must be above {s['exclusiveMinimum']}")


def _kw_not(self, s, v, where, out):
    sub = []
    self._check(s["not"], v, where, sub)
    if not sub:
        if set(s["not"]) == {"required"}:
            out.append(f"{where or '/'}: has {' and '.join(s['not']['required'])}; give only one")
        else:
            out.append(f"{where or '/'}: must not match {json.dumps(s['not'])}")


_KEYWORDS = {
    "$ref": _kw_ref, "type": _kw_type, "enum": _kw_enum, "const": _kw_const, "required": _kw_required,
    "properties": _kw_properties, "additionalProperties": _kw_additional,
    "propertyNames": _kw_property_names, "items": _kw_items, "minItems": _kw_min_items,
    "minProperties": _kw_min_properties, "minLength": _kw_min_length, "pattern": _kw_pattern,
    "minimum": _kw_minimum, "maximum": _kw_maximum, "exclusiveMinimum": _kw_exclusive_minimum,
    "not": _kw_not,
}

_validator = None


def schema_validator():
    global _validator
    if _validator is None:
        with open(SCHEMA_PATH, encoding="utf-8") as f:
            _validator = SchemaValidator(json.load(f))
    return _validator


# ---------------------------------------------------------------------------
# Loading.

def sidecar_path(path):
    """X.expect.json for X.expect.json or for a repro X.json / X.py / X.txt."""
    if path.endswith(".expect.json"):
        return path
    base, ext = os.path.splitext(path)
    if ext in (".json", ".py", ".txt"):
        return base + ".expect.json"
    raise FixtureError(f"{path}: expected an X.expect.json sidecar or a repro X.json, X.py, X.txt")


def read_json(path):
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        raise FixtureError(f"{path}: cannot read sidecar: {e}")


def validate(path, data):
    """Raises FixtureError listing every way data breaks the schema or the format's rules."""
    problems = schema_validator().errors(data)
    if not problems:
        for i, run in enumerate(data["runs"]):
            problems += [f"/runs/{i}: {p}" for p in _run_rules(run)]
    if problems:
        raise FixtureError(f"{path}: not a valid {FORMAT} sidecar (schemas/fixture-expect.schema.json):\n"
                           + "\n".join("  " + p for p in problems))


def load(path):
    data = read_json(path)
    if isinstance(data, dict) and "format" not in data and "runs" in data:
        raise FixtureError(f'{path}: no "format": "{FORMAT}": a sidecar of the earlier format; '
                           "`tests/run_fixture.py --update` rewrites it")
    validate(path, data)
    return data


def _run_rules(run):
    """The rules the schema does not say: point specs, where keys may go."""
    problems = []
    points = run.get("points")
    if points is not None:
        seen = set()
        for key in points:
            try:
                specs = parse_point_key(key)
            except FixtureError as e:
                problems.append(str(e))
                continue
            for spec in specs:
                if spec in seen:
                    problems.append(f'points: "{format_spec(spec)}" appears twice')
                seen.add(spec)
        flags = {"--nvfuser", "--frontend", "--executor"} & set(run["args"])
        if flags:
            problems.append(f"args give {', '.join(sorted(flags))} and the run has points: the points set them")
        outcomes = [merged_outcome(run, points[k]) for k in points]
    else:
        outcomes = [merged_outcome(run, {})]
    for o in outcomes:
        if "fixed_by" in o:
            if o.get("verdict") != "findings":
                problems.append('fixed_by needs "verdict": "findings" (the findings that PR fixes)')
            if run["args"][0] != "check":
                problems.append("fixed_by is checked with `check --matrix --expect-fixed-by`: only on check runs")
            if points is None:
                problems.append("fixed_by belongs to a point (the profile whose findings the PR fixes)")
    if run.get("format", "json") == "text":
        if any("diagnostics" in o for o in outcomes):
            problems.append('a text run has no "diagnostics" (use output_contains, or a JSON run)')
    return problems


# ---------------------------------------------------------------------------
# Points.

_POINT_RE = re.compile(r"^[0-9A-Za-z][0-9A-Za-z._+~-]*$")


def parse_point_key(key):
    """'2024-07, head' -> [('2024-07', None, None), ('head', None, None)];
    '2024-06-30 cpp mde-fec' -> [('2024-06-30', 'cpp', 'mde-fec')]."""
    specs = []
    for part in key.split(","):
        words = part.split()
        if not words:
            raise FixtureError(f'points: "{key}" has an empty spec')
        point, frontend, executor = words[0], None, None
        if not _POINT_RE.match(point) or point in FRONTENDS or point in EXECUTORS:
            raise FixtureError(f'points: "{part.strip()}" does not start with an nvFuser point '
                               "(a date, commit, version or alias)")
        for w in words[1:]:
            if w in FRONTENDS and frontend is None and executor is None:
                frontend = w
            elif w in EXECUTORS and executor is None:
                executor = w
            else:
                raise FixtureError(f'points: "{part.strip()}": "{w}" is not a frontend '
                                   f"({'|'.join(FRONTENDS)}) or executor ({'|'.join(EXECUTORS)}) in that place")
        specs.append((point, frontend, executor))
    return specs


def format_spec(spec):
    return " ".join(w for w in spec if w)


def point_flags(spec):
    point, frontend, executor = spec
    flags = ["--nvfuser", point]
    if frontend:
        flags += ["--frontend", frontend]
    if executor:
        flags += ["--executor", executor]
    return flags


def merged_outcome(run, point_outcome):
    """The outcome one invocation must give: the run's keys, replaced by the point's own
    (a point's verdict or exit replaces both of the run's)."""
    out = {k: run[k] for k in OUTCOME_KEYS if k in run and k != "comment"}
    if "verdict" in point_outcome or "exit" in point_outcome:
        out.pop("verdict", None)
        out.pop("exit", None)
    out.update(point_outcome)
    return out


class Invocation:
    """One CLI invocation a sidecar asks for."""

    def __init__(self, run_index, kind, args, fmt, outcome, spec=None, fixed_by=None):
        self.run_index = run_index
        self.kind = kind  # "run" or "fixed_by"
        self.args = args
        self.fmt = fmt
        self.outcome = outcome
        self.spec = spec
        self.fixed_by = fixed_by

    def label(self):
        at = f" at {format_spec(self.spec)}" if self.spec else ""
        what = "fixed_by check" if self.kind == "fixed_by" else "run"
        return f"{what} {self.run_index}{at}"

    def command(self, input_name):
        return [str(a) for a in self.args] + [input_name, "--format", self.fmt]


def expand(data):
    """The invocations of a sidecar, in order: each run (one per point spec when it has
    points), then one `check --matrix --expect-fixed-by N` per distinct fixed_by."""
    invs, fixed = [], []
    for i, run in enumerate(data["runs"]):
        fmt = run.get("format", "json")
        args = list(run["args"])
        if "points" not in run:
            invs.append(Invocation(i, "run", args, fmt, merged_outcome(run, {})))
            continue
        for key, po in run["points"].items():
            outcome = merged_outcome(run, po)
            for spec in parse_point_key(key):
                invs.append(Invocation(i, "run", args[:1] + point_flags(spec) + args[1:], fmt, outcome, spec))
                if "fixed_by" in outcome:
                    profile = point_flags(spec)
                    fargs = args[:1] + ["--matrix", "--expect-fixed-by", str(outcome["fixed_by"])] + profile + args[1:]
                    if all(f.args != fargs for f in fixed):
                        fixed.append(Invocation(i, "fixed_by", fargs, "json", {"exit": 0}, spec, outcome["fixed_by"]))
    return invs + fixed


# ---------------------------------------------------------------------------
# Diagnostics.

def actual_diagnostics(doc):
    """The diagnostics of a JSON output, as dicts with code, pointer, line, col, message, notes."""
    diags = doc.get("diagnostics") if isinstance(doc, dict) else None
    if not isinstance(diags, list):
        raise FixtureError('the output has no "diagnostics" array')
    out = []
    for d in diags:
        if not isinstance(d, dict):
            raise FixtureError("a diagnostic is not an object")
        loc = d.get("location") or {}
        notes = []
        for n in d.get("notes") or []:
            kind, msg = n.get("kind", "note"), n.get("message", "")
            notes.append(f"{kind}: {msg}")
        out.append({"code": d.get("code"), "pointer": loc.get("pointer"), "line": loc.get("line"),
                    "col": loc.get("col"), "message": d.get("message", ""), "notes": notes})
    return out


def location_matches(e, a):
    return e["code"] == a["code"] and all(e[k] == a[k] for k in LOCATION_KEYS if k in e)


def words_problems(e, a):
    """How actual diagnostic a fails expected e's words (empty: it does not)."""
    problems = []
    if "message_contains" in e and e["message_contains"] not in a["message"]:
        problems.append(f"its message {json.dumps(a['message'])} does not contain "
                        f"{json.dumps(e['message_contains'])}")
    for s in e.get("notes_contain", []):
        if not any(s in n for n in a["notes"]):
            problems.append(f"no note contains {json.dumps(s)}")
    return problems


def diag_matches(e, a):
    return location_matches(e, a) and not words_problems(e, a)


def match(expected, actual, ok=diag_matches):
    """Maximum matching of expected to actual diagnostics (augmenting paths): returns
    pairs {expected index: actual index}."""
    owner = {}  # actual index -> expected index

    def assign(ei, seen):
        for ai, a in enumerate(actual):
            if ai in seen or not ok(expected[ei], a):
                continue
            seen.add(ai)
            if ai not in owner or assign(owner[ai], seen):
                owner[ai] = ei
                return True
        return False

    for ei in range(len(expected)):
        assign(ei, set())
    return {ei: ai for ai, ei in owner.items()}


def describe(d, words=True):
    where = d.get("pointer")
    where = "(no pointer)" if where is None else (where or "(document)")
    if "line" in d or "col" in d:
        line, col = d.get("line"), d.get("col")
        where += f" {line if line is not None else '?'}:{col if col is not None else '?'}"
    text = d.get("message", d.get("message_contains"))
    return f"{d['code']} {where}" + (f" {json.dumps(text)}" if words and text is not None else "")


def compare_diagnostics(expected, actual):
    """Problems (strings) between expected and actual diagnostics, both ways."""
    pairs = match(expected, actual)
    free_e = [i for i in range(len(expected)) if i not in pairs]
    free_a = [i for i in range(len(actual)) if i not in pairs.values()]
    problems = []
    # A diagnostic at the expected place whose words differ: say how, once.
    near = match([expected[i] for i in free_e], [actual[i] for i in free_a], ok=location_matches)
    for ne, na in sorted(near.items()):
        e, a = expected[free_e[ne]], actual[free_a[na]]
        problems.append(f"diagnostic {describe(e, words=False)}: {'; '.join(words_problems(e, a))}")
    near_e = {free_e[i] for i in near}
    near_a = {free_a[i] for i in near.values()}
    for i in free_e:
        if i not in near_e:
            problems.append(f"missing diagnostic    {describe(expected[i])}")
    for i in free_a:
        if i not in near_a:
            problems.append(f"unexpected diagnostic {describe(actual[i])}")
    return problems


_PLACE = re.compile(r"^(segment|expr) \d+ \([^()]*\) ")
_ASIDE = re.compile(r" \([^()]*\)$")
_NAMED = re.compile(r"(segment|expr) \d+$")  # "expr 7 (set)": a name, not an aside
MAX_WORDS = 100


def distinctive(message):
    """The part of a message a fixture checks: what it says, without the place it names
    first ("segment 2 (compute: ...) ", "expr 0 (relu -> T1) ": the pointer checks the
    place) and without trailing parenthesized asides; when that is still longer than
    MAX_WORDS characters, its last ": " clause, or its last stretch outside
    parentheses, or its first MAX_WORDS characters up to a space."""
    text = message
    m = _PLACE.match(text)
    if m and len(text) - m.end() >= 12:
        text = text[m.end():]
    while True:
        m = _ASIDE.search(text)
        if not m or m.start() < 16 or _NAMED.search(text[: m.start()]):
            break
        text = text[: m.start()]
    if len(text) > MAX_WORDS:
        clause = text.rsplit(": ", 1)[-1]
        spans = [s.strip() for s in re.split(r"\([^()]*\)", text) if 20 <= len(s.strip()) <= MAX_WORDS]
        if 20 <= len(clause) <= MAX_WORDS:
            text = clause
        elif spans:
            text = spans[-1]
        else:
            cut = text.rfind(" ", 0, MAX_WORDS)
            text = text[: cut if cut >= MAX_WORDS // 2 else MAX_WORDS]
    return text.strip() or message


# ---------------------------------------------------------------------------
# Recording (--update).

def recorded_diagnostics(old, actual):
    """The expected diagnostics for actual ones, keeping what old expectations wrote by hand:
    omitted location keys, message_contains and notes_contain that still match, comments."""
    pairs = match(old, actual)
    rest_e = [i for i in range(len(old)) if i not in pairs]
    rest_a = [i for i in range(len(actual)) if i not in pairs.values()]
    for ne, na in match([old[i] for i in rest_e], [actual[i] for i in rest_a], ok=location_matches).items():
        pairs[rest_e[ne]] = rest_a[na]
    by_actual = {ai: old[ei] for ei, ai in pairs.items()}
    out, notes = [], []
    for ai, a in enumerate(actual):
        e = by_actual.get(ai, {})
        d = {"code": a["code"]}
        for k in LOCATION_KEYS:
            if k in e or not e:
                d[k] = a[k]
        if e.get("message_contains") and e["message_contains"] in a["message"]:
            d["message_contains"] = e["message_contains"]
        else:
            d["message_contains"] = distinctive(a["message"])
            if e.get("message_contains"):
                notes.append(f"{a['code']}: message_contains {json.dumps(e['message_contains'])} "
                             f"-> {json.dumps(d['message_contains'])}")
        kept = [s for s in e.get("notes_contain", []) if any(s in n for n in a["notes"])]
        for s in e.get("notes_contain", []):
            if s not in kept:
                notes.append(f"{a['code']}: dropped notes_contain {json.dumps(s)} (no note has it now)")
        if kept:
            d["notes_contain"] = kept
        if "comment" in e:
            d["comment"] = e["comment"]
        out.append(d)
    for ei, e in enumerate(old):
        if ei not in pairs:
            notes.append(f"dropped expected diagnostic {describe(e)} (the CLI no longer reports it)")
    return out, notes


RECORDED = ("verdict", "exit", "diagnostics")


def record(own, merged, rc, actual, output):
    """own (the keys an outcome writes itself) updated from what the CLI did: the verdict
    (or exit), and for JSON runs the diagnostics; merged is the outcome that was checked.
    Returns (new own outcome, notes for the reviewer)."""
    new = {k: v for k, v in own.items() if k not in RECORDED}
    notes = []
    if rc in VERDICT_OF_EXIT:
        new["verdict"] = VERDICT_OF_EXIT[rc]
    else:
        new["exit"] = rc
    if new.get("verdict") != "findings" and "fixed_by" in new:
        notes.append(f"dropped fixed_by {new.pop('fixed_by')} (the verdict is no longer findings)")
    if actual is not None:
        new["diagnostics"], more = recorded_diagnostics(merged.get("diagnostics", []), actual)
        notes += more
    for s in merged.get("output_contains", []):
        if s not in output:
            notes.append(f"output_contains {json.dumps(s)} is not in the output: edit it by hand")
    return new, notes


def regroup_points(spec_outcomes):
    """[(spec, outcome)] -> points map; specs with equal outcomes share one key."""
    groups = []
    for spec, outcome in spec_outcomes:
        for g in groups:
            if g[1] == outcome:
                g[0].append(spec)
                break
        else:
            groups.append(([spec], outcome))
    return {", ".join(format_spec(s) for s in specs): o for specs, o in groups}


# ---------------------------------------------------------------------------
# The earlier format (no "format" key; "exit", "stdout_contains", the point in args).

def migrate(data):
    """A sidecar of the earlier format in this one: stdout_contains -> output_contains,
    exit -> verdict, and adjacent runs that differ only in `--nvfuser P` (given right after
    the subcommand) -> one run with points."""
    runs = []
    for run in data["runs"]:
        run = dict(run)
        if "stdout_contains" in run:
            run["output_contains"] = run.pop("stdout_contains")
        if run.get("exit") in VERDICT_OF_EXIT:
            run["verdict"] = VERDICT_OF_EXIT[run.pop("exit")]
        args = run["args"]
        if len(args) >= 3 and args[1] == "--nvfuser" and "--nvfuser" not in args[3:]:
            point, base = args[2], [args[0]] + args[3:]
            outcome = {k: run.pop(k) for k in list(run) if k in OUTCOME_KEYS
                       and k not in ("comment", "max_seconds", "max_rss_mb")}
            run["args"] = base
            prev = runs[-1] if runs else None
            same = prev is not None and "points" in prev and all(
                prev.get(k) == run.get(k) for k in ("args", "format", "max_seconds", "max_rss_mb"))
            if same and point not in [s[0] for key in prev["points"] for s in parse_point_key(key)]:
                prev["points"][point] = outcome
                continue
            run["points"] = {point: outcome}
        runs.append(run)
    out = {"format": FORMAT}
    out.update({k: v for k, v in data.items() if k not in ("format", "runs")})
    out["runs"] = runs
    return out


# ---------------------------------------------------------------------------
# Writing: canonical key order; one diagnostic per line, so review diffs stay small.

WIDTH = 100


def _ordered(obj, order):
    return {k: obj[k] for k in order if k in obj} | {k: v for k, v in obj.items() if k not in order}


def _inline(v):
    return json.dumps(v, ensure_ascii=False)


def _outcome_lines(o, indent, head):
    """The lines of an outcome written after head (a point key) at indent."""
    o = _ordered(o, OUTCOME_KEYS)
    one = _inline(o)
    if not o.get("diagnostics") and len(head) + len(one) <= WIDTH:
        return [head + one]
    lines = [head + "{"]
    _members(o, indent + 2, lines)
    lines.append(" " * indent + "}")
    return lines


def _members(obj, indent, lines):
    pad = " " * indent
    items = list(obj.items())
    for j, (k, v) in enumerate(items):
        comma = "," if j + 1 < len(items) else ""
        head = f"{pad}{_inline(k)}: "
        if k == "diagnostics" and v:
            lines.append(head + "[")
            for n, d in enumerate(v):
                dc = "," if n + 1 < len(v) else ""
                lines.append(pad + "  " + _inline(_ordered(d, DIAG_KEYS)) + dc)
            lines.append(pad + "]" + comma)
        elif k == "points":
            lines.append(head + "{")
            keys = list(v)
            for n, pk in enumerate(keys):
                body = _outcome_lines(v[pk], indent + 2, f"{pad}  {_inline(pk)}: ")
                body[-1] += "," if n + 1 < len(keys) else ""
                lines.extend(body)
            lines.append(pad + "}" + comma)
        elif k != "args" and isinstance(v, list) and v and len(head) + len(_inline(v)) > WIDTH:
            lines.append(head + "[")
            for n, s in enumerate(v):
                lines.append(pad + "  " + _inline(s) + ("," if n + 1 < len(v) else ""))
            lines.append(pad + "]" + comma)
        else:
            lines.append(head + _inline(v) + comma)


def dump(data):
    top = _ordered(data, ("$schema", "format", "comment", "input", "runs"))
    lines = ["{"]
    items = list(top.items())
    for j, (k, v) in enumerate(items):
        comma = "," if j + 1 < len(items) else ""
        if k == "runs":
            lines.append('  "runs": [')
            for i, run in enumerate(v):
                lines.append("    {")
                _members(_ordered(run, RUN_KEYS), 6, lines)
                lines.append("    }" + ("," if i + 1 < len(v) else ""))
            lines.append("  ]" + comma)
        else:
            lines.append(f"  {_inline(k)}: {_inline(v)}{comma}")
    lines.append("}")
    return "\n".join(lines) + "\n"
