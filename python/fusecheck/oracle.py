"""PyTorch as an independent oracle for fusecheck's executor.

This module interprets a fusion in fusecheck's JSON format (`fusecheck.fusion/2` or `/1`, docs/format.md)
with torch ops. It shares no code with the C++ executor (src/exec/): the format is read with `json`,
scalar expressions with a parser of its own, and every op is a torch call. It evaluates the
unsegmented fusion on global tensors (meshes and DID axes only shard data; they do not change the
math), every produced tensor rounded to its declared dtype, as nvFuser stores it.

Two arithmetic modes:
- "f64": every floating op computes in float64 and rounds once to the output's dtype (the model of
  fusecheck's faithful reference; differences are then fp64-level only, so tolerances are tight).
- "native": as nvFuser computes: Half, BFloat16, fp8 and Float math in float32 (torch 1.13 on CPU
  has no Half kernels for matmul and most transcendental ops), Double math in float64, rounded to
  the output's dtype.

Rounding to a dtype is nvFuser's: round to nearest even once from the computed value (float64 values
go to Half / BFloat16 through round-to-odd float32, so there is no double rounding), fp8 saturates
to its largest finite value (torch's own fp8 cast does not: e4m3fn gives NaN beyond 464, e5m2 inf),
floats to integers truncate with NaN -> 0 and saturation (the GPU's cvt.rzi), Bool is x != 0.

fp8 tensors need torch's float8 dtypes (torch >= 2.1); with an older torch a fusion that has one is
refused with `OracleSkip` and the reason.
"""
from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Sequence, Tuple, Union

import torch
import torch.nn.functional as F


class OracleError(Exception):
    """The fusion cannot be evaluated (a shape that does not fit an op, a division by zero, ...)."""


class OracleSkip(Exception):
    """This torch cannot evaluate the fusion (fp8 without torch float8 dtypes); the message says why."""


# Every op kind of fusecheck's ops.def, each interpreted below (tests/python checks the two agree).
INTERPRETED_OPS = (
    "set", "segment_set", "cast", "neg", "abs", "exp", "log", "sqrt", "rsqrt", "tanh", "sigmoid", "relu",
    "gelu", "silu", "reciprocal", "sin", "cos", "erf", "floor", "ceil", "logical_not", "add", "sub", "mul",
    "div", "pow", "maximum", "minimum", "eq", "ne", "lt", "le", "gt", "ge", "logical_and", "logical_or",
    "where", "broadcast", "broadcast_in_dim", "expand", "squeeze", "permute", "reshape", "slice", "pad", "cat",
    "sum", "max", "min", "prod", "mean", "var", "var_mean", "welford", "full", "zeros", "ones", "iota", "matmul", "linear",
)

FLOATING = ("Half", "BFloat16", "Float", "Double", "Float8_e4m3fn", "Float8_e5m2")
INTEGRAL = ("Int32", "Int", "Index")
FP8 = ("Float8_e4m3fn", "Float8_e5m2")

EPS = {
    "Half": 2.0**-10,
    "BFloat16": 2.0**-7,
    "Float": 2.0**-23,
    "Double": 2.0**-52,
    "Float8_e4m3fn": 2.0**-3,
    "Float8_e5m2": 2.0**-2,
}
TINY = {
    "Half": 2.0**-24,
    "BFloat16": 2.0**-133,
    "Float": 2.0**-149,
    "Double": 2.0**-1074,
    "Float8_e4m3fn": 2.0**-9,
    "Float8_e5m2": 2.0**-16,
}
MAX_FINITE = {"Float8_e4m3fn": 448.0, "Float8_e5m2": 57344.0}
PRECISION = {"Float8_e5m2": 0, "Float8_e4m3fn": 1, "BFloat16": 2, "Half": 3, "Float": 4, "Double": 5}
INT_RANGE = {"Int32": (-(2**31), 2**31 - 1), "Int": (-(2**63), 2**63 - 1), "Index": (-(2**63), 2**63 - 1)}


def has_fp8() -> bool:
    return hasattr(torch, "float8_e4m3fn") and hasattr(torch, "float8_e5m2")


# ---------------------------------------------------------------- rounding


def _round_to_odd_f32(x: torch.Tensor) -> torch.Tensor:
    """float64 -> float32 rounded to odd: truncate toward zero, set the last bit when inexact."""
    f = x.to(torch.float32)
    away = f.to(torch.float64).abs() > x.abs()
    f = torch.where(away & torch.isfinite(x), torch.nextafter(f, torch.zeros_like(f)), f)
    inexact = (f.to(torch.float64) != x) & ~torch.isnan(x)
    bits = f.view(torch.int32)
    bits = torch.where(inexact, bits | 1, bits)
    return bits.view(torch.float32)


def round_to(x: torch.Tensor, dtype: str, storage: torch.dtype) -> torch.Tensor:
    """The values of x stored in fusion dtype `dtype`, held in `storage` (float64/float32/int64/bool)."""
    if dtype == "Bool":
        return (x != 0) if x.dtype != torch.bool else x
    if dtype in INTEGRAL:
        if x.dtype.is_floating_point:
            lo, hi = INT_RANGE[dtype]
            x = torch.nan_to_num(x.to(torch.float64), nan=0.0).clamp(float(lo), float(hi)).trunc()
            return x.to(torch.int64) if dtype != "Int32" else x.to(torch.int32).to(torch.int64)
        x = x.to(torch.int64)
        if dtype == "Int32":
            x = x.clamp(-(2**31), 2**31 - 1)
        return x
    x = x.to(torch.float64) if not x.dtype.is_floating_point else x
    if dtype == "Double":
        return x.to(storage)
    if dtype == "Float":
        return x.to(torch.float32).to(storage)
    if dtype in FP8:
        m = MAX_FINITE[dtype]
        x = x.clamp(-m, m)  # nvFuser saturates (cvt.rn.satfinite); NaN stays NaN
        tdt = getattr(torch, "float8_e4m3fn" if dtype == "Float8_e4m3fn" else "float8_e5m2")
    else:
        tdt = torch.float16 if dtype == "Half" else torch.bfloat16
    f32 = _round_to_odd_f32(x) if x.dtype == torch.float64 else x.to(torch.float32)
    return f32.to(tdt).to(storage)


# ---------------------------------------------------------------- scalar expressions

_TOKEN = re.compile(
    r"\s*(?:(?P<float>\d+\.\d*(?:[eE][+-]?\d+)?|\d+[eE][+-]?\d+)|(?P<int>\d+)|(?P<name>[A-Za-z_][A-Za-z0-9_]*)|(?P<op>[-+*/%(),]))"
)


def _tokens(text: str) -> List[Tuple[str, str]]:
    out, i = [], 0
    text = text.rstrip()
    while i < len(text):
        m = _TOKEN.match(text, i)
        if not m or m.end() == i:
            raise OracleError(f"cannot parse scalar expression {text!r} at {i}")
        kind = m.lastgroup
        out.append((kind, m.group(kind)))
        i = m.end()
    return out


class _ExprParser:
    def __init__(self, text: str):
        self.t = _tokens(text)
        self.i = 0
        self.text = text

    def peek(self) -> Tuple[str, str]:
        return self.t[self.i] if self.i < len(self.t) else ("end", "")

    def take(self, val: Optional[str] = None) -> Tuple[str, str]:
        tok = self.peek()
        if val is not None and tok[1] != val:
            raise OracleError(f"expected {val!r} in {self.text!r}")
        self.i += 1
        return tok

    def parse(self) -> Any:
        e = self.sum()
        if self.peek()[0] != "end":
            raise OracleError(f"trailing text in {self.text!r}")
        return e

    def sum(self) -> Any:
        e = self.product()
        while self.peek()[1] in ("+", "-") and self.peek()[0] == "op":
            op = self.take()[1]
            e = (op, e, self.product())
        return e

    def product(self) -> Any:
        e = self.unary()
        while self.peek()[1] in ("*", "/", "%") and self.peek()[0] == "op":
            op = self.take()[1]
            e = (op, e, self.unary())
        return e

    def unary(self) -> Any:
        if self.peek() == ("op", "-"):
            self.take()
            nxt = self.peek()
            if nxt[0] in ("int", "float"):
                self.take()
                return ("const", -int(nxt[1]) if nxt[0] == "int" else -float(nxt[1]))
            return ("neg", self.unary())
        return self.primary()

    def primary(self) -> Any:
        kind, val = self.take()
        if kind == "int":
            return ("const", int(val))
        if kind == "float":
            return ("const", float(val))
        if kind == "op" and val == "(":
            e = self.sum()
            self.take(")")
            return e
        if kind == "name":
            if val in ("inf", "nan"):
                return ("const", float(val))
            if val in ("true", "false"):
                return ("const", val == "true")
            if val in ("ceilDiv", "max", "min") and self.peek() == ("op", "("):
                self.take("(")
                a = self.sum()
                self.take(",")
                b = self.sum()
                self.take(")")
                return (val, a, b)
            if val in ("ComplexFloat", "ComplexDouble") and self.peek() == ("op", "("):
                raise OracleError(f"{val} constants are not computed by the oracle (fusecheck run refuses complex dtypes)")
            if (val in FLOATING or val in INTEGRAL or val == "Bool") and self.peek() == ("op", "("):
                # A typed constant, DTYPE(literal) (docs/format.md): its value, as that dtype holds it.
                self.take("(")
                neg = self.peek() == ("op", "-")
                if neg:
                    self.take()
                lk, lv = self.take()
                self.take(")")
                if lk == "name" and lv in ("true", "false"):
                    return ("const", lv == "true")
                x = float(lv) if lk == "float" or lv in ("inf", "nan") or val in FLOATING else int(lv)
                return ("const", -x if neg else x)
            if val == "size" and self.peek() == ("op", "("):
                self.take("(")
                tname = self.take()[1]
                self.take(",")
                d = int(self.take()[1])
                self.take(")")
                return ("size", tname, d)
            return ("name", val)
        raise OracleError(f"unexpected {val!r} in {self.text!r}")


def _trunc_div(a: int, b: int) -> int:
    if b == 0:
        raise OracleError("integer division by zero in a scalar expression")
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


# ---------------------------------------------------------------- the fusion


@dataclass
class Axis:
    iter: str
    parallel: str
    extent: Any
    expanded: Any = None


@dataclass
class TensorDecl:
    name: str
    dtype: str
    logical: List[Axis]
    mesh: Optional[int] = None

    @property
    def materialized(self) -> List[Axis]:
        return [a for a in self.logical if a.iter != "Reduction"]


def _collect_axes(t: Dict[str, Any]) -> Dict[int, Dict[str, Any]]:
    found: Dict[int, Dict[str, Any]] = {}

    def visit(entry: Any) -> None:
        if isinstance(entry, dict) and "id" in entry:
            found[entry["id"]] = entry

    for key in ("root", "logical", "allocation", "loop"):
        for e in t.get(key, []) or []:
            visit(e)
    for tr in t.get("transforms", []) or []:
        for k in ("in", "outer", "inner", "out"):
            if k in tr:
                visit(tr[k])
    return found


class Fusion:
    """A fusecheck.fusion/1 or /2 document, read with `json` (/2 adds "origin" and "nvfuser",
    which say where the repro came from and do not change the graph)."""

    def __init__(self, doc: Union[str, Dict[str, Any]]):
        d = json.loads(doc) if isinstance(doc, str) else doc
        if d.get("format") not in ("fusecheck.fusion/1", "fusecheck.fusion/2"):
            raise OracleError("not a fusecheck.fusion/1 or /2 document")
        self.doc = d
        self.name = d.get("name", "")
        self.scalars: Dict[str, Dict[str, Any]] = {s["name"]: s for s in d.get("scalars", [])}
        self.meshes = d.get("meshes", [])
        self.tensors: Dict[str, TensorDecl] = {}
        for t in d["tensors"]:
            axes = _collect_axes(t)
            logical = []
            for e in t["logical"]:
                a = e if isinstance(e, dict) else axes[e]
                logical.append(Axis(a.get("iter", "Iteration"), a.get("parallel", "Serial"), a["extent"], a.get("expanded")))
            self.tensors[t["name"]] = TensorDecl(t["name"], t["dtype"], logical, t.get("mesh"))
        self.exprs: List[Dict[str, Any]] = d["exprs"]
        self.inputs: List[str] = d["inputs"]
        self.outputs: List[str] = d["outputs"]
        self.producer: Dict[str, int] = {}
        for i, e in enumerate(self.exprs):
            for o in e["outputs"]:
                self.producer[o] = i

    def is_tensor(self, name: str) -> bool:
        return name in self.tensors

    def input_dtype(self, name: str) -> str:
        if name in self.tensors:
            return self.tensors[name].dtype
        return self.scalars.get(name, {}).get("dtype", "Index")

    def mesh_size(self, t: TensorDecl) -> int:
        if t.mesh is None or t.mesh >= len(self.meshes):
            return 1
        return len(self.meshes[t.mesh]["devices"])

    def dtypes_used(self) -> List[str]:
        return sorted({t.dtype for t in self.tensors.values()} | {e.get("dtype") for e in self.exprs if e.get("dtype")})


# ---------------------------------------------------------------- evaluation


@dataclass
class Result:
    """Outputs by name (torch tensors in their storage dtype) with what the tolerance needs."""

    outputs: Dict[str, torch.Tensor]
    dtypes: Dict[str, str]
    path_dtype: Dict[str, Optional[str]]  # least precise floating dtype produced on the path
    path_reduction: Dict[str, int]  # largest reduction size on the path
    path_hops: Dict[str, int]  # ranks - 1 of the widest reduction of sharded data on the path
    path_scale: Dict[str, float]  # largest finite magnitude of any tensor on the path (cancellation)
    promotions: List[str] = field(default_factory=list)  # declared dtypes torch would promote differently


class Interpreter:
    def __init__(self, fusion: Fusion, mode: str = "f64"):
        if mode not in ("f64", "native"):
            raise ValueError("mode is 'f64' or 'native'")
        self.f = fusion
        self.mode = mode
        self.device = torch.device("cpu")  # where factories and scalars go: the inputs' device
        self.values: Dict[str, torch.Tensor] = {}
        self.scalar_values: Dict[str, Any] = {}
        self._parsed: Dict[str, Any] = {}
        self._evaluating: set = set()
        self.path_dtype: Dict[str, Optional[str]] = {}
        self.path_reduction: Dict[str, int] = {}
        self.path_hops: Dict[str, int] = {}
        self.path_scale: Dict[str, float] = {}
        self.promotions: List[str] = []

    # -- storage dtypes
    def storage(self, dtype: str) -> torch.dtype:
        if dtype == "Bool":
            return torch.bool
        if dtype in INTEGRAL:
            return torch.int64
        if self.mode == "f64" or dtype == "Double":
            return torch.float64
        return torch.float32

    # -- scalars
    def scalar(self, v: Any) -> Any:
        """A scalar value (JSON number / bool, or an expression string) as a Python number."""
        if isinstance(v, bool):
            return v
        if isinstance(v, (int, float)):
            return v
        if isinstance(v, str):
            if v not in self._parsed:
                self._parsed[v] = _ExprParser(v).parse()
            return self._eval(self._parsed[v])
        raise OracleError(f"bad scalar value {v!r}")

    def _name(self, n: str) -> Any:
        if n in self.scalar_values:
            return self.scalar_values[n]
        decl = self.f.scalars.get(n)
        if decl is None:
            raise OracleError(f"unknown scalar {n}")
        if decl.get("value") is None:
            raise OracleError(f"scalar {n} is not bound")
        if n in self._evaluating:
            raise OracleError(f"scalar {n} is defined through itself")
        self._evaluating.add(n)
        try:
            v = self.scalar(decl["value"])
        finally:
            self._evaluating.discard(n)
        if decl.get("dtype", "Index") in INTEGRAL and isinstance(v, float) and v == int(v):
            v = int(v)
        self.scalar_values[n] = v
        return v

    def _eval(self, e: Any) -> Any:
        k = e[0]
        if k == "const":
            return e[1]
        if k == "name":
            return self._name(e[1])
        if k == "neg":
            return -self._eval(e[1])
        if k == "size":
            t = self.f.tensors.get(e[1])
            if t is None:
                raise OracleError(f"size() of unknown tensor {e[1]}")
            ax = t.logical[e[2]]
            if e[1] in self.values and ax.iter != "Reduction":
                return int(self.values[e[1]].shape[t.materialized.index(ax)])
            return self.scalar(ax.expanded if ax.expanded is not None else ax.extent)
        a, b = self._eval(e[1]), self._eval(e[2])
        ints = isinstance(a, int) and isinstance(b, int)
        if k == "+":
            return a + b
        if k == "-":
            return a - b
        if k == "*":
            return a * b
        if k == "/":
            if ints:
                return _trunc_div(a, b)
            return a / b if b != 0 else (math.copysign(math.inf, a) * math.copysign(1, b) if a != 0 else math.nan)
        if k == "%":
            if ints:
                return a - b * _trunc_div(a, b)
            return math.fmod(a, b)
        if k == "ceilDiv":
            if b == 0:
                raise OracleError("ceilDiv by zero in a scalar expression")
            if ints:
                return -((-a) // b)
            return math.ceil(a / b)
        if k == "max":
            return max(a, b)
        if k == "min":
            return min(a, b)
        raise OracleError(f"unknown scalar operator {k}")

    def shape(self, entries: Sequence[Any]) -> List[int]:
        out = []
        for v in entries:
            x = self.scalar(v)
            if isinstance(x, float):
                if x != int(x):
                    raise OracleError(f"shape entry {v!r} is {x}, not an integer")
                x = int(x)
            out.append(int(x))
        return out

    # -- binding
    def bind_inputs(self, inputs: Dict[str, torch.Tensor]) -> None:
        for v in inputs.values():
            self.device = v.device
            break
        for n in self.f.inputs:
            if n not in inputs:
                raise OracleError(f"no value for input {n}")
            v = inputs[n]
            if self.f.is_tensor(n):
                t = self.f.tensors[n]
                self.values[n] = round_to(v, t.dtype, self.storage(t.dtype))
                self.path_dtype[n] = None
                self.path_reduction[n] = 1
                self.path_hops[n] = 0
                self.path_scale[n] = _scale(self.values[n])
            else:
                dt = self.f.input_dtype(n)
                x = v.reshape(-1)[0].item()
                self.scalar_values[n] = float(x) if dt in FLOATING else (bool(x) if dt == "Bool" else int(x))
        # Symbols bound by the inputs' sizes: a plain name as a materialized extent.
        for n in self.f.inputs:
            if not self.f.is_tensor(n):
                continue
            t = self.f.tensors[n]
            data = self.values[n]
            mat = t.materialized
            if len(mat) != data.dim():
                raise OracleError(f"input {n} has {len(mat)} non-Reduction axes, its data rank {data.dim()}")
            for ax, size in zip(mat, data.shape):
                ext = ax.expanded if ax.expanded is not None else ax.extent
                if ax.iter == "Broadcast" and ax.expanded is None:
                    continue
                if isinstance(ext, str) and re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", ext.strip()):
                    name = ext.strip()
                    decl = self.f.scalars.get(name)
                    if decl is not None and decl.get("value") is None and name not in self.scalar_values:
                        self.scalar_values[name] = int(size)

    # -- operands
    def operand(self, x: Any) -> Tuple[Any, Optional[str], bool]:
        """(value, dtype, is_tensor): a tensor's value, or a scalar's Python number."""
        if isinstance(x, str) and x in self.f.tensors:
            return self.values[x], self.f.tensors[x].dtype, True
        if isinstance(x, str) and x in self.f.scalars:
            v = self._name(x)
            return v, self.f.scalars[x].get("dtype", "Index"), False
        v = self.scalar(x)
        return v, ("Double" if isinstance(v, float) else ("Bool" if isinstance(v, bool) else "Int")), False

    def compute_dtype(self, ops: Sequence[Tuple[Any, Optional[str], bool]], out_dtype: str) -> torch.dtype:
        floating = out_dtype in FLOATING or any(dt in FLOATING for _, dt, _ in ops)
        if not floating:
            if all(dt == "Bool" for _, dt, _ in ops) and out_dtype == "Bool":
                return torch.bool
            return torch.int64
        if self.mode == "f64":
            return torch.float64
        if out_dtype == "Double" or any(dt == "Double" and is_t for _, dt, is_t in ops):
            return torch.float64
        return torch.float32

    def as_tensor(self, v: Any, ctype: torch.dtype) -> torch.Tensor:
        if isinstance(v, torch.Tensor):
            return v.to(ctype)
        return torch.tensor(v, dtype=ctype, device=self.device)

    # -- the ops
    def run(self, inputs: Dict[str, torch.Tensor]) -> Result:
        if any(dt in FP8 for dt in self.f.dtypes_used()) and not has_fp8():
            raise OracleSkip(f"fp8: torch {torch.__version__} has no float8 dtypes (needs torch >= 2.1)")
        self.bind_inputs(inputs)
        for i in self._needed():
            self._expr(i)
        outs, dts = {}, {}
        for o in self.f.outputs:
            outs[o] = self.values[o]
            dts[o] = self.f.tensors[o].dtype
        return Result(
            outs,
            dts,
            {o: self.path_dtype.get(o) for o in self.f.outputs},
            {o: self.path_reduction.get(o, 1) for o in self.f.outputs},
            {o: self.path_hops.get(o, 0) for o in self.f.outputs},
            {o: self.path_scale.get(o, 0.0) for o in self.f.outputs},
            self.promotions,
        )

    def _needed(self) -> List[int]:
        order: List[int] = []
        state: Dict[int, int] = {}
        stack: List[Tuple[int, bool]] = []
        for o in self.f.outputs:
            if o in self.f.producer:
                stack.append((self.f.producer[o], False))
        while stack:
            i, done = stack.pop()
            if done:
                if state.get(i) != 2:
                    state[i] = 2
                    order.append(i)
                continue
            if state.get(i):
                if state[i] == 1:
                    continue
                continue
            state[i] = 1
            stack.append((i, True))
            for x in self.f.exprs[i].get("inputs", []):
                if isinstance(x, str) and x in self.f.producer and x not in self.f.inputs:
                    j = self.f.producer[x]
                    if not state.get(j):
                        stack.append((j, False))
        return order

    def _path(self, out: str, ins: Sequence[str], reduction: int = 1, hops: int = 0) -> None:
        pd: Optional[str] = self.f.tensors[out].dtype if self.f.tensors[out].dtype in FLOATING else None
        k, h = reduction, hops
        for n in ins:
            q = self.path_dtype.get(n)
            if q is not None and (pd is None or PRECISION[q] < PRECISION[pd]):
                pd = q
            k = max(k, self.path_reduction.get(n, 1))
            h = max(h, self.path_hops.get(n, 0))
        self.path_dtype[out] = pd
        self.path_reduction[out] = k
        self.path_hops[out] = h
        self.path_scale[out] = max([_scale(self.values[out])] + [self.path_scale.get(n, 0.0) for n in ins])

    def _store(self, e: Dict[str, Any], out: str, value: torch.Tensor, reduction: int = 1, hops: int = 0) -> None:
        t = self.f.tensors[out]
        value = round_to(value, t.dtype, self.storage(t.dtype))
        if value.dim() != len(t.materialized):
            raise OracleError(
                f"{e['op']} gives {out} rank {value.dim()}, but {out} has {len(t.materialized)} non-Reduction axes"
            )
        self.values[out] = value
        tins = [x for x in e.get("inputs", []) if isinstance(x, str) and x in self.f.tensors]
        self._path(out, tins, reduction, hops)

    def _promotion_check(self, e: Dict[str, Any], ops: Sequence[Tuple[Any, Optional[str], bool]], out: str) -> None:
        """Notes where the declared dtype differs from torch's promotion of the declared operand dtypes."""
        tdt = {
            "Bool": torch.bool, "Int32": torch.int32, "Int": torch.int64, "Index": torch.int64,
            "Half": torch.float16, "BFloat16": torch.bfloat16, "Float": torch.float32, "Double": torch.float64,
        }
        if not ops or any(dt not in tdt for _, dt, _ in ops):
            return
        example = {"Bool": True, "Int32": 1, "Int": 1, "Index": 1}
        if not any(is_t for _, _, is_t in ops):  # scalars only: their own dtypes decide
            r = tdt[ops[0][1]]
            for _, dt, _ in ops[1:]:
                r = torch.promote_types(r, tdt[dt])
        else:  # tensors decide; scalars take part as Python numbers do in torch
            args = [torch.zeros(1, dtype=tdt[dt]) if is_t else example.get(dt, 1.0) for _, dt, is_t in ops]
            r = args[0].dtype if len(args) == 1 else torch.result_type(args[0], args[1])
        declared = self.f.tensors[out].dtype
        kind = e["op"]
        if kind in ("eq", "ne", "lt", "le", "gt", "ge", "logical_and", "logical_or", "logical_not"):
            r = torch.bool
        if kind in ("exp", "log", "sqrt", "rsqrt", "tanh", "sigmoid", "gelu", "silu", "reciprocal", "sin",
                    "cos", "erf") and not r.is_floating_point:
            r = torch.float32
        name = {v: k for k, v in tdt.items() if k != "Index"}.get(r)
        if name and name != declared and not (declared == "Index" and name == "Int"):
            self.promotions.append(f"{kind} -> {out}: declared {declared}, torch promotes the operands to {name}")

    def _expr(self, i: int) -> None:
        e = self.f.exprs[i]
        op = e["op"]
        outs = e["outputs"]
        out = outs[0]
        odt = self.f.tensors[out].dtype
        ops = [self.operand(x) for x in e.get("inputs", [])]
        try:
            self._eval_op(e, op, ops, out, odt)
        except (RuntimeError, IndexError, ValueError) as err:
            raise OracleError(f"expr {i} ({op} -> {out}): {err}") from err

    def _eval_op(self, e: Dict[str, Any], op: str, ops: List[Tuple[Any, Optional[str], bool]], out: str, odt: str) -> None:
        unary = {
            "neg": torch.neg, "abs": torch.abs, "exp": torch.exp, "log": torch.log, "sqrt": torch.sqrt,
            "rsqrt": torch.rsqrt, "tanh": torch.tanh, "sigmoid": torch.sigmoid, "relu": torch.relu,
            "silu": F.silu, "reciprocal": torch.reciprocal, "sin": torch.sin, "cos": torch.cos,
            "erf": torch.erf, "floor": torch.floor, "ceil": torch.ceil,
        }
        binary = {
            "add": torch.add, "sub": torch.sub, "mul": torch.mul, "pow": torch.pow,
            "maximum": torch.maximum, "minimum": torch.minimum,
        }
        compare = {"eq": torch.eq, "ne": torch.ne, "lt": torch.lt, "le": torch.le, "gt": torch.gt, "ge": torch.ge}
        if op in ("set", "segment_set"):
            return self._store(e, out, self.as_tensor(ops[0][0], self.storage(odt)))
        if op == "cast":
            v, dt, _ = ops[0]
            x = self.as_tensor(v, self.storage(dt) if dt else torch.float64)
            return self._store(e, out, x)
        if op in unary or op in ("gelu", "logical_not"):
            self._promotion_check(e, ops, out)
            if op == "logical_not":
                return self._store(e, out, torch.logical_not(self.as_tensor(ops[0][0], self.storage(ops[0][1] or "Double"))))
            ctype = self.compute_dtype(ops, odt)
            x = self.as_tensor(ops[0][0], ctype)
            if op in ("floor", "ceil") and not ctype.is_floating_point:
                return self._store(e, out, x)
            if op == "gelu":
                return self._store(e, out, F.gelu(x, approximate=e.get("approximate", "none")))
            return self._store(e, out, unary[op](x))
        if op in binary or op == "div":
            self._promotion_check(e, ops, out)
            ctype = self.compute_dtype(ops, odt)
            a, b = (self.as_tensor(v, ctype) for v, _, _ in ops)
            if op == "div":
                if ctype.is_floating_point:
                    return self._store(e, out, a / b)
                if bool((b == 0).any()):
                    raise OracleError("integer division by zero")
                return self._store(e, out, torch.div(a, b, rounding_mode="trunc"))
            return self._store(e, out, binary[op](a, b))
        if op in compare or op in ("logical_and", "logical_or"):
            self._promotion_check(e, ops, out)
            dts = [dt for _, dt, _ in ops]
            ctype = torch.float64 if any(d in FLOATING for d in dts) else torch.int64
            if self.mode == "native" and ctype == torch.float64 and not any(d == "Double" and t for _, d, t in ops):
                ctype = torch.float32
            a, b = (self.as_tensor(v, ctype) for v, _, _ in ops)
            if op == "logical_and":
                return self._store(e, out, torch.logical_and(a, b))
            if op == "logical_or":
                return self._store(e, out, torch.logical_or(a, b))
            return self._store(e, out, compare[op](a, b))
        if op == "where":
            self._promotion_check(e, ops[1:], out)
            c = self.as_tensor(ops[0][0], torch.bool) if not isinstance(ops[0][0], torch.Tensor) else ops[0][0] != 0
            ctype = self.compute_dtype(ops[1:], odt)
            a, b = (self.as_tensor(v, ctype) for v, _, _ in ops[1:])
            return self._store(e, out, torch.where(c, a, b))
        x = ops[0][0] if ops else None
        if op == "broadcast":
            y = x
            for k, flag in enumerate(e["flags"]):
                if flag:
                    y = y.unsqueeze(k)
            return self._store(e, out, y)
        if op == "broadcast_in_dim":
            shape = self.shape(e["shape"])
            view = [1] * len(shape)
            for k, d in enumerate(e["dims"]):
                view[d] = x.shape[k]
            shape = [view[k] if s == -1 else s for k, s in enumerate(shape)]
            return self._store(e, out, x.reshape(view).expand(shape))
        if op == "expand":
            return self._store(e, out, x.expand(self.shape(e["shape"])))
        if op == "squeeze":
            y = x
            for d in sorted((d % x.dim() for d in e["dims"]), reverse=True):
                if y.shape[d] != 1:
                    raise OracleError(f"squeeze of dim {d} of size {y.shape[d]}")
                y = y.squeeze(d)
            return self._store(e, out, y)
        if op == "permute":
            return self._store(e, out, x.permute(*e["dims"]))
        if op == "reshape":
            return self._store(e, out, x.reshape(self.shape(e["shape"])))
        if op == "slice":
            idx = []
            for r in e["ranges"]:
                step = self.scalar(r["step"]) if r.get("step") is not None else 1
                if step <= 0:
                    raise OracleError("slice step must be positive")
                idx.append(slice(int(self.scalar(r["start"])), int(self.scalar(r["stop"])), int(step)))
            return self._store(e, out, x[tuple(idx)])
        if op == "pad":
            widths = self.shape(e["pad"])
            value = self.scalar(e["value"]) if e.get("value") is not None else 0
            ctype = self.compute_dtype(ops, odt)
            return self._store(e, out, F.pad(self.as_tensor(x, ctype), widths, mode="constant", value=value))
        if op == "cat":
            ctype = self.compute_dtype(ops, odt)
            return self._store(e, out, torch.cat([self.as_tensor(v, ctype) for v, _, _ in ops], dim=e.get("dim", 0)))
        if op in ("sum", "prod", "max", "min", "mean", "var", "var_mean", "welford"):
            return self._reduction(e, op, ops, out, odt)
        if op in ("full", "zeros", "ones", "iota"):
            shape = self.shape(e.get("shape", []))
            ctype = self.storage(odt) if odt not in FLOATING else (torch.float64 if self.mode == "f64" or odt == "Double" else torch.float32)
            if op == "zeros":
                return self._store(e, out, torch.zeros(shape, dtype=ctype, device=self.device))
            if op == "ones":
                return self._store(e, out, torch.ones(shape, dtype=ctype, device=self.device))
            if op == "full":
                return self._store(e, out, torch.full(shape, self.scalar(e["value"]), dtype=ctype, device=self.device))
            n = 1
            for s in shape:
                n *= s
            start = self.scalar(e.get("start", 0))
            step = self.scalar(e.get("step", 1))
            y = torch.arange(n, dtype=ctype, device=self.device) * step + start
            return self._store(e, out, y.reshape(shape))
        if op in ("matmul", "linear"):
            ctype = self.compute_dtype(ops, odt)
            a = self.as_tensor(ops[0][0], ctype)
            b = self.as_tensor(ops[1][0], ctype)
            k = a.shape[-1] if a.dim() else 1
            if op == "matmul":
                y = torch.matmul(a, b)
            else:
                bias = self.as_tensor(ops[2][0], ctype) if len(ops) > 2 else None
                y = F.linear(a, b, bias)
            hops = 0
            for name in e["inputs"][:2]:
                t = self.f.tensors.get(name) if isinstance(name, str) else None
                if t is not None and self.f.mesh_size(t) > 1 and any(ax.parallel.startswith("DID") for ax in t.materialized):
                    hops = max(hops, self.f.mesh_size(t) - 1)
            return self._store(e, out, y, reduction=int(k), hops=hops)
        raise OracleError(f"op {op} is not interpreted")

    def _reduction(self, e: Dict[str, Any], op: str, ops: List[Tuple[Any, Optional[str], bool]], out: str, odt: str) -> None:
        v, idt, _ = ops[0]
        x = v
        dims = [d % x.dim() for d in e.get("dims", [])] if x.dim() else []
        if not dims:
            dims = list(range(x.dim()))
        keep = bool(e.get("keepdim", False))
        count = 1
        for d in dims:
            count *= x.shape[d]
        tin = self.f.tensors.get(e["inputs"][0]) if isinstance(e["inputs"][0], str) else None
        hops = 0
        if tin is not None and self.f.mesh_size(tin) > 1:
            hops = self.f.mesh_size(tin) - 1
        ctype = self.compute_dtype(ops, odt)
        xc = x.to(ctype) if op not in ("max", "min") or ctype.is_floating_point else x
        if op in ("sum", "prod"):
            y = torch.sum(xc, dim=dims, keepdim=keep) if op == "sum" else xc
            if op == "prod":
                for d in sorted(dims, reverse=True):
                    y = torch.prod(y, dim=d, keepdim=keep)
            return self._store(e, out, y, reduction=count, hops=hops)
        if op in ("max", "min"):
            if not dims:
                return self._store(e, out, xc, hops=hops)
            y = torch.amax(xc, dim=dims, keepdim=keep) if op == "max" else torch.amin(xc, dim=dims, keepdim=keep)
            return self._store(e, out, y, hops=hops)
        if op == "mean":
            return self._store(e, out, torch.mean(xc, dim=dims, keepdim=keep), reduction=count, hops=hops)
        if op == "welford":  # avg, var_sum (the squared deviations from avg, summed), N
            avg = torch.mean(xc, dim=dims)
            self._store(e, out, avg, reduction=count, hops=hops)
            self._store(e, e["outputs"][1], torch.var(xc, dim=dims, correction=0) * count, reduction=count, hops=hops)
            n = torch.full(avg.shape, count, dtype=torch.int64, device=self.device)
            return self._store(e, e["outputs"][2], n)
        c = int(e.get("correction", 1))
        if not ctype.is_floating_point:
            xc = xc.to(torch.float64)
        var = torch.var(xc, dim=dims, correction=c, keepdim=keep)
        if op == "var":
            return self._store(e, out, var, reduction=count, hops=hops)
        mean = torch.mean(xc, dim=dims, keepdim=keep)
        self._store(e, out, var, reduction=count, hops=hops)
        self._store(e, e["outputs"][1], mean, reduction=count, hops=hops)


def evaluate(fusion: Union[Fusion, str, Dict[str, Any]], inputs: Dict[str, torch.Tensor], mode: str = "f64") -> Result:
    """Runs `fusion` on `inputs` (by input name: global tensors, scalars as 0-d tensors)."""
    f = fusion if isinstance(fusion, Fusion) else Fusion(fusion)
    return Interpreter(f, mode).run(inputs)


# ---------------------------------------------------------------- comparison


@dataclass
class Disagreement:
    output: str
    reason: str
    max_error: float = 0.0
    allowed: float = 0.0
    count: int = 0
    worst_index: Optional[Tuple[int, ...]] = None
    fusecheck_value: Optional[float] = None
    torch_value: Optional[float] = None

    def __str__(self) -> str:
        s = f"{self.output}: {self.reason}"
        if self.worst_index is not None:
            s += (
                f" ({self.count} elements; worst at {list(self.worst_index)}: fusecheck {self.fusecheck_value!r}, "
                f"torch {self.torch_value!r}, error {self.max_error:.3g} > allowed {self.allowed:.3g})"
            )
        return s


def tolerance(path_dtype: Optional[str], reduction: int, hops: int, mode: str) -> Tuple[float, float]:
    """(rtol, atol0): an element passes when |a - r| <= atol0 + rtol * scale, where scale is the
    largest magnitude of the output and of every tensor on its path (normwise: a rounding step's
    error is relative to the magnitude it rounds, which cancellation can leave far above the output).

    f64: both sides compute in float64 and round each tensor once, so they differ only where an
    fp64-level difference flips a rounding, and where fusecheck's simulated ring rounds each hop of
    a cross-rank reduction to the buffer dtype: a few units of the path dtype's epsilon per hop.
    native: float32 arithmetic against fusecheck's float64 adds float32 roundoff, growing with the
    square root of the reduction size."""
    if path_dtype is None:
        return 0.0, 0.0
    eps, tiny = EPS[path_dtype], TINY[path_dtype]
    rtol = eps * (2 + 2 * hops)
    if path_dtype == "Double":  # both sides round in float64 itself: summation order shows
        rtol = eps * (4 + 2 * hops + reduction)
    if mode == "native" and path_dtype != "Double":
        rtol = eps * (4 + 2 * hops) + (8 + math.sqrt(reduction)) * 2.0**-23
    return rtol, tiny


def compare(
    name: str, dtype: str, fusecheck: torch.Tensor, oracle: torch.Tensor, path_dtype: Optional[str], reduction: int,
    hops: int, mode: str, path_scale: float = 0.0,
) -> Optional[Disagreement]:
    if tuple(fusecheck.shape) != tuple(oracle.shape):
        return Disagreement(name, f"shape {list(fusecheck.shape)} from fusecheck, {list(oracle.shape)} from torch")
    a = fusecheck.to(torch.float64)
    r = oracle.to(torch.float64)
    if a.numel() == 0:
        return None
    nan_a, nan_r = torch.isnan(a), torch.isnan(r)
    if dtype not in FLOATING or path_dtype is None:
        bad = (a != r) & ~(nan_a & nan_r)
        if bool(bad.any()):
            k = int(bad.reshape(-1).nonzero()[0])
            idx = tuple(int(i) for i in _unravel(k, a.shape))
            return Disagreement(name, "exact values differ", float("nan"), 0.0, int(bad.sum()), idx, a.reshape(-1)[k].item(), r.reshape(-1)[k].item())
        return None
    rtol, atol0 = tolerance(path_dtype, reduction, hops, mode)
    finite_r = r[torch.isfinite(r)]
    scale = max(float(finite_r.abs().max()) if finite_r.numel() else 0.0, path_scale)
    allowed = atol0 + rtol * scale
    both_inf_same = torch.isinf(a) & torch.isinf(r) & (a == r)
    err = (a - r).abs()
    err = torch.where(both_inf_same | (nan_a & nan_r), torch.zeros_like(err), err)
    err = torch.where(nan_a ^ nan_r, torch.full_like(err, math.inf), err)
    err = torch.nan_to_num(err, nan=math.inf)
    bad = err > allowed
    if bool(bad.any()):
        k = int(torch.argmax(torch.where(bad, err, torch.zeros_like(err)).reshape(-1)))
        idx = tuple(int(i) for i in _unravel(k, a.shape))
        return Disagreement(
            name, f"beyond tolerance ({path_dtype} path, rtol {rtol:.3g} x scale {scale:.3g})", float(err.reshape(-1)[k]),
            allowed, int(bad.sum()), idx, a.reshape(-1)[k].item(), r.reshape(-1)[k].item(),
        )
    return None


def _scale(t: torch.Tensor) -> float:
    if not t.dtype.is_floating_point or t.numel() == 0:
        return 0.0
    f = t[torch.isfinite(t)]
    return float(f.abs().max()) if f.numel() else 0.0


def _unravel(k: int, shape: Sequence[int]) -> List[int]:
    idx = []
    for s in reversed(list(shape)):
        idx.append(k % s if s else 0)
        k //= s if s else 1
    return list(reversed(idx))
