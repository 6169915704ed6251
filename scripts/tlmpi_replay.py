#!/usr/bin/env python3
# tlmpi_replay.py - tlmpi's fixed event-replay runner (docs/replay.md).
#
#   python3 -I tlmpi_replay.py replay_events.json [--device cpu|cuda]
#       [--warmup N] [--iters N] [--op-filter S] [--op-limit N]
#       [--output results.csv] [--tracelens_ir FILE]
#
# Reads replay_events.json (format tlmpi.replay.v1, written by
# `tlmpi replay`) as data only, checks all of it again before importing
# torch (size, depth, keys, names, types, shapes, byte caps), then for
# every op with status "ok": picks the overload of the running torch whose
# schema fits the recorded arguments, builds random tensors with the
# recorded shapes, dtypes and strides (fixed seed), calls the op, times
# it and writes one CSV row.  It never evaluates text from the file as
# code (no eval, exec, pickle, torch.load), resolves operators only
# through torch's operator registry by validated name, and creates no
# file but --output (and --tracelens_ir when asked).
#
# One self-contained file: no sibling imports, runs under `python3 -I`.
# Exit status: 0 all ok ops ran, 1 some failed, 2 file refused / usage.
__version__ = "0.1.0"  # tlmpi's version (test_help checks it)

import argparse
import csv
import io
import json
import math
import os
import re
import stat
import sys
import time

FORMAT = "tlmpi.replay.v1"
MAX_FILE = 64 << 20
MAX_DEPTH = 32
MAX_OPS = 1000000
MAX_ARGS = 64
MAX_DIMS = 16
MAX_LIST = 256
MAX_DIM = 1 << 40
MAX_STRIDE = 1 << 48
MAX_TENSOR_BYTES = 8 << 30
MAX_OP_BYTES = 32 << 30
MAX_SCALAR_LIST = 2048
OP_KEYS = ("op_name", "count", "source", "trace_kernel_us_mean", "args",
           "status")
ARG_KEYS = ("Input Dims", "Input type", "Input Strides", "Concrete Inputs")
REASONS = frozenset((
    "ok", "bad_op_name", "namespace_not_allowed", "denied_op",
    "missing_args", "bad_args", "length_mismatch", "too_many_args",
    "bad_dims", "bad_strides", "tensor_too_large", "op_too_large",
    "empty_tensor_list", "unknown_type", "bad_concrete_input", "nonfinite_scalar",
    "scalar_out_of_range", "type_value_mismatch"))
OP_RE = re.compile(r"\A([A-Za-z_][A-Za-z0-9_]{0,63})::"
                   r"([A-Za-z_][A-Za-z0-9_]{0,127})\Z")
NAMESPACES = frozenset(("aten",))
DENIED_OPS = frozenset((
    "save", "load", "from_file", "_save_jit_module", "record_stream", "set_",
    "_assert_async", "_assert_scalar", "_assert_tensor_metadata", "_print",
    "_cufft_clear_plan_cache", "_cufft_set_plan_cache_max_size",
    "sym_constrain_range", "_functional_sym_constrain_range",
    "_make_dep_token", "_nested_tensor_from_mask", "_set_cudnn_enabled"))
DENIED_PARTS = ("allreduce", "all_reduce", "allgather", "all_gather",
                "reduce_scatter", "alltoall", "all_to_all", "barrier",
                "_send", "_recv", "isend", "irecv", "file", "_load", "_save")
# profiler dtype -> (torch attribute, bytes per element, kind)
DTYPES = {
    "c10::BFloat16": ("bfloat16", 2, "f"), "c10::Half": ("float16", 2, "f"),
    "float": ("float32", 4, "f"), "double": ("float64", 8, "f"),
    "bool": ("bool", 1, "b"), "long int": ("int64", 8, "i"),
    "long": ("int64", 8, "i"), "int": ("int32", 4, "i"),
    "short int": ("int16", 2, "i"), "signed char": ("int8", 1, "i"),
    "unsigned char": ("uint8", 1, "i"),
    "c10::complex<float>": ("complex64", 8, "c"),
    "c10::complex<double>": ("complex128", 16, "c"),
    "c10::Float8_e4m3fn": ("float8_e4m3fn", 1, "f"),
    "c10::Float8_e5m2": ("float8_e5m2", 1, "f"),
    "c10::Float8_e4m3fnuz": ("float8_e4m3fnuz", 1, "f"),
    "c10::Float8_e5m2fnuz": ("float8_e5m2fnuz", 1, "f"),
}
OTHER_TYPES = ("Scalar", "ScalarList", "TensorList", "")
LIST_DTYPE = "float"  # TensorList tensors: no dtype is recorded; the
                     # op's first tensor's dtype, else float32
# TraceLens's runner knows only these dtype strings (spec replay.md §5)
TRACELENS_DTYPES = frozenset(("bool", "int", "long", "double", "float",
                              "c10::Half", "c10::BFloat16"))
CSV_COLS = ("op_name", "uid", "overload", "status", "replay_us_mean",
            "trace_kernel_us_mean", "ratio")


class Refused(Exception):
    """The file is not a replay file this runner accepts."""


def printable(s, limit=200):
    """Text for a terminal or a CSV cell: C0/C1 controls removed, lone
    surrogates written as their escape (\\udc80: a strict encoder never
    fails on the result), cut."""
    s = str(s)[:limit]
    s = "".join(c if (" " <= c < "\x7f" or c > "\x9f") else "?"
                for c in s)
    return s.encode("utf-8", "backslashreplace").decode("utf-8")


def formula_like(s):
    """tlmpi's one formula rule (src/util/sbuf.h, tlm_formula_like): a
    text starting with = + - @ (tab, CR) that is not a plain number."""
    if not s or s[0] not in "=+-@\t\r":
        return False
    try:
        float(s)
        return False
    except ValueError:
        return True


def csv_cell(s):
    s = printable(s)
    return "'" + s if formula_like(s) else s


DENIED_NS = frozenset((
    "c10d", "_c10d_functional", "c10d_functional",
    "_c10d_functional_autograd", "_dtensor", "profiler", "prim",
    "record_param_comms", "cuda", "nccl", "builtins", "os", "sys",
    "subprocess", "posix", "importlib"))


def name_ok(name):
    """The op-name grammar and the deny-lists (any namespace)."""
    m = OP_RE.match(name) if isinstance(name, str) else None
    if not m or m.group(1).startswith("__") or m.group(2).startswith("__"):
        return False
    op = m.group(2).lower()
    return (m.group(1) not in DENIED_NS and m.group(2) not in DENIED_OPS
            and not any(p in op for p in DENIED_PARTS))


def namespace_ok(name):
    """Only aten: other namespaces need their extension library, which
    this runner never loads (rule S11)."""
    return name.split("::", 1)[0] in NAMESPACES


# ------------------------------------------------------------ reading
def check_depth(doc):
    """Nesting of the parsed document, iteratively: linear in its size
    (the former token scan of the text was quadratic on nested escaped
    quotes: 40 KB took 8.5 s)."""
    stack = [(doc, 1)]
    while stack:
        v, depth = stack.pop()
        if isinstance(v, (list, dict)):
            if depth > MAX_DEPTH:
                raise Refused("nesting deeper than %d" % MAX_DEPTH)
            for x in (v.values() if isinstance(v, dict) else v):
                if isinstance(x, (list, dict)):
                    stack.append((x, depth + 1))


def _no_constant(name):
    raise Refused("non-finite number %s" % name)


def read_ir(path):
    with open(path, "rb") as f:
        if not stat.S_ISREG(os.fstat(f.fileno()).st_mode):
            raise Refused("not a regular file")
        data = f.read(MAX_FILE + 1)
    if len(data) > MAX_FILE:
        raise Refused("larger than %d bytes" % MAX_FILE)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise Refused("not UTF-8")
    try:
        doc = json.loads(text, parse_constant=_no_constant)
    except RecursionError:
        raise Refused("nesting deeper than %d" % MAX_DEPTH)
    except ValueError as e:
        raise Refused("not JSON (%s)" % printable(e, 100))
    check_depth(doc)
    return doc


INT_LIMIT = 1 << 63  # an IR integer fits int64 (tlmpi writes no other)


def is_int(x):
    return (isinstance(x, int) and not isinstance(x, bool)
            and -INT_LIMIT <= x < INT_LIMIT)


def is_num(x):
    return is_int(x) or (isinstance(x, float) and math.isfinite(x))


def tensor_bytes(dims, strides, elsize, where):
    if (not isinstance(dims, list) or len(dims) > MAX_DIMS
            or not all(is_int(d) and 0 <= d <= MAX_DIM for d in dims)):
        raise Refused("%s: bad dims" % where)
    if (not isinstance(strides, list) or len(strides) != len(dims)
            or not all(is_int(s) and 0 <= s <= MAX_STRIDE for s in strides)):
        raise Refused("%s: bad strides" % where)
    if any(d == 0 for d in dims):
        return 0
    n = (1 + sum((d - 1) * s for d, s in zip(dims, strides))) * elsize
    if n > MAX_TENSOR_BYTES:
        raise Refused("%s: tensor of %d bytes (cap %d)"
                      % (where, n, MAX_TENSOR_BYTES))
    return n


def check_scalar(v, kind, where):
    lim = MAX_TENSOR_BYTES // 8
    if kind == "":
        ok = v is None
    elif kind == "Scalar":
        ok = isinstance(v, bool) or (is_num(v) and abs(v) <= lim
                                     if is_int(v) else is_num(v))
    else:
        ok = (isinstance(v, list) and len(v) <= MAX_SCALAR_LIST and all(
            isinstance(x, bool) or is_num(x) for x in v))
        if ok:
            prod = 1
            for x in v:
                if is_int(x) and x:
                    prod *= abs(x)
            ok = prod <= lim
    if not ok:
        raise Refused("%s: bad %s value" % (where, kind or "None"))


def check_args(a, where):
    """Re-checks an ok op's four arrays; returns its storage bytes."""
    if not isinstance(a, dict) or sorted(a) != sorted(ARG_KEYS):
        raise Refused("%s: args must have exactly the keys %s"
                      % (where, ", ".join(ARG_KEYS)))
    dims, types, strides, conc = (a[k] for k in ARG_KEYS)
    if not all(isinstance(x, list) for x in (dims, types, strides, conc)):
        raise Refused("%s: args must be lists" % where)
    n = len(types)
    if n > MAX_ARGS or any(len(x) != n for x in (dims, strides, conc)):
        raise Refused("%s: argument arrays of unequal length" % where)
    total = 0
    ldt = next((t for t in types if isinstance(t, str) and t in DTYPES),
               LIST_DTYPE)
    for i in range(n):
        w = "%s arg %d" % (where, i)
        t = types[i]
        if not isinstance(t, str) or (t not in DTYPES and
                                      t not in OTHER_TYPES):
            raise Refused("%s: unknown type" % w)
        if t in DTYPES or t == "TensorList":
            if conc[i] is not None:
                raise Refused("%s: tensor with a value" % w)
            if t == "TensorList":
                d, s = dims[i], strides[i]
                if (not isinstance(d, list) or not isinstance(s, list)
                        or not d or len(d) > MAX_LIST or len(d) != len(s)):
                    raise Refused("%s: bad tensor list" % w)
                total += sum(tensor_bytes(x, y, DTYPES[ldt][1], w)
                             for x, y in zip(d, s))
            else:
                total += tensor_bytes(dims[i], strides[i], DTYPES[t][1], w)
        else:
            if dims[i] != [] or strides[i] != []:
                raise Refused("%s: dims on a scalar" % w)
            check_scalar(conc[i], t, w)
    if total > MAX_OP_BYTES:
        raise Refused("%s: %d bytes of tensors (cap %d)"
                      % (where, total, MAX_OP_BYTES))
    return total


def check_ir(doc):
    if not isinstance(doc, dict) or sorted(doc) != ["format", "ops"]:
        raise Refused("top level must be {\"format\", \"ops\"}")
    if doc["format"] != FORMAT:
        raise Refused("format is not %s" % FORMAT)
    ops = doc["ops"]
    if not isinstance(ops, list) or len(ops) > MAX_OPS:
        raise Refused("ops must be a list")
    for k, op in enumerate(ops):
        where = "ops[%d]" % k
        if not isinstance(op, dict) or sorted(op) != sorted(OP_KEYS):
            raise Refused("%s: keys must be exactly %s"
                          % (where, ", ".join(OP_KEYS)))
        st, src = op["status"], op["source"]
        if st not in REASONS:
            raise Refused("%s: unknown status" % where)
        if (not isinstance(src, dict) or sorted(src) != ["trace", "uid"]
                or not isinstance(src["trace"], str)
                or not is_int(src["uid"]) or not is_int(op["count"])
                or not isinstance(op["op_name"], str)):
            raise Refused("%s: bad op_name, count or source" % where)
        m = op["trace_kernel_us_mean"]
        if m is not None and not is_num(m):
            raise Refused("%s: bad trace_kernel_us_mean" % where)
        if st == "ok":
            if not name_ok(op["op_name"]):
                raise Refused("%s: op name outside the grammar, "
                              "namespace or deny-list" % where)
            check_args(op["args"], where)
        elif op["args"] is not None:
            check_args(op["args"], where)
    return ops


# ------------------------------------------------------------ schemas
def split_top(s, sep=","):
    out, depth, cur = [], 0, []
    for c in s:
        if c in "([":
            depth += 1
        elif c in ")]":
            depth -= 1
        if c == sep and depth == 0:
            out.append("".join(cur))
            cur = []
        else:
            cur.append(c)
    out.append("".join(cur))
    return out


def parse_schema(text):
    """[(type, name, kwarg_only)] of a schema's str(); None if odd."""
    lp = text.find("(")
    rp = text.rfind(") ->")
    if lp < 0 or rp < lp:
        return None
    body = text[lp + 1:rp].strip()
    args, kw = [], False
    if not body:
        return args
    for piece in split_top(body):
        piece = piece.strip()
        if piece == "*":
            kw = True
            continue
        left = split_top(piece, "=")[0].strip()
        cut = left.rfind(" ")
        if cut <= 0:
            return None
        args.append((left[:cut].strip(), left[cut + 1:], kw))
    return args


_TENSOR_T = re.compile(r"\ATensor(\([a-z]!?\))?\Z")
_TLIST_T = re.compile(r"\ATensor(\([a-z]!?\))?\??(\([a-z]!?\))?\[\]\Z")
_INTLIST_T = re.compile(r"\A(int|SymInt)\[\d*\]\Z")
_BOOLLIST_T = re.compile(r"\Abool\[\d*\]\Z")
_FLOATLIST_T = re.compile(r"\Afloat\[\d*\]\Z")


def match_arg(ty, pt, cv):
    """The value kind for schema type ty and recorded (pt, cv), or None.

    Kinds: ('none',), ('tensor',), ('tlist',), ('val', python value)."""
    if ty.endswith("?"):
        if pt == "":
            return ("val", None)
        if pt == "ScalarList" and cv == []:
            return ("val", [])
        ty = ty[:-1]
    if _TENSOR_T.match(ty):
        return ("tensor",) if pt in DTYPES else None
    if _TLIST_T.match(ty):
        return ("tlist",) if pt == "TensorList" else None
    if pt == "Scalar":
        if ty == "bool":
            return ("val", cv) if isinstance(cv, bool) else None
        if ty in ("int", "SymInt"):
            return ("val", cv) if is_int(cv) else None
        if ty == "float":
            return ("val", float(cv)) if is_num(cv) else None
        if ty == "Scalar":
            return ("val", cv) if (is_num(cv) or isinstance(cv, bool)) \
                else None
        return None
    if pt == "ScalarList" and isinstance(cv, list):
        if _INTLIST_T.match(ty):
            return ("val", cv) if all(is_int(x) for x in cv) and cv \
                else None
        if _BOOLLIST_T.match(ty):
            return ("val", cv) if all(isinstance(x, bool) for x in cv) \
                and cv else None
        if _FLOATLIST_T.match(ty):
            return ("val", [float(x) for x in cv]) \
                if all(is_num(x) for x in cv) and cv else None
    return None


def resolve(torch, name, a):
    """(schema, [(arg type, arg name, kwarg_only, kind)]) or None."""
    types, conc = a["Input type"], a["Concrete Inputs"]
    for sch in torch._C._jit_get_schemas_for_operator(name):
        try:
            args = parse_schema(str(sch))
            if args is None or len(args) != len(types):
                continue
            kinds = [match_arg(t, pt, cv)
                     for (t, _, _), pt, cv in zip(args, types, conc)]
            if all(k is not None for k in kinds):
                return sch, [(t, n, kw, k)
                             for (t, n, kw), k in zip(args, kinds)]
        except Exception:  # one odd schema never stops the search
            continue
    return None


# ------------------------------------------------------------ tensors
def make_tensor(torch, dims, strides, dt, device):
    attr, _, kind = DTYPES[dt]
    dtype = getattr(torch, attr, None)
    if dtype is None:
        raise LookupError("dtype %s not in this torch" % dt)
    if any(d == 0 for d in dims):
        return torch.empty_strided(dims, strides, dtype=dtype, device=device)
    n = 1 + sum((d - 1) * s for d, s in zip(dims, strides))
    base = torch.empty(n, dtype=dtype, device=device)
    if kind in "fc":
        base.normal_()
    elif kind == "b":
        base.random_(0, 2)
    else:
        base.zero_()  # a valid index into any dimension
    return base.as_strided(dims, strides)


def build_args(torch, plan, a, device):
    pos, kw = [], {}
    dims, types, strides = (a["Input Dims"], a["Input type"],
                            a["Input Strides"])
    ldt = next((t for t in types if t in DTYPES), LIST_DTYPE)
    for i, (_, name, kwonly, kind) in enumerate(plan):
        if kind[0] == "tensor":
            v = make_tensor(torch, dims[i], strides[i], types[i], device)
        elif kind[0] == "tlist":
            v = [make_tensor(torch, d, s, ldt, device)
                 for d, s in zip(dims[i], strides[i])]
        else:
            v = kind[1]
        if kwonly:
            kw[name] = v
        else:
            pos.append(v)
    return pos, kw


# ------------------------------------------------------------ timing
def time_op(torch, fn, pos, kw, device, warmup, iters):
    cuda = device.startswith("cuda")
    fn(*pos, **kw)
    for _ in range(warmup):
        fn(*pos, **kw)
    if cuda:
        torch.cuda.synchronize()
        t0 = torch.cuda.Event(enable_timing=True)
        t1 = torch.cuda.Event(enable_timing=True)
        t0.record()
    w0 = time.perf_counter()
    for _ in range(iters):
        fn(*pos, **kw)
    if cuda:
        t1.record()
        torch.cuda.synchronize()
        return t0.elapsed_time(t1) * 1e3 / iters
    return (time.perf_counter() - w0) * 1e6 / iters


def tracelens_arg(plan_item, i, a, op_name):
    ty, name, _, kind = plan_item
    if kind[0] == "tensor":
        init = "normal"
        if op_name == "aten::fill_" or (op_name == "aten::copy_"
                                        and name != "src"):
            init = None
        v = {"shape": a["Input Dims"][i], "dtype": a["Input type"][i],
             "strides": a["Input Strides"][i], "init": init}
    else:
        v = kind[1]
    return {"arg_name": name, "arg_type": ty, "value": v}


def tracelens_entry(op, plan):
    a = op["args"]
    if any(k[3][0] == "tlist" for k in plan) or any(
            a["Input type"][i] not in TRACELENS_DTYPES
            for i, k in enumerate(plan) if k[3][0] == "tensor"):
        return None  # TraceLens's runner cannot build these
    pos = [tracelens_arg(p, i, a, op["op_name"])
           for i, p in enumerate(plan) if not p[2]]
    kw = [tracelens_arg(p, i, a, op["op_name"])
          for i, p in enumerate(plan) if p[2]]
    return {"op_name": op["op_name"],
            "replay_ir": {"list_pos_args": pos, "list_kwargs": kw},
            "count": op["count"]}


# ------------------------------------------------------------ main
def run_op(torch, op, device, args, stats):
    name = op["op_name"]
    row = {"overload": "", "replay_us_mean": ""}
    if not torch._C._jit_get_schemas_for_operator(name):
        row["status"] = "no_such_operator"
        return row, None
    found = resolve(torch, name, op["args"])
    if found is None:
        row["status"] = "no_matching_schema"
        return row, None
    sch, plan = found
    row["overload"] = sch.overload_name or "default"
    try:
        fn = torch._C._get_operation_overload(name, sch.overload_name)[0]
        pos, kw = build_args(torch, plan, op["args"], device)
    except Exception as e:
        row["status"] = "build_failed"
        row["detail"] = e
        return row, plan
    try:
        t_call = time.perf_counter()
        us = time_op(torch, fn, pos, kw, device, args.warmup, args.iters)
        stats["in_op"] += time.perf_counter() - t_call
    except Exception as e:
        stats["in_op"] += time.perf_counter() - t_call
        row["status"] = "call_failed"
        row["detail"] = e
        return row, plan
    row["status"] = "ok"
    row["replay_us_mean"] = "%.3f" % us
    return row, plan


def parse_cli(argv):
    p = argparse.ArgumentParser(
        prog="tlmpi_replay.py",
        description="Replays the ops of a tlmpi replay_events.json with "
                    "random inputs and times them.")
    p.add_argument("ir", help="replay_events.json (tlmpi.replay.v1)")
    p.add_argument("--version", action="version",
                     version="%(prog)s " + __version__)
    p.add_argument("--device", choices=("cpu", "cuda"), default="cuda")
    p.add_argument("--warmup", type=int, default=5)
    p.add_argument("--iters", type=int, default=20)
    p.add_argument("--op-filter", default=None,
                   help="only ops whose name contains this text")
    p.add_argument("--op-limit", type=int, default=None,
                   help="at most this many ops")
    p.add_argument("--output", default=None, help="CSV (default stdout)")
    p.add_argument("--tracelens_ir", default=None,
                   help="also write TraceLens's event_replay_ir.json")
    a = p.parse_args(argv)
    if a.warmup < 0 or a.iters < 1 or (a.op_limit is not None
                                       and a.op_limit < 0):
        p.error("--warmup >= 0, --iters >= 1, --op-limit >= 0")
    return a


def select(ops, args):
    out = [op for op in ops
           if args.op_filter is None or args.op_filter in op["op_name"]]
    return out if args.op_limit is None else out[:args.op_limit]


def write_atomic(path, text):
    """text (str) to path, complete or not at all: a temporary beside it,
    UTF-8 with the strict encoder, fsync, rename; stdout when no path."""
    data = text.encode("utf-8")  # strict: fails before any byte is written
    if not path:
        sys.stdout.write(text)
        return
    tmp = "%s.tlmpi-replay-%d.tmp" % (path, os.getpid())
    try:
        with open(tmp, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def write_csv(rows, path):
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(CSV_COLS)
    for r in rows:
        w.writerow([csv_cell(r.get(c, "")) for c in CSV_COLS])
    write_atomic(path, buf.getvalue())


def main(argv):
    args = parse_cli(argv)
    try:
        ops = select(check_ir(read_ir(args.ir)), args)
    except (Refused, OSError) as e:
        print("tlmpi_replay.py: %s: refused: %s"
              % (printable(args.ir), printable(e)), file=sys.stderr)
        return 2
    except (ValueError, TypeError, KeyError, OverflowError, RecursionError,
            MemoryError) as e:  # any other malformed value: never a traceback
        print("tlmpi_replay.py: %s: refused: malformed value (%s)"
              % (printable(args.ir), type(e).__name__), file=sys.stderr)
        return 2
    import torch  # only after the whole file checked
    device = args.device
    if device == "cuda" and not torch.cuda.is_available():
        print("tlmpi_replay.py: no CUDA device: use --device cpu",
              file=sys.stderr)
        return 2
    torch.manual_seed(0)
    rows, tl, stats = [], [], {"in_op": 0.0, "total": 0.0}
    for op in ops:
        row = {"op_name": op["op_name"], "uid": op["source"]["uid"],
               "trace_kernel_us_mean": "" if op["trace_kernel_us_mean"]
               is None else op["trace_kernel_us_mean"]}
        if op["status"] != "ok":
            row["status"] = op["status"]
        elif not namespace_ok(op["op_name"]):
            row["status"] = "namespace_not_allowed"
        else:
            t0 = time.perf_counter()
            with torch.no_grad():
                r, plan = run_op(torch, op, device, args, stats)
            stats["total"] += time.perf_counter() - t0
            row.update(r)
            if plan is not None and args.tracelens_ir:
                e = tracelens_entry(op, plan)
                if e is not None:
                    tl.append(e)
            if r.get("detail") is not None:
                print("tlmpi_replay.py: %s (uid %s): %s: %s"
                      % (printable(op["op_name"]), row["uid"], r["status"],
                         printable(r["detail"], 300)), file=sys.stderr)
        m = row["trace_kernel_us_mean"]
        if row.get("replay_us_mean") and m not in ("", 0, 0.0):
            row["ratio"] = "%.4f" % (float(row["replay_us_mean"]) / m)
        rows.append(row)
    try:
        write_csv(rows, args.output)
        if args.tracelens_ir:
            write_atomic(args.tracelens_ir, json.dumps(tl, indent=2) + "\n")
    except (OSError, UnicodeError) as e:
        print("tlmpi_replay.py: %s: cannot write: %s"
              % (printable(args.output or args.tracelens_ir or "stdout"),
                 printable(e)), file=sys.stderr)
        return 1
    n_ok = sum(1 for r in rows if r["status"] == "ok")
    n_run = sum(1 for op in ops if op["status"] == "ok"
                and namespace_ok(op["op_name"]))
    over = (stats["total"] - stats["in_op"]) / n_run * 1e3 if n_run else 0
    print("tlmpi_replay.py: %d ops, %d ok in the file, %d replayed ok; "
          "runner overhead %.3f ms/op (excluding the op calls)"
          % (len(rows), n_run, n_ok, over), file=sys.stderr)
    return 0 if n_ok == n_run else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
