#!/usr/bin/python3
"""Makes the bad inputs of `tlmpi compare` that tests/data/bad/CATALOGUE.tsv
names @compare_* (mode compare), each beside a good input of its kind:

  make_compare_bad.py NAME DIR      prints "GOOD<TAB>BAD" (paths in DIR)

Needs $TLMPI, $TLMPI_SYNTH and $MPIEXEC (a good run file is an analysis
of a small synthetic job) and h5py for the run files; exit 77 when a
tool is missing.  Cases (issue 33):
  @compare_timeline_3M      a run file whose /timeline says 3,000,000 rows
                            (resized: one stored chunk of 2 rows)
  @compare_timeline_2p62    the same with 2^62 rows
  @compare_hdf5_crash       a one-byte mutant whose compound type puts a
                            column outside its row (HDF5's conversion
                            copied out of bounds: SIGSEGV before)
  @compare_sst_bomb         a 3 MB workbook: one 4 MiB shared string used
                            by 3,000 cells
  @compare_wide_csv         a CSV folder whose ops_summary.csv has 200,000
                            columns (1.9 MB)
  @compare_csv_cells        a CSV folder whose ops_summary.csv has 8,192
                            columns and 1,100 rows of empty fields (over
                            2^23 cells)
"""
import base64
import os
import random
import re
import shutil
import subprocess
import sys
import zipfile

SRC = os.environ.get("TLM_SOURCE_DIR",
                     os.path.join(os.path.dirname(__file__), "..", ".."))


def run(*cmd):
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)


def synth(d):
    job = os.path.join(d, "job")
    if not os.path.isdir(job):
        run(os.environ["TLMPI_SYNTH"], "--out", job, "--world_size", "2",
            "--tp", "2", "--steps", "2", "--layers", "1", "--quiet")
    return job


def run_file(d):
    good = os.path.join(d, "good", "A.h5")
    if not os.path.exists(good):
        os.makedirs(os.path.dirname(good), exist_ok=True)
        run(os.environ.get("MPIEXEC", "mpirun"), "-n", "2",
            os.environ["TLMPI"], "--trace_dir", synth(d), "--output", good,
            "--quiet")
    return good


def csv_report(d):
    rep = os.path.join(d, "rep")
    if not os.path.isdir(rep):
        run(os.environ["TLMPI"], "report",
            os.path.join(synth(d), "rank0_trace.json"), "--output_csvs_dir",
            rep, "--quiet")
    return rep


def resized(d, rows, name):
    try:
        import h5py
    except ImportError:
        sys.exit(77)
    good = run_file(d)
    bad = os.path.join(d, name)
    shutil.copy(good, bad)
    with h5py.File(bad, "r+") as f:
        f["timeline"].resize((rows,))
    return good, bad


def hdf5_crash(d):
    """A column of /timeline moved far outside its 80-byte row: the
    offset field of its member in the datatype message rewritten (the
    one-byte mutants mutate_runfile.py finds do this by chance)."""
    good = run_file(d)
    data = bytearray(open(good, "rb").read())
    # the compound member "n_gpu_events" in the datatype message: its
    # name, NUL-padded to 8 bytes, then its 4-byte byte offset
    # (every dataset with that column: /timeline among them)
    name = b"n_gpu_events\0"
    at = data.find(name)
    if at < 0:
        sys.exit(77)
    while at >= 0:
        off = at + (len(name) + 7) // 8 * 8
        data[off + 3] = 0x87  # offset + 0x87000000
        at = data.find(name, at + 1)
    bad = os.path.join(d, "crash.h5")
    open(bad, "wb").write(data)
    return good, bad


def sst_bomb(d):
    rep = csv_report(d)
    good = os.path.join(d, "good.xlsx")
    subprocess.run([sys.executable,
                    os.path.join(SRC, "tests/integration/csvs_to_xlsx.py"),
                    rep, good], check=True)
    zi = zipfile.ZipFile(good)
    parts = {n: zi.read(n) for n in zi.namelist()}
    wb = parts["xl/workbook.xml"].decode()
    rels = parts["xl/_rels/workbook.xml.rels"].decode()
    rid = re.search(r'<sheet name="ops_summary" sheetId="\d+" r:id="(rId\d+)"',
                    wb).group(1)
    part = "xl/" + re.search(r'Id="%s"[^>]*Target="([^"]+)"' % rid,
                             rels).group(1)
    sst = parts["xl/sharedStrings.xml"].decode()
    nsst = sst.count("<si>")
    rnd = random.Random(1)
    blob = base64.b64encode(rnd.randbytes(3 << 20))[:4 << 20].decode()
    parts["xl/sharedStrings.xml"] = sst.replace(
        "</sst>", "<si><t>%s</t></si></sst>" % blob).encode()
    rows = "".join(
        '<row r="%d"><c r="A%d" t="inlineStr"><is><t>op%d</t></is></c>'
        '<c r="ZZ%d" t="s"><v>%d</v></c></row>' % (r, r, r, r, nsst)
        for r in range(1000, 4000))
    parts[part] = parts[part].decode().replace(
        "</sheetData>", rows + "</sheetData>").encode()
    bad = os.path.join(d, "bomb.xlsx")
    with zipfile.ZipFile(bad, "w", zipfile.ZIP_DEFLATED) as z:
        for n, b in parts.items():
            z.writestr(n, b)
    return good, bad


def wide_csv(d, cols, rows, name):
    rep = csv_report(d)
    bad = os.path.join(d, name)
    shutil.rmtree(bad, ignore_errors=True)
    shutil.copytree(rep, bad)
    with open(os.path.join(bad, "ops_summary.csv"), "w") as f:
        f.write(",".join("c%d" % i for i in range(cols)) + "\n")
        f.write(("," * (cols - 1) + "1\n") * rows)
    return rep, bad


def main():
    name, d = sys.argv[1], sys.argv[2]
    os.makedirs(d, exist_ok=True)
    for tool in ("TLMPI", "TLMPI_SYNTH"):
        if not os.environ.get(tool):
            sys.exit(77)
    cases = {
        "@compare_timeline_3M": lambda: resized(d, 3000000, "B3M.h5"),
        "@compare_timeline_2p62": lambda: resized(d, 2 ** 62, "B62.h5"),
        "@compare_hdf5_crash": lambda: hdf5_crash(d),
        "@compare_sst_bomb": lambda: sst_bomb(d),
        "@compare_wide_csv": lambda: wide_csv(d, 200000, 1, "wide"),
        "@compare_csv_cells": lambda: wide_csv(d, 8192, 1100, "cells"),
    }
    if name not in cases:
        sys.exit(2)
    good, bad = cases[name]()
    print("%s\t%s" % (good, bad))


if __name__ == "__main__":
    main()
