"""Tensor files in pure Python (struct + json + numpy), independent of fusecheck's C++ reader.

The differential runner and the tests read what `fusecheck run --save-inputs/--save-outputs` wrote
with this module, and write the inputs they feed to `run --inputs` with it, so that the C++ reader
and writer are checked against a second implementation.

A tensor is returned as (name, dtype, values): `dtype` is the safetensors spelling ("F16", "BF16",
"F8_E4M3", ...) and `values` a numpy array holding the values exactly (BF16 and the fp8 types as
float32, which holds every one of their values).
"""
from __future__ import annotations

import json
import struct
from typing import Dict, List, Optional, Sequence, Tuple

import numpy as np

Tensor = Tuple[str, str, np.ndarray]

# safetensors dtype -> (bytes per element, numpy storage dtype)
_STORAGE = {
    "BOOL": (1, np.dtype("u1")),
    "U8": (1, np.dtype("u1")),
    "I8": (1, np.dtype("i1")),
    "I16": (2, np.dtype("<i2")),
    "I32": (4, np.dtype("<i4")),
    "I64": (8, np.dtype("<i8")),
    "F16": (2, np.dtype("<f2")),
    "BF16": (2, np.dtype("<u2")),
    "F32": (4, np.dtype("<f4")),
    "F64": (8, np.dtype("<f8")),
    "F8_E4M3": (1, np.dtype("u1")),
    "F8_E5M2": (1, np.dtype("u1")),
}

# fusecheck dtype names <-> safetensors dtypes
FILE_DTYPE = {
    "Bool": "BOOL",
    "Int32": "I32",
    "Int": "I64",
    "Index": "I64",
    "Half": "F16",
    "BFloat16": "BF16",
    "Float": "F32",
    "Double": "F64",
    "Float8_e4m3fn": "F8_E4M3",
    "Float8_e5m2": "F8_E5M2",
}
FUSION_DTYPE = {
    "BOOL": "Bool",
    "I32": "Int32",
    "I64": "Int",
    "F16": "Half",
    "BF16": "BFloat16",
    "F32": "Float",
    "F64": "Double",
    "F8_E4M3": "Float8_e4m3fn",
    "F8_E5M2": "Float8_e5m2",
}


def _fp8_table(exp_bits: int, man_bits: int, bias: int, has_inf: bool) -> np.ndarray:
    """The value of each of the 256 fp8 bit patterns (OCP e4m3fn: no inf, 0x7f/0xff NaN; e5m2: IEEE-like)."""
    out = np.zeros(256, dtype=np.float64)
    for b in range(256):
        sign = -1.0 if b & 0x80 else 1.0
        e = (b >> man_bits) & ((1 << exp_bits) - 1)
        m = b & ((1 << man_bits) - 1)
        top = (1 << exp_bits) - 1
        if has_inf and e == top:
            v = float("inf") if m == 0 else float("nan")
        elif not has_inf and e == top and m == (1 << man_bits) - 1:
            v = float("nan")
        elif e == 0:
            v = m * 2.0 ** (1 - bias - man_bits)
        else:
            v = (1 + m / (1 << man_bits)) * 2.0 ** (e - bias)
        out[b] = sign * v
    return out


_E4M3 = _fp8_table(4, 3, 7, has_inf=False)
_E5M2 = _fp8_table(5, 2, 15, has_inf=True)


def _decode(dtype: str, raw: np.ndarray) -> np.ndarray:
    if dtype == "BOOL":
        return raw != 0
    if dtype == "BF16":
        return (raw.reshape(-1).astype(np.uint32) << 16).view(np.float32).reshape(raw.shape)
    if dtype == "F8_E4M3":
        return _E4M3[raw].astype(np.float32)
    if dtype == "F8_E5M2":
        return _E5M2[raw].astype(np.float32)
    return raw.astype(raw.dtype.newbyteorder("="))


def _fp8_encode(table: np.ndarray, values: np.ndarray) -> np.ndarray:
    """Bit patterns of values that are exact fp8 values (NaN -> the table's first NaN)."""
    lookup: Dict[float, int] = {}
    for b in range(256):
        v = float(table[b])
        if v == v:
            lookup.setdefault(v, b)
    nan_bits = int(np.flatnonzero(np.isnan(table))[0])
    flat = values.astype(np.float64).ravel()
    out = np.empty(flat.shape, dtype=np.uint8)
    for i, v in enumerate(flat):
        if v != v:
            out[i] = nan_bits
        elif v == 0.0 and np.signbit(v):
            out[i] = 0x80
        else:
            if float(v) not in lookup:
                raise ValueError(f"{v} is not an fp8 value")
            out[i] = lookup[float(v)]
    return out.reshape(values.shape)


def _encode(dtype: str, values: np.ndarray) -> bytes:
    values = np.asarray(values)
    if dtype == "BOOL":
        return values.astype(np.uint8).tobytes()
    if dtype == "BF16":
        f = values.astype(np.float32)
        bits = f.view(np.uint32)
        if np.any((bits & 0xFFFF) != 0) and not np.all(np.isnan(f[(bits & 0xFFFF) != 0])):
            raise ValueError("values are not bfloat16 values")
        return (bits >> 16).astype("<u2").tobytes()
    if dtype == "F8_E4M3":
        return _fp8_encode(_E4M3, values).tobytes()
    if dtype == "F8_E5M2":
        return _fp8_encode(_E5M2, values).tobytes()
    return values.astype(_STORAGE[dtype][1]).tobytes()


def read_safetensors(path: str) -> Tuple[List[Tensor], Dict[str, str]]:
    """The tensors of a .safetensors file in header order, and its __metadata__."""
    with open(path, "rb") as f:
        blob = f.read()
    (n,) = struct.unpack("<Q", blob[:8])
    header = json.loads(blob[8 : 8 + n].decode("utf-8"))
    data = blob[8 + n :]
    meta = header.pop("__metadata__", {}) or {}
    out: List[Tensor] = []
    for name, d in header.items():
        dtype, shape, (b, e) = d["dtype"], list(d["shape"]), d["data_offsets"]
        width, storage = _STORAGE[dtype]
        count = int(np.prod(shape)) if shape else 1
        if e - b != count * width:
            raise ValueError(f"{path}: tensor {name}: {e - b} bytes for {dtype} {shape}")
        raw = np.frombuffer(data[b:e], dtype=storage).reshape(shape)
        out.append((name, dtype, _decode(dtype, raw)))
    return out, meta


def write_safetensors(path: str, tensors: Sequence[Tensor], metadata: Optional[Dict[str, str]] = None) -> None:
    """Writes (name, safetensors dtype, values) in order; values must be exact in the dtype."""
    header: Dict[str, object] = {}
    if metadata:
        header["__metadata__"] = dict(metadata)
    chunks = []
    offset = 0
    for name, dtype, values in tensors:
        raw = _encode(dtype, values)
        header[name] = {"dtype": dtype, "shape": list(np.shape(values)), "data_offsets": [offset, offset + len(raw)]}
        chunks.append(raw)
        offset += len(raw)
    text = json.dumps(header, separators=(",", ":")).encode("utf-8")
    text += b" " * ((8 - len(text) % 8) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)))
        f.write(text)
        for c in chunks:
            f.write(c)


_NPY_DTYPE = {
    "bool": "BOOL",
    "uint8": "U8",
    "int8": "I8",
    "int16": "I16",
    "int32": "I32",
    "int64": "I64",
    "float16": "F16",
    "float32": "F32",
    "float64": "F64",
}


def read_npz(path: str) -> List[Tensor]:
    with np.load(path, allow_pickle=False) as z:
        return [(name, _NPY_DTYPE[str(z[name].dtype)], np.array(z[name])) for name in z.files]


def write_npz(path: str, tensors: Sequence[Tensor]) -> None:
    arrays = {}
    for name, dtype, values in tensors:
        if dtype in ("BF16", "F8_E4M3", "F8_E5M2"):
            raise ValueError(f"{name}: numpy has no {dtype}; write a .safetensors file")
        arrays[name] = np.asarray(values).astype(_STORAGE[dtype][1] if dtype != "BOOL" else np.bool_)
    np.savez(path, **arrays)


def read(path: str) -> List[Tensor]:
    if path.endswith(".npz"):
        return read_npz(path)
    return read_safetensors(path)[0]


def write(path: str, tensors: Sequence[Tensor], metadata: Optional[Dict[str, str]] = None) -> None:
    if path.endswith(".npz"):
        write_npz(path, tensors)
    else:
        write_safetensors(path, tensors, metadata)
