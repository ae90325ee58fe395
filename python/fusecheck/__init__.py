"""fusecheck from Python: load an nvFuser repro, check it against an nvFuser era, fix it, run it.

    import fusecheck
    repro = fusecheck.load("seed.json")          # a path, or the text of a repro
    verdict = repro.check(nvfuser="2024-06")      # diagnostics as objects
    if not verdict:
        print(verdict)                            # rendered like the CLI
    fixed = repro.fix()                           # the repaired repro
    outs = fixed.run(inputs=[x, w, b])            # numpy arrays in, numpy arrays out

The compiled part (`fusecheck._core`) is built by CMake for /usr/bin/python3. The pure-Python
parts (`fusecheck.tensors`, `fusecheck.oracle`, `fusecheck.differential`) import without it, so
the torch oracle also runs where only the CLI is built (the GPU machine).
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any, Dict, List, Mapping, Optional, Sequence, Union

__all__ = [
    "load",
    "Repro",
    "Verdict",
    "RunResult",
    "Diagnostic",
    "Location",
    "Note",
    "LoadError",
    "FusecheckUnavailable",
]

try:
    from . import _core  # type: ignore[attr-defined]

    _core_error: Optional[BaseException] = None
except ImportError as e:  # the module is not built for this interpreter
    _core = None
    _core_error = e


class FusecheckUnavailable(ImportError):
    """The compiled module fusecheck._core is not available in this interpreter."""


def _need_core() -> Any:
    if _core is None:
        raise FusecheckUnavailable(
            "fusecheck._core is not built for this Python (it is built by CMake for /usr/bin/python3 "
            f"when pybind11-dev is installed): {_core_error}"
        )
    return _core


@dataclass(frozen=True)
class Location:
    file: str = ""
    line: int = 0
    col: int = 0
    pointer: str = ""

    def __str__(self) -> str:
        s = self.file
        if self.line:
            s += f":{self.line}:{self.col}"
        elif self.pointer:
            s += f" ({self.pointer})"
        return s


@dataclass(frozen=True)
class Note:
    kind: str
    message: str
    location: Location = field(default_factory=Location)


@dataclass(frozen=True)
class Diagnostic:
    """One finding: `code` ("FC0301"), `slug`, `severity` ("error", ...), `message`, `location`, `notes`."""

    code: str
    slug: str
    severity: str
    message: str
    location: Location
    notes: List[Note]

    @property
    def is_error(self) -> bool:
        return self.severity == "error"

    def __str__(self) -> str:
        head = f"{self.location}: " if str(self.location) else ""
        lines = [f"{head}{self.severity}: {self.message} [{self.code}]"]
        lines += [f"  {n.kind}: {n.message}" for n in self.notes]
        return "\n".join(lines)


def _loc(d: Mapping[str, Any]) -> Location:
    return Location(d["file"], d["line"], d["col"], d["pointer"])


def _diags(ds: Sequence[Mapping[str, Any]]) -> List[Diagnostic]:
    return [
        Diagnostic(
            d["code"],
            d["slug"],
            d["severity"],
            d["message"],
            _loc(d["location"]),
            [Note(n["kind"], n["message"], _loc(n["location"])) for n in d["notes"]],
        )
        for d in ds
    ]


class LoadError(ValueError):
    """The repro does not read or verify; `.diagnostics` says why."""

    def __init__(self, diagnostics: List[Diagnostic], text: str):
        super().__init__(text.strip() or "the repro does not load")
        self.diagnostics = diagnostics


@dataclass
class Verdict:
    """The outcome of `Repro.check`: true when the era replays the fusion without an error."""

    exit_code: int
    era: str
    segments: int
    diagnostics: List[Diagnostic]
    text: str

    @property
    def ok(self) -> bool:
        return self.exit_code == 0

    def __bool__(self) -> bool:
        return self.ok

    @property
    def errors(self) -> List[Diagnostic]:
        return [d for d in self.diagnostics if d.is_error]

    def __str__(self) -> str:
        head = f"check: nvFuser {self.era}, {self.segments} segments, exit {self.exit_code}"
        return head + ("\n" + self.text.rstrip() if self.text.strip() else "")


class RunResult(list):
    """The outputs of `Repro.run` (a list, by output position) with the run's verdict.

    `names`, `dtypes` (fusecheck's), `passed`, `exit_code`, `diagnostics`, `comparisons` (per output:
    max_abs, max_rel, mismatches, rtol, atol), `seed`, `era`.
    """

    names: List[str]
    dtypes: List[str]
    passed: bool
    exit_code: int
    diagnostics: List[Diagnostic]
    comparisons: List[Dict[str, Any]]
    seed: int
    era: str
    text: str


# numpy holds Half, Float, Double, Bool and the integers exactly; BFloat16 and fp8 go through
# float32 (exact: every value of theirs is a float32).
_NUMPY_OF = {
    "Bool": "bool",
    "Int32": "int32",
    "Int": "int64",
    "Index": "int64",
    "Half": "float16",
    "BFloat16": "float32",
    "Float": "float32",
    "Double": "float64",
    "Float8_e4m3fn": "float32",
    "Float8_e5m2": "float32",
}
_TORCH_OF = {
    "Bool": "bool",
    "Int32": "int32",
    "Int": "int64",
    "Index": "int64",
    "Half": "float16",
    "BFloat16": "bfloat16",
    "Float": "float32",
    "Double": "float64",
    "Float8_e4m3fn": "float8_e4m3fn",
    "Float8_e5m2": "float8_e5m2",
}
_DTYPE_OF_NUMPY = {
    "bool": "Bool",
    "int32": "Int32",
    "int64": "Int",
    "float16": "Half",
    "float32": "Float",
    "float64": "Double",
}
_DTYPE_OF_TORCH = {
    "torch.bool": "Bool",
    "torch.int32": "Int32",
    "torch.int64": "Int",
    "torch.float16": "Half",
    "torch.bfloat16": "BFloat16",
    "torch.float32": "Float",
    "torch.float64": "Double",
    "torch.float8_e4m3fn": "Float8_e4m3fn",
    "torch.float8_e5m2": "Float8_e5m2",
}


def _is_torch(x: Any) -> bool:
    return type(x).__module__.startswith("torch") and hasattr(x, "detach")


def _to_numpy(x: Any) -> "tuple[Any, str]":
    """(a numpy array holding x's values exactly, fusecheck dtype name)."""
    import numpy as np

    if _is_torch(x):
        t = x.detach().cpu()
        name = _DTYPE_OF_TORCH.get(str(t.dtype))
        if name is None:
            raise TypeError(f"fusecheck does not take torch dtype {t.dtype}")
        if name in ("BFloat16", "Float8_e4m3fn", "Float8_e5m2"):
            import torch

            t = t.to(torch.float32)
        return t.numpy(), name
    a = np.asarray(x)
    name = _DTYPE_OF_NUMPY.get(str(a.dtype))
    if name is None:
        raise TypeError(
            f"fusecheck does not take numpy dtype {a.dtype} (bool, int32, int64, float16, float32, float64; "
            "bfloat16 and fp8 as torch tensors)"
        )
    return a, name


def _from_values(values: Any, dtype: str, want_torch: bool) -> Any:
    import numpy as np

    if want_torch:
        import torch

        tdt = getattr(torch, _TORCH_OF[dtype], None)
        if tdt is None:  # fp8 before torch 2.1
            return torch.from_numpy(values.astype(np.float32))
        return torch.from_numpy(np.array(values, copy=True, order="C")).to(tdt)
    return np.array(values.astype(_NUMPY_OF[dtype], copy=True, order="C"))


class Repro:
    """A loaded, verified repro (see `load`)."""

    def __init__(self, core_repro: Any):
        self._r = core_repro

    @property
    def name(self) -> str:
        return self._r.name

    @property
    def path(self) -> str:
        return self._r.path

    @property
    def era(self) -> Optional[str]:
        return self._r.era

    @property
    def inputs(self) -> List[str]:
        return list(self._r.inputs)

    @property
    def input_dtypes(self) -> List[str]:
        return list(self._r.input_dtypes)

    @property
    def outputs(self) -> List[str]:
        return list(self._r.outputs)

    @property
    def fix_actions(self) -> List[str]:
        """What `fix()` changed, one line per action (empty for a repro that was not fixed)."""
        return list(self._r.fix_actions)

    def to_json(self) -> str:
        """The repro in fusecheck's JSON format (`fusecheck.fusion/2`, or `/1` without origin)."""
        return self._r.to_json()

    def check(self, nvfuser: Optional[str] = None, bind: Optional[Mapping[str, int]] = None) -> Verdict:
        """Replays segmentation and concretization as nvFuser ran them at the point `nvfuser`
        (a date such as "2024-06-30", a commit of nvFuser's main, a version, or "head",
        "2024-06", "2024-07"; default: the repro's own point, else head), on the path the
        repro records. `exit_code` 5 means the model does not decide the fusion there."""
        d = self._r.check(nvfuser, dict(bind or {}))
        return Verdict(d["exit_code"], d.get("era", nvfuser or ""), d.get("segments", 0), _diags(d["diagnostics"]), d["text"])

    def fix(self, nvfuser: Optional[str] = None, kind: str = "auto") -> "Repro":
        """The repro with fusecheck's fixes applied to a fixpoint (`fix_actions` lists them; a fix whose
        obligation does not hold is an FC0401 diagnostic in `refusals`). Raises ValueError for an
        unknown `kind` or era."""
        r, refusals, actions = self._r.fix(nvfuser, kind)
        if r is None:
            raise ValueError("\n".join(str(d) for d in _diags(refusals)))
        out = Repro(r)
        out.refusals = _diags(refusals)  # type: ignore[attr-defined]
        return out

    def run(
        self,
        inputs: Optional[Sequence[Any]] = None,
        device: str = "cpu",
        nvfuser: Optional[str] = None,
        fix: bool = False,
        seed: Optional[int] = None,
        reference: str = "exact",
        bind: Optional[Mapping[str, int]] = None,
        rtol: Optional[float] = None,
        atol: Optional[float] = None,
        output: Optional[str] = None,
    ) -> RunResult:
        """Executes the segmented program (as `fusecheck run`) and returns its outputs.

        `inputs`: numpy arrays or torch tensors, one per fusion input (or per tensor input), by
        position, or a dict by input name; None: fusecheck's generated inputs. The outputs are
        numpy arrays, or torch tensors when the inputs were torch tensors or `output="torch"`.
        """
        core = None
        want_torch = output == "torch"
        if inputs is not None:
            items = list(inputs.items()) if isinstance(inputs, Mapping) else [("", x) for x in inputs]
            core = []
            for name, x in items:
                want_torch = want_torch or (output is None and _is_torch(x))
                values, dt = _to_numpy(x)
                core.append((name, values, dt))
            if not isinstance(inputs, Mapping):  # positional: names that match nothing
                core = [(f"#{i}", v, dt) for i, (_, v, dt) in enumerate(core)]
        d = self._r.run(core, device, nvfuser, fix, seed, reference, dict(bind or {}), rtol, atol)
        res = RunResult(_from_values(v, dt, want_torch) for _, dt, v in d.get("outputs", []))
        res.names = [n for n, _, _ in d.get("outputs", [])]
        res.dtypes = [dt for _, dt, _ in d.get("outputs", [])]
        res.passed = d.get("passed", False)
        res.exit_code = d["exit_code"]
        res.diagnostics = _diags(d["diagnostics"])
        res.comparisons = list(d.get("comparisons", []))
        res.seed = d.get("seed", 0)
        res.era = d.get("era", "")
        res.text = d["text"]
        return res

    def __repr__(self) -> str:
        return f"<fusecheck.Repro {self.name or self.path!r}: {len(self.inputs)} inputs, {len(self.outputs)} outputs>"


def load(path_or_text: Union[str, "os.PathLike[str]"]) -> Repro:
    """Loads a repro from a file or from its text: fusecheck's JSON, an nvFuser Python repro, printed
    IR, or a segmented-fusion dump. Raises LoadError (with `.diagnostics`) when it does not load or
    verify."""
    core = _need_core()
    if isinstance(path_or_text, os.PathLike):
        r, diags, text = core.load("", os.fspath(path_or_text), True)
    elif "\n" not in path_or_text and not path_or_text.lstrip().startswith("{") and os.path.exists(path_or_text):
        r, diags, text = core.load("", path_or_text, True)
    else:
        r, diags, text = core.load(path_or_text, "<text>", False)
    if r is None:
        raise LoadError(_diags(diags), text)
    return Repro(r)
