#!/bin/bash
# The runner's logic without torch (spec replay.md §10.4): schema text
# parsing, the match of recorded arguments to schema types (the cases of
# §3 and the qwen/resnet examples, schemas given as text with a fake
# registry), the overload search that skips odd candidates, TraceLens's
# IR form (§4.2), and the file checks (§11 S6/S7).  Runs
# scripts/tlmpi_replay.py as a module under /usr/bin/python3 -I.
set -u
SRC="${TLM_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}"
PY=/usr/bin/python3
[ -x "$PY" ] || { echo "no $PY: skipped"; exit 77; }
exec "$PY" -I - "$SRC/scripts/tlmpi_replay.py" <<'PYEOF'
import importlib.util, json, sys, unittest

spec = importlib.util.spec_from_file_location("tlmpi_replay", sys.argv[1])
R = importlib.util.module_from_spec(spec)
spec.loader.exec_module(R)
assert "torch" not in sys.modules, "the runner imported torch at load time"

MM = "aten::mm(Tensor self, Tensor mat2) -> Tensor"
ADDMM = ("aten::addmm(Tensor self, Tensor mat1, Tensor mat2, *, "
         "Scalar beta=1, Scalar alpha=1) -> Tensor")
MEAN = ("aten::mean.dim(Tensor self, int[1]? dim, bool keepdim=False, *, "
        "ScalarType? dtype=None) -> Tensor")
SDPA = ("aten::_scaled_dot_product_flash_attention(Tensor query, Tensor key, "
        "Tensor value, float dropout_p=0., bool is_causal=False, "
        "bool return_debug_mask=False, *, float? scale=None) -> "
        "(Tensor output, Tensor logsumexp)")
FLASH = ("aten::_flash_attention_forward(Tensor query, Tensor key, "
         "Tensor value, Tensor? cum_seq_q, Tensor? cum_seq_k, SymInt max_q, "
         "SymInt max_k, float dropout_p, bool is_causal, "
         "bool return_debug_mask, *, float? scale=None, "
         "SymInt? window_size_left=None, SymInt? window_size_right=None, "
         "Tensor? seqused_k=None, Tensor? alibi_slopes=None) -> "
         "(Tensor output, Tensor softmax_logsumexp)")


class Sch:
    def __init__(self, text, ov=""):
        self.text, self.overload_name = text, ov

    def __str__(self):
        return self.text


class FakeTorch:
    class _C:
        reg = {}

        @staticmethod
        def _jit_get_schemas_for_operator(name):
            return FakeTorch._C.reg.get(name, [])


def args(dims, types, strides, conc):
    return {"Input Dims": dims, "Input type": types, "Input Strides": strides,
            "Concrete Inputs": conc}


class Schema(unittest.TestCase):
    def test_parse(self):
        self.assertEqual(R.parse_schema(MM),
                         [("Tensor", "self", False), ("Tensor", "mat2", False)])
        p = R.parse_schema(ADDMM)
        self.assertEqual([a[2] for a in p], [False] * 3 + [True] * 2)
        self.assertEqual(p[3], ("Scalar", "beta", True))
        # TraceLens quirks fixed: a default with a comma, a type with a space
        p = R.parse_schema("aten::fft_ihfft2(Tensor self, int[1]? s=None, "
                           "int[1] dim=[-2, -1], str? norm=None) -> Tensor")
        self.assertEqual([a[0] for a in p],
                         ["Tensor", "int[1]?", "int[1]", "str?"])
        p = R.parse_schema("aten::f(Dict(str, Tensor) d, Tensor(a!) out) -> ()")
        self.assertEqual(p, [("Dict(str, Tensor)", "d", False),
                             ("Tensor(a!)", "out", False)])
        self.assertEqual(R.parse_schema("aten::g() -> Tensor"), [])
        self.assertIsNone(R.parse_schema("garbage"))

    def test_match(self):
        m = R.match_arg
        self.assertEqual(m("Tensor", "c10::BFloat16", None), ("tensor",))
        self.assertEqual(m("Tensor(a!)", "long int", None), ("tensor",))
        self.assertEqual(m("Tensor(a)", "unsigned char", None), ("tensor",))
        self.assertIsNone(m("Tensor", "Scalar", 1))
        self.assertEqual(m("Tensor?", "", None), ("val", None))
        self.assertEqual(m("Tensor[]", "TensorList", None), ("tlist",))
        self.assertEqual(m("Tensor?[]", "TensorList", None), ("tlist",))
        self.assertEqual(m("bool", "Scalar", True), ("val", True))
        self.assertIsNone(m("bool", "Scalar", 1))
        self.assertEqual(m("int", "Scalar", -1), ("val", -1))
        self.assertIsNone(m("int", "Scalar", True))
        self.assertIsNone(m("int", "Scalar", 1.5))
        self.assertEqual(m("SymInt", "Scalar", 559), ("val", 559))
        self.assertEqual(m("SymInt?", "Scalar", 559), ("val", 559))
        self.assertEqual(m("float", "Scalar", 1), ("val", 1.0))
        self.assertEqual(m("Scalar", "Scalar", 1), ("val", 1))  # stays int
        self.assertEqual(m("Scalar", "Scalar", True), ("val", True))
        self.assertEqual(m("int[1]?", "ScalarList", [-1]), ("val", [-1]))
        self.assertEqual(m("int[1]?", "ScalarList", []), ("val", []))
        self.assertIsNone(m("int[]", "ScalarList", []))
        self.assertEqual(m("SymInt[]", "ScalarList", [1, 2]), ("val", [1, 2]))
        self.assertIsNone(m("int[]", "ScalarList", [1, True]))
        self.assertEqual(m("bool[3]", "ScalarList", [True, False, True]),
                         ("val", [True, False, True]))
        self.assertEqual(m("float[]", "ScalarList", [1, 0.5]),
                         ("val", [1.0, 0.5]))
        for ty in ("str", "Device", "Layout", "Generator", "t", "Any",
                   "Storage", "ScalarType", "MemoryFormat", "Dict(str, t)"):
            self.assertIsNone(m(ty, "Scalar", 1), ty)
        self.assertEqual(m("MemoryFormat?", "", None), ("val", None))

    def test_resolve(self):
        reg = FakeTorch._C.reg
        reg.clear()
        reg["aten::mm"] = [Sch(MM), Sch("aten::mm.out(Tensor self, Tensor "
                                        "mat2, *, Tensor(a!) out) -> "
                                        "Tensor(a!)", "out")]
        a = args([[8944, 1024], [1024, 2816]], ["c10::BFloat16"] * 2,
                 [[1024, 1], [1, 1024]], [None, None])
        sch, plan = R.resolve(FakeTorch, "aten::mm", a)
        self.assertEqual(sch.overload_name, "")
        self.assertEqual([p[3] for p in plan], [("tensor",)] * 2)
        # an unparsable or Tensor-list candidate never stops the search
        reg["aten::eq"] = [
            Sch("aten::eq.Tensor_list(Tensor[] a, Tensor[] b) -> bool",
                "Tensor_list"),
            Sch("aten::eq.broken(", "broken"),
            Sch("aten::eq.Tensor(Tensor self, Tensor other) -> Tensor",
                "Tensor"),
            Sch("aten::eq.Scalar(Tensor self, Scalar other) -> Tensor",
                "Scalar")]
        sch, plan = R.resolve(FakeTorch, "aten::eq",
                              args([[4], []], ["long int", "Scalar"],
                                   [[1], []], [None, 0]))
        self.assertEqual(sch.overload_name, "Scalar")
        reg["aten::mean"] = [Sch(MEAN, "dim")]
        sch, plan = R.resolve(FakeTorch, "aten::mean", args(
            [[16, 559, 1024], [], [], []],
            ["float", "ScalarList", "Scalar", ""],
            [[572416, 1024, 1], [], [], []], [None, [-1], True, None]))
        self.assertEqual([p[3] for p in plan],
                         [("tensor",), ("val", [-1]), ("val", True),
                          ("val", None)])
        self.assertEqual([p[2] for p in plan], [False, False, False, True])
        # the spec's SDPA example (torch 2.6 schema text)
        reg["aten::_scaled_dot_product_flash_attention"] = [Sch(SDPA)]
        q = [16, 16, 559, 64]
        qs = [572416, 35776, 64, 1]
        sch, plan = R.resolve(
            FakeTorch, "aten::_scaled_dot_product_flash_attention",
            args([q, q, q, [], [], [], []],
                 ["c10::BFloat16"] * 3 + ["Scalar"] * 4,
                 [qs, qs, qs, [], [], [], []],
                 [None, None, None, 0.0, True, False, 0.125]))
        self.assertEqual(plan[6], ("float?", "scale", True, ("val", 0.125)))
        # _flash_attention_forward: TraceLens's runner can never run it
        reg["aten::_flash_attention_forward"] = [Sch(FLASH)]
        k = [16, 559, 16, 64]
        ks = [572416, 64, 35776, 1]
        sch, plan = R.resolve(
            FakeTorch, "aten::_flash_attention_forward",
            args([k, k, k] + [[]] * 12,
                 ["c10::BFloat16"] * 3 + ["", ""] + ["Scalar"] * 6 +
                 [""] * 4, [ks, ks, ks] + [[]] * 12,
                 [None] * 5 + [559, 559, 0.0, True, False, 0.125] +
                 [None] * 4))
        self.assertEqual(plan[3][3], ("val", None))
        self.assertEqual(plan[5][3], ("val", 559))
        self.assertEqual(sum(1 for p in plan if p[2]), 5)
        e = R.tracelens_entry({"op_name": "aten::_flash_attention_forward",
                               "count": 24, "args": args(
            [k, k, k] + [[]] * 12, ["c10::BFloat16"] * 3 + ["", ""] +
            ["Scalar"] * 6 + [""] * 4, [ks, ks, ks] + [[]] * 12,
            [None] * 5 + [559, 559, 0.0, True, False, 0.125] + [None] * 4)},
            plan)
        self.assertEqual(list(e), ["op_name", "replay_ir", "count"])
        t = e["replay_ir"]["list_pos_args"][0]
        self.assertEqual(t, {"arg_name": "query", "arg_type": "Tensor",
                             "value": {"shape": k, "dtype": "c10::BFloat16",
                                       "strides": ks, "init": "normal"}})
        self.assertEqual(list(t["value"]), ["shape", "dtype", "strides",
                                            "init"])
        self.assertEqual(len(e["replay_ir"]["list_kwargs"]), 5)
        # no schema fits: None (a str argument never matches)
        reg["aten::gelu"] = [Sch("aten::gelu(Tensor self, *, str approximate"
                                 "='none') -> Tensor")]
        self.assertIsNone(R.resolve(FakeTorch, "aten::gelu", args(
            [[4], []], ["float", ""], [[1], []], [None, None])))

    def test_copy_dest_uninitialised_in_tracelens_ir(self):
        plan = [("Tensor(a!)", "self", False, ("tensor",)),
                ("Tensor", "src", False, ("tensor",)),
                ("bool", "non_blocking", False, ("val", False))]
        e = R.tracelens_entry({"op_name": "aten::copy_", "count": 1,
                               "args": args([[4], [4], []],
                                            ["float", "float", "Scalar"],
                                            [[1], [1], []],
                                            [None, None, False])}, plan)
        v = [a["value"] for a in e["replay_ir"]["list_pos_args"]]
        self.assertIsNone(v[0]["init"])
        self.assertEqual(v[1]["init"], "normal")
        # integer tensors: TraceLens's runner cannot build them
        self.assertIsNone(R.tracelens_entry(
            {"op_name": "aten::copy_", "count": 1, "args": args(
                [[4], [4], []], ["long int", "float", "Scalar"],
                [[1], [1], []], [None, None, False])}, plan))


GOOD = {"op_name": "aten::mm", "count": 1,
        "source": {"trace": "t", "uid": 3}, "trace_kernel_us_mean": 5.0,
        "args": args([[4, 4], [4, 4]], ["float", "float"],
                     [[4, 1], [4, 1]], [None, None]), "status": "ok"}


def doc(*ops):
    return {"format": "tlmpi.replay.v1", "ops": [json.loads(json.dumps(o))
                                                 for o in ops]}


class Checks(unittest.TestCase):
    def refused(self, d):
        with self.assertRaises(R.Refused):
            R.check_ir(d)

    def test_good(self):
        self.assertEqual(len(R.check_ir(doc(GOOD))), 1)

    def test_refusals(self):
        for edit in (
                lambda o: o.update(op_name="builtins::eval"),
                lambda o: o.update(op_name="aten::save"),
                lambda o: o.update(op_name="c10d::allreduce_"),
                lambda o: o.update(op_name="aten::__init__"),
                lambda o: o.update(op_name="aten::mm; import os"),
                lambda o: o.update(extra=1),
                lambda o: o.pop("count"),
                lambda o: o.update(count=True),
                lambda o: o.update(status="fine"),
                lambda o: o["source"].update(path="/etc"),
                lambda o: o.update(trace_kernel_us_mean="5"),
                lambda o: o["args"].update(extra=[]),
                lambda o: o["args"]["Input type"].__setitem__(0, "str"),
                lambda o: o["args"]["Input Dims"].__setitem__(0, [-1, 4]),
                lambda o: o["args"]["Input Dims"].__setitem__(0, [4.0, 4]),
                lambda o: o["args"]["Input Dims"].__setitem__(0, [True, 4]),
                lambda o: o["args"]["Input Strides"].__setitem__(0, [4, 1, 1]),
                lambda o: (o["args"]["Input Dims"].__setitem__(
                    0, [1 << 20, 1 << 20]), o["args"]["Input Strides"]
                    .__setitem__(0, [1 << 20, 1])),  # 4 TiB
                lambda o: o["args"]["Concrete Inputs"].__setitem__(0, 1),
                lambda o: o["args"]["Input Dims"].append([4]),
        ):
            o = json.loads(json.dumps(GOOD))
            edit(o)
            self.refused(doc(o))
        self.refused({"format": "tlmpi.replay.v1", "ops": [], "x": 1})
        self.refused({"format": "tlmpi.replay.v2", "ops": []})
        self.refused([])

    def test_scalars(self):
        def with_scalar(t, v):
            o = json.loads(json.dumps(GOOD))
            a = o["args"]
            a["Input Dims"].append([])
            a["Input type"].append(t)
            a["Input Strides"].append([])
            a["Concrete Inputs"].append(v)
            return doc(o)
        R.check_ir(with_scalar("Scalar", 1))
        R.check_ir(with_scalar("Scalar", True))
        R.check_ir(with_scalar("ScalarList", [1, -1]))
        R.check_ir(with_scalar("", None))
        self.refused(with_scalar("Scalar", None))
        self.refused(with_scalar("Scalar", "1"))
        self.refused(with_scalar("Scalar", 1 << 40))
        self.refused(with_scalar("ScalarList", [100000, 100000, 100000]))
        self.refused(with_scalar("ScalarList", [[1]]))
        self.refused(with_scalar("", 1))

    def test_reading(self):
        import os, tempfile
        d = tempfile.mkdtemp()
        p = os.path.join(d, "ir.json")
        for text in ('{"format":"tlmpi.replay.v1","ops":' + "[" * 40 +
                     "]" * 40 + "}", '{"format": NaN}', "\xff\xfe",
                     '{"a":1,}'):
            with open(p, "w", encoding="latin-1") as f:
                f.write(text)
            with self.assertRaises(R.Refused):
                R.check_ir(R.read_ir(p))
        with open(p, "w") as f:
            f.write('{"format":"tlmpi.replay.v1","ops":[{"a":"[[[["}]}')
        self.assertRaises(R.Refused, lambda: R.check_ir(R.read_ir(p)))
        os.unlink(p)
        os.rmdir(d)

    def test_cells(self):
        self.assertEqual(R.csv_cell("=cmd()"), "'=cmd()")
        self.assertEqual(R.csv_cell("-1"), "-1")  # a number: tlmpi's rule
        self.assertEqual(R.csv_cell("-x"), "'-x")
        self.assertEqual(R.printable("a\x1b[31mb\n"), "a?[31mb?")

    # issue 33, cases 5, 9, 10
    def test_linear_nesting(self):
        import os, tempfile, time
        d = tempfile.mkdtemp()
        p = os.path.join(d, "ir.json")
        for text in ('{"format":"tlmpi.replay.v1","ops":["' + '\\"' * 100000
                     + '"]}', '{"ops":"' + '\\"' * 100000,
                     "[" * 100000 + "]" * 100000):
            with open(p, "w") as f:
                f.write(text)  # 200 KB: over 120 s with the token scan
            t0 = time.time()
            with self.assertRaises(R.Refused):
                R.check_ir(R.read_ir(p))
            self.assertLess(time.time() - t0, 5.0)
        os.unlink(p)
        os.rmdir(d)

    def test_huge_integers_refused(self):
        import contextlib, io, os, tempfile
        d = tempfile.mkdtemp()
        p = os.path.join(d, "ir.json")
        base = json.dumps(doc(GOOD))
        for key in ('"count": ', '"uid": ', '"trace_kernel_us_mean": '):
            i = base.index(key) + len(key)
            j = i
            while base[j] not in ",}":
                j += 1
            with open(p, "w") as f:
                f.write(base[:i] + "1" + "0" * 400 + base[j:])
            err = io.StringIO()
            with contextlib.redirect_stderr(err):
                rc = R.main([p, "--device", "cpu"])
            self.assertEqual(rc, 2, key)
            self.assertIn("refused", err.getvalue())
        os.unlink(p)
        os.rmdir(d)

    def test_csv_strict_and_whole(self):
        import os, tempfile
        d = tempfile.mkdtemp()
        p = os.path.join(d, "out.csv")
        rows = [{"op_name": "aten::mm\ud800x", "uid": 1,
                 "status": "missing_args", "trace_kernel_us_mean": 1.0}]
        R.write_csv(rows, p)
        text = open(p, encoding="utf-8").read()  # strict UTF-8
        self.assertIn("aten::mm\\ud800x", text)
        self.assertEqual(os.listdir(d), ["out.csv"])  # no temporary left
        # a failure leaves the previous file and no temporary
        bad = [{"op_name": "x", "uid": 1, "status": "ok"}]
        os.chmod(d, 0o500)
        try:
            if os.access(d, os.W_OK):  # root: a folder that does not exist
                self.assertRaises(OSError, R.write_csv, bad,
                                  os.path.join(d, "no", "out.csv"))
            else:
                self.assertRaises(OSError, R.write_csv, bad, p)
        finally:
            os.chmod(d, 0o700)
        self.assertEqual(os.listdir(d), ["out.csv"])
        self.assertIn("ud800", open(p).read())
        os.unlink(p)
        os.rmdir(d)


unittest.main(argv=["test_replay_runner"], verbosity=1)
PYEOF
