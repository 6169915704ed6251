#!/usr/bin/python3
"""The layers of src/ point one way (docs/architecture.md, "Layers").

  layers_check.py SOURCE_DIR BUILD_DIR

The layers and what each may use come from CMakeLists.txt (the
`tlm_layer(<name> DEPS tlm_<a> tlm_<b> ...)` lines, closed transitively);
the owner layer of each public header from the map's table of
include/tlmpi/.  Fails (one line per problem) when
  - a layer's library leaves undefined a symbol, whatever its name, that
    another layer defines and that is not in the layers it may use;
  - a layer's library calls MPI or HDF5;
  - a file of src/<layer>/ includes the public header of a layer it may
    not use (or a public header the map gives no owner);
  - a layer has no library and no headers.
The build already refuses a private header of a layer above (include
paths follow the link dependencies).
"""
import os
import re
import subprocess
import sys

SRC, BUILD = sys.argv[1], sys.argv[2]
problems = []


def layers():
    """{layer: set of direct deps} from CMakeLists.txt."""
    text = open(os.path.join(SRC, "CMakeLists.txt"), encoding="utf-8").read()
    out = {}
    for m in re.finditer(r"^tlm_layer\((\w+)([^)]*)\)", text, re.M):
        out[m.group(1)] = set(re.findall(r"\btlm_(\w+)", m.group(2)))
    return out


def closure(deps):
    full = {}
    for l in deps:
        seen, stack = set(), list(deps[l])
        while stack:
            d = stack.pop()
            if d not in seen:
                seen.add(d)
                stack.extend(deps.get(d, ()))
        full[l] = seen
    return full


def symbols(lib, *flags):
    r = subprocess.run(["nm", *flags, lib], capture_output=True, text=True)
    out = set()
    for line in r.stdout.splitlines():
        f = line.split()
        if flags[0] == "-u" and len(f) == 2 and f[0] == "U":
            out.add(f[1])
        elif flags[0] != "-u" and len(f) == 3 and f[1] in "TDBRCVW":
            out.add(f[2])
    return out


def header_owners():
    """{public header: layer} from the map's include/tlmpi/ table."""
    owners, inside = {}, False
    for line in open(os.path.join(SRC, "docs", "architecture.md"),
                     encoding="utf-8"):
        if line.startswith("#"):
            inside = "`include/tlmpi/`" in line
        elif inside and line.startswith("|"):
            cs = [c.strip() for c in line.strip().strip("|").split("|")]
            names = re.findall(r"`(tlm_\w+\.h)(?:\.in)?`", cs[0])
            if len(cs) > 1 and names:
                for n in names:
                    owners[n] = cs[1].strip("`")
    return owners


deps = layers()
full = closure(deps)
libs = {l: os.path.join(BUILD, f"libtlm_{l}.a") for l in deps}
defs = {l: symbols(p, "--defined-only", "-g") for l, p in libs.items()
        if os.path.exists(p)}
owner_of = {}
for l, ds in defs.items():
    for s in ds:
        owner_of.setdefault(s, l)
for l in sorted(deps):
    folder = os.path.join(SRC, "src", l)
    if l not in defs:
        if not os.path.isdir(folder) or not any(
                n.endswith(".h") for n in os.listdir(folder)):
            problems.append(f"{l}: no library {libs[l]} and no headers")
        continue
    allowed = {l} | full[l]
    undef = symbols(libs[l], "-u")
    bad = sorted(s for s in undef - defs[l]
                 if s in owner_of and owner_of[s] not in allowed)
    if bad:
        problems.append(f"{l} uses symbols of layers it may not use: " +
                        " ".join(f"{s} ({owner_of[s]})" for s in bad[:20]))
    mpi = sorted(s for s in undef if re.match(r"^(P?MPI_|ompi_|H5)", s))
    if mpi:
        problems.append(f"{l} calls MPI/HDF5: {' '.join(mpi[:10])}")
    print(f"ok   {l} may use: {' '.join(sorted(full[l])) or '-'}"
          if not bad and not mpi else f"FAIL {l}")

owners = header_owners()
for h in sorted(os.listdir(os.path.join(SRC, "include", "tlmpi"))):
    name = h[:-3] if h.endswith(".h.in") else h
    if name not in owners:
        problems.append(f"include/tlmpi/{h}: the map names no owner layer")
for l in sorted(deps):
    folder = os.path.join(SRC, "src", l)
    if not os.path.isdir(folder):
        continue
    allowed = {l} | full[l]
    for n in sorted(os.listdir(folder)):
        if not n.endswith((".c", ".h")):
            continue
        text = open(os.path.join(folder, n), encoding="utf-8").read()
        for h in re.findall(r'#\s*include\s+"tlmpi/(tlm_\w+\.h)"', text):
            o = owners.get(h)
            if o is not None and o != "all" and o not in allowed:
                problems.append(f"src/{l}/{n} includes {h} of layer {o}, "
                                f"above or beside {l}")
for p in problems:
    print("FAIL", p)
sys.exit(1 if problems else 0)
