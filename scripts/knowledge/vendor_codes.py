#!/usr/bin/env python3
"""List every status/error code of the CUDA libraries as an installed toolkit defines them.

For each code: the family, the name exactly as the header spells it, its number, the message
the library itself prints for it (cudaGetErrorString, cudnnGetErrorString, ... called through
ctypes; no GPU or driver is needed for these), and the header's own comment (for reference only).
The names, numbers and messages of data/error_codes.csv come from this; the meanings and fixes
there are written by hand from the vendors' documentation and real reports.

  scripts/knowledge/vendor_codes.py [/usr/local/cuda] > /tmp/codes.csv
"""
import csv
import ctypes
import os
import re
import sys

root = sys.argv[1] if len(sys.argv) > 1 else "/usr/local/cuda"
inc = os.path.join(root, "include")
lib = os.path.join(root, "lib64")

# family, header, enum type name (the typedef or enum tag), library, string function
FAMILIES = [
    ("cuda-runtime", "driver_types.h", r"enum\s+(?:__device_builtin__\s+)?cudaError\b", "libcudart.so", "cudaGetErrorString"),
    ("cuda-driver", "cuda.h", r"typedef\s+enum\s+cudaError_enum\b", None, None),
    ("cudnn", "cudnn_graph.h", r"typedef\s+enum\s*\{[^}]*CUDNN_STATUS_SUCCESS", "libcudnn.so.9", "cudnnGetErrorString"),
    ("cublas", "cublas_api.h", r"typedef\s+enum\s*\{[^}]*CUBLAS_STATUS_SUCCESS", "libcublas.so", "cublasGetStatusString"),
    ("cusolver", "cusolver_common.h", r"typedef\s+enum\s*\{[^}]*CUSOLVER_STATUS_SUCCESS", None, None),
    ("cufft", "cufft.h", r"typedef\s+enum\s+cufftResult_t\b", None, None),
    ("cusparse", "cusparse.h", r"typedef\s+enum\s*\{[^}]*CUSPARSE_STATUS_SUCCESS", "libcusparse.so", "cusparseGetErrorString"),
    ("curand", "curand.h", r"enum\s+curandStatus\b", None, None),
    ("nvrtc", "nvrtc.h", r"typedef\s+enum\s*\{[^}]*NVRTC_SUCCESS", "libnvrtc.so", "nvrtcGetErrorString"),
    ("nvjitlink", "nvJitLink.h", r"typedef\s+enum\s*\{[^}]*NVJITLINK_SUCCESS", None, None),
    ("nccl", "nccl.h", r"typedef\s+enum\s*\{\s*ncclSuccess", "libnccl.so", "ncclGetErrorString"),
    # CUPTI's string functions return a status and the text through a pointer argument.
    ("cupti", "cupti_result.h", r"typedef\s+enum\s*\{[^}]*CUPTI_SUCCESS", "libcupti.so", "cuptiGetErrorMessage"),
]

# String functions of the form CUptiResult f(CUptiResult, const char **str).
OUT_PARAM = {"cuptiGetErrorMessage", "cuptiGetResultString"}


def enum_body(text, start_re):
    m = re.search(start_re, text)
    if not m:
        return None
    open_ = text.index("{", m.start())
    close = text.index("}", open_)
    return text[open_ + 1:close]


def members(body):
    """(name, value expression, preceding comment) for each enumerator."""
    # "NAME CUDNN_DEPRECATED_ENUM = OTHER": the attribute macro is not an enumerator.
    body = re.sub(r"\b[A-Z_]*DEPRECATED[A-Z_]*\b(?=\s*=)", "", body)
    out, comment = [], ""
    pos = 0
    tok = re.compile(r"/\*\*?(.*?)\*/|//(.*?)\n|([A-Za-z_][A-Za-z0-9_]*)\s*(?:=\s*([^,/\n]+))?\s*,?", re.S)
    while pos < len(body):
        m = tok.search(body, pos)
        if not m:
            break
        pos = m.end()
        if m.group(1) is not None or m.group(2) is not None:
            c = (m.group(1) or m.group(2) or "")
            c = re.sub(r"^\s*\*+", "", c, flags=re.M)
            c = " ".join(c.split())
            # a trailing comment (same line as the previous member) belongs to that member
            if out and "\n" not in body[out[-1][3]:m.start()] and not out[-1][2]:
                out[-1] = (out[-1][0], out[-1][1], c, out[-1][3])
            else:
                comment = c
            continue
        if m.group(3):
            out.append((m.group(3), (m.group(4) or "").strip(), comment, m.end()))
            comment = ""
    return [(n, v, c) for n, v, c, _ in out]


def evaluate(members_):
    vals, last = {}, -1
    result = []
    for name, expr, comment in members_:
        if expr:
            e = expr.rstrip("U").strip()
            try:
                v = int(e, 0)
            except ValueError:
                v = vals.get(e)
                if v is None:
                    try:
                        v = int(eval(e.replace("U", ""), {}, dict(vals)))
                    except Exception:
                        v = None
        else:
            v = last + 1
        if v is not None:
            vals[name] = v
            last = v
        result.append((name, v, comment))
    return result


def messages(libname, func, values):
    if not libname:
        return {}
    try:
        so = ctypes.CDLL(os.path.join(lib, libname))
        f = getattr(so, func)
    except OSError:
        return {}
    out_param = func in OUT_PARAM
    f.restype = ctypes.c_int if out_param else ctypes.c_char_p
    f.argtypes = [ctypes.c_int, ctypes.POINTER(ctypes.c_char_p)] if out_param else [ctypes.c_int]
    out = {}
    for v in values:
        if v is None:
            continue
        try:
            if out_param:
                text = ctypes.c_char_p()
                s = text.value if f(v, ctypes.byref(text)) == 0 else None
            else:
                s = f(v)
        except Exception:
            continue
        if s:
            out[v] = s.decode("utf-8", "replace")
    return out


w = csv.writer(sys.stdout, lineterminator="\n")
w.writerow(["family", "name", "number", "message", "header_comment"])
for family, header, start, libname, func in FAMILIES:
    path = os.path.join(inc, header)
    if not os.path.exists(path):
        print(f"{header}: not installed", file=sys.stderr)
        continue
    body = enum_body(open(path, encoding="utf-8", errors="replace").read(), start)
    if body is None:
        print(f"{header}: enum not found", file=sys.stderr)
        continue
    ms = evaluate(members(body))
    msg = messages(libname, func, [v for _, v, _ in ms])
    for name, v, comment in ms:
        if name.endswith(("_FORCE_SIZE", "NumResults", "_MAX_ENUM", "ApiFailureBase")) or name.endswith("_t"):
            continue
        w.writerow([family, name, "" if v is None else v, msg.get(v, ""), comment])
