#!/usr/bin/python3
"""The map checked against the tree (docs/architecture.md, "The map").

  map_check.py SOURCE_DIR BUILD_DIR

Fails (exit 1, one line per problem) when
  - a .c, .h or .h.in file under src/, mpi/, include/ or tools/ has no row
    in docs/architecture.md: a table row of the section whose heading
    names its folder (or whose first cell is its layer's name) that names
    it in backticks in its file cell (the first cell naming a file);
  - a file is the subject of two rows (described twice);
  - the map names, anywhere in backticks, a .c/.h file that does not exist;
  - a .c file of mpi/ calls neither MPI nor HDF5 itself and does not
    define main, unless the map lists it on its "Exceptions" line (three at most);
  - the files of mpi/ call each other in a circle;
  - more than one .c file of src/ and mpi/ lists folders (opendir, nftw).
The object files come from BUILD_DIR (CMakeFiles/tlmpi-mpi.dir/mpi/*.o).
"""
import os
import re
import subprocess
import sys

SRC, BUILD = sys.argv[1], sys.argv[2]
MAP = os.path.join(SRC, "docs", "architecture.md")
TREES = ("src", "mpi", "include", "tools")
# built, not in the tree: the configured version header, the git commit,
# the generated protobuf-c code and the embedded replay runner
GENERATED = {"tlm_version.h", "tlm_git.h", "xplane.pb-c.c", "xplane.pb-c.h",
             "replay_runner_py.c"}
FILE_RE = re.compile(r"^[\w./-]+\.(c|h|h\.in)$")
problems = []


def tree_files():
    """Every source file of the mapped folders, as repo-relative paths."""
    out = []
    for top in TREES:
        for d, _, names in os.walk(os.path.join(SRC, top)):
            for n in names:
                if n.endswith((".c", ".h", ".h.in")):
                    out.append(os.path.relpath(os.path.join(d, n), SRC))
    return sorted(out)


def folder_of(path):
    """The folder a file's row belongs to: src/<layer>/, mpi/, ..."""
    return os.path.dirname(path) + "/"


def layer_of(path):
    parts = path.split("/")
    return parts[1] if parts[0] == "src" else parts[0]


def cells(line):
    return [c.strip() for c in line.strip().strip("|").split("|")]


def ticks(text):
    return re.findall(r"`([^`]+)`", text)


def parse_map():
    """(section folders, row cells) for every table row of the map."""
    rows, folders = [], []
    for line in open(MAP, encoding="utf-8"):
        if line.startswith("#"):
            folders = [t for t in ticks(line) if t.endswith("/")]
            continue
        if line.startswith("|") and not re.match(r"^\|[\s:|-]+\|?\s*$", line):
            rows.append((folders, cells(line)))
    return rows


def file_cell(cs):
    for i, c in enumerate(cs):
        if any(FILE_RE.match(t) for t in ticks(c)):
            return i
    return None


def check_rows(files):
    by_base = {}
    for f in files:
        by_base.setdefault(os.path.basename(f), []).append(f)
    named = {}
    for folders, cs in parse_map():
        i = file_cell(cs)
        if i is None:
            continue
        for t in ticks(cs[i]):
            if not FILE_RE.match(t):
                continue
            hits = [f for f in by_base.get(os.path.basename(t), [])
                    if t == f or (t == os.path.basename(f) and
                                  (folder_of(f) in folders or
                                   cs[0].strip("`") == layer_of(f)))]
            if not hits and t not in GENERATED and \
                    os.path.basename(t) not in by_base:
                problems.append(f"map: row names `{t}`, not a file of "
                                f"{' '.join(folders) or 'its section'}")
            for f in hits:
                named[f] = named.get(f, 0) + 1
    for f in files:
        if named.get(f, 0) == 0:
            problems.append(f"map: no row for {f}")
        elif named[f] > 1:
            problems.append(f"map: {f} is described by {named[f]} rows")


def check_mentions(files):
    """Every file the map names in backticks exists (anywhere tracked)."""
    known = {os.path.basename(f) for f in files} | set(files) | GENERATED
    for d in ("tests", "scripts", "cmake"):
        for dd, _, names in os.walk(os.path.join(SRC, d)):
            for n in names:
                known.add(n)
                known.add(os.path.relpath(os.path.join(dd, n), SRC))
    text = open(MAP, encoding="utf-8").read()
    for t in sorted(set(ticks(text))):
        if FILE_RE.match(t) and t not in known and \
                os.path.basename(t) not in known:
            problems.append(f"map: names `{t}`, which does not exist")


def nm(obj, *flags):
    r = subprocess.run(["nm", *flags, obj], capture_output=True, text=True)
    return r.stdout.splitlines()


def mpi_objects():
    d = os.path.join(BUILD, "CMakeFiles", "tlmpi-mpi.dir", "mpi")
    if not os.path.isdir(d):
        problems.append(f"build: no {d}")
        return {}
    # objects of sources that still exist (a build folder keeps old ones)
    return {n[:-2]: os.path.join(d, n) for n in sorted(os.listdir(d))
            if n.endswith(".c.o") and
            os.path.exists(os.path.join(SRC, "mpi", n[:-2]))}


def exceptions():
    for line in open(MAP, encoding="utf-8"):
        if line.startswith("Exceptions"):
            return [t for t in ticks(line) if t.endswith(".c")]
    return []


def check_mpi():
    objs = mpi_objects()
    exc = exceptions()
    if len(exc) > 3:
        problems.append(f"map: {len(exc)} exceptions in mpi/ (3 at most)")
    defs, undefs = {}, {}
    for src, o in objs.items():
        defs[src] = {l.split()[-1] for l in nm(o, "--defined-only", "-g")
                     if len(l.split()) == 3}
        undefs[src] = {l.split()[-1] for l in nm(o, "-u")}
    for src in objs:
        calls = any(re.match(r"^(P?MPI_|ompi_|H5)", s) for s in undefs[src])
        if not calls and "main" not in defs[src] and src not in exc:
            problems.append(f"mpi/{src} calls neither MPI nor HDF5 "
                            f"(move it under src/, or list it as an exception)")
    edges = {a: {b for b in objs if b != a and undefs[a] & defs[b]}
             for a in objs}
    for cyc in cycles(edges):
        problems.append("mpi/ files calling each other in a circle: " +
                        " ".join(cyc))


def cycles(edges):
    """One cycle per strongly connected component of more than one file."""
    index, low, stack, on, out, n = {}, {}, [], set(), [], [0]

    def strong(v):
        index[v] = low[v] = n[0]
        n[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(edges[v]):
            if w not in index:
                strong(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))
    for v in sorted(edges):
        if v not in index:
            strong(v)
    return out


def check_walkers():
    users = []
    for top in ("src", "mpi"):
        for d, _, names in os.walk(os.path.join(SRC, top)):
            for n in names:
                if n.endswith(".c"):
                    p = os.path.join(d, n)
                    if re.search(r"\b(opendir|fdopendir|nftw)\s*\(",
                                 open(p, encoding="utf-8").read()):
                        users.append(os.path.relpath(p, SRC))
    if len(users) > 1:
        problems.append("folders listed in more than one file: " +
                        " ".join(sorted(users)))


files = tree_files()
check_rows(files)
check_mentions(files)
check_mpi()
check_walkers()
for p in problems:
    print("FAIL", p)
print(f"{len(files)} files, {len(problems)} problems")
sys.exit(1 if problems else 0)
