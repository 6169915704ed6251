#!/bin/bash
# First contact (issue 21): `cmake --install BUILD --prefix P` and the
# Debian package.
#  - the files the prefix gets (bin/, the Python loader as module tlmpi_h5
#    in lib/python3/dist-packages/, the slurm templates, the docs, the man
#    page)
#  - the installed binaries run: --version, a small analysis of a
#    tlmpi-synth job through the installed tlmpi-run
#  - the installed loader imports with /usr/bin/python3 and reads the file
#  - the man page renders
#  - `cpack -G DEB` (when dpkg-deb is there): the package's files under
#    /usr and its dependencies
set -u
: "${TLM_BUILD_DIR:?}" "${TLM_SOURCE_DIR:?}"
W=${TLM_WORK_DIR:-$(mktemp -d)}/install
rm -rf "$W"; mkdir -p "$W"
fail() { echo "FAIL: $*"; exit 1; }
P=$W/prefix
PYDIR=lib/python3/dist-packages

cmake --install "$TLM_BUILD_DIR" --prefix "$P" > "$W/install.log" 2>&1 \
    || { cat "$W/install.log"; fail "cmake --install: exit $?"; }
for f in bin/tlmpi bin/tlmpi-mpi bin/tlmpi-synth bin/tlmpi-run bin/tlmpi-tracelens; do
    [ -x "$P/$f" ] || fail "$f not installed or not executable"
done
for f in $PYDIR/tlmpi_h5.py share/tlmpi/slurm/postprocess.sbatch \
         share/tlmpi/slurm/cluster_audit.sbatch share/doc/tlmpi/README.md \
         share/doc/tlmpi/cli.md share/doc/tlmpi/hdf5-schema.md \
         share/man/man1/tlmpi.1; do
    [ -s "$P/$f" ] || fail "$f not installed"
done
for f in "$TLM_SOURCE_DIR"/docs/*.md; do
    cmp -s "$f" "$P/share/doc/tlmpi/$(basename "$f")" \
        || fail "docs/$(basename "$f") not installed as is"
done
for f in "$TLM_SOURCE_DIR"/scripts/tlmpi_*.py; do
    [ -s "$P/$PYDIR/$(basename "$f")" ] || fail "$(basename "$f") not installed"
done

# ---- the installed binaries, from another folder
cd "$W"
# every installed program answers --version and --help (issue 34)
want=$(sed -n 's/^project(tlmpi VERSION \([0-9.]*\).*/\1/p' \
    "$TLM_SOURCE_DIR/CMakeLists.txt")
for p in bin/tlmpi bin/tlmpi-mpi bin/tlmpi-synth bin/tlmpi-run bin/tlmpi-tracelens; do
    v=$("$P/$p" --version 2>&1) || fail "$p --version: exit $? ($v)"
    case "$v" in *" $want"*) ;; *) fail "$p --version says '$v'" ;; esac
    "$P/$p" --help > "$W/help.txt" 2>&1 || fail "$p --help: exit $?"
    grep -q "usage" "$W/help.txt" || fail "$p --help prints no usage"
done
for m in tlmpi_h5 tlmpi_plot tlmpi_replay; do
    v=$(/usr/bin/python3 "$P/$PYDIR/$m.py" --version 2>&1) \
        || fail "$m.py --version: exit $? ($v)"
    [ "$v" = "$m.py $want" ] || fail "$m.py --version says '$v'"
    /usr/bin/python3 "$P/$PYDIR/$m.py" --help 2>&1 | grep -q usage \
        || fail "$m.py --help"
done
# output folders are created with their parents
"$P/bin/tlmpi-synth" --out "$W/a/b/c" --world_size 2 --quiet \
    || fail "tlmpi-synth --out a/b/c"
[ -s "$W/a/b/c/rank1_trace.json" ] || fail "tlmpi-synth --out a/b/c: no trace"
# the README's install table names every installed file, and each path it
# names is installed (a folder row: a path ending in /)
sed -n '/^`cmake --install build --prefix P` installs/,/^`DESTDIR/p' \
    "$TLM_SOURCE_DIR/README.md" | grep -o '`P/[^`]*`' | tr -d '`' \
    | sed 's|^P/||' > "$W/readme.paths"
[ -s "$W/readme.paths" ] || fail "no install table in README.md"
while read -r r; do
    [ -e "$P/$r" ] || fail "README lists $r, not installed"
done < "$W/readme.paths"
(cd "$P" && find . -type f | sed 's|^\./||' | sort) > "$W/installed"
while read -r f; do
    covered=0
    while read -r r; do
        case "$r" in */) case "$f" in "$r"*) covered=1 ;; esac ;;
                     *) [ "$f" = "$r" ] && covered=1 ;; esac
    done < "$W/readme.paths"
    [ $covered = 1 ] || fail "$f installed but not in README's install table"
done < "$W/installed"
# the images the docs show are installed with them
for f in "$TLM_SOURCE_DIR"/docs/img/*.png; do
    cmp -s "$f" "$P/share/doc/tlmpi/img/$(basename "$f")" \
        || fail "docs/img/$(basename "$f") not installed"
done
for i in $(grep -oh 'img/[A-Za-z0-9_.-]*\.png' "$P"/share/doc/tlmpi/*.md \
           | sort -u); do
    [ -s "$P/share/doc/tlmpi/$i" ] || fail "docs show $i, not installed"
done
"$P/bin/tlmpi" --version | grep -q '^tlmpi [0-9]' || fail "installed --version"
"$P/bin/tlmpi" --help | grep -q '^  report ' || fail "installed --help"
"$P/bin/tlmpi-synth" --out "$W/job" --world_size 4 --seed 9 --gzip > /dev/null \
    || fail "installed tlmpi-synth"
# the installed tlmpi replay writes the installed runner, byte for byte
"$P/bin/tlmpi" replay "$(ls "$W"/job/rank0_trace.json* | head -n 1)" \
    --output_dir "$W/replay" --quiet || fail "installed tlmpi replay"
cmp -s "$W/replay/tlmpi_replay.py" "$P/$PYDIR/tlmpi_replay.py" \
    || fail "tlmpi replay's runner differs from the installed tlmpi_replay.py"
# the front links neither MPI nor HDF5 (issue 35: start-up cost), its
# driver both; a front copied away from its driver says so, exit 2
if command -v ldd > /dev/null; then
    ldd "$P/bin/tlmpi" | grep -Eq 'libmpi|libhdf5' \
        && fail "bin/tlmpi links MPI or HDF5: $(ldd "$P/bin/tlmpi" | grep -E 'libmpi|libhdf5')"
    ldd "$P/bin/tlmpi-mpi" | grep -q 'libmpi' || fail "bin/tlmpi-mpi links no MPI"
fi
mkdir -p "$W/alone" && cp "$P/bin/tlmpi" "$W/alone/"
"$W/alone/tlmpi" --trace_dir "$W/job" > "$W/alone.log" 2>&1
rc=$?
[ $rc = 2 ] && grep -q "cannot start the MPI driver .*tlmpi-mpi" "$W/alone.log" \
    || fail "tlmpi without tlmpi-mpi: exit $rc, $(cat "$W/alone.log")"
"$W/alone/tlmpi" report "$(ls "$W"/job/rank0_trace.json* | head -n 1)" \
    --output_csvs_dir "$W/alone/csv" --quiet \
    || fail "tlmpi report without tlmpi-mpi: exit $?"
command -v mpirun > /dev/null || { echo "no mpirun: skipped"; exit 77; }
env -u TLMPI timeout 120 "$P/bin/tlmpi-run" -n 2 --trace_dir "$W/job" --quiet \
    || fail "installed tlmpi-run: exit $?"
[ -s "$W/job/tlmpi.h5" ] && [ -s "$W/job/report.md" ] || fail "no outputs"
# an installed user is told `import tlmpi_h5`, not the source path
grep -q 'import tlmpi_h5' "$W/job/report.md" \
    || fail "report.md does not name import tlmpi_h5"
grep -q 'scripts/tlmpi_h5.py' "$W/job/report.md" \
    && fail "report.md of the installed tlmpi names scripts/tlmpi_h5.py"

# ---- the installed loader
if /usr/bin/python3 -c 'import h5py, pandas' 2>/dev/null; then
    PYTHONPATH=$P/$PYDIR /usr/bin/python3 - "$W/job/tlmpi.h5" "$P/$PYDIR" <<'PY' \
        || fail "the installed tlmpi_h5"
import os, sys
import tlmpi_h5
assert os.path.dirname(os.path.abspath(tlmpi_h5.__file__)) == \
    os.path.abspath(sys.argv[2]), tlmpi_h5.__file__
t = tlmpi_h5.load(sys.argv[1])
assert len(t["traces"]) == 4, len(t["traces"])
assert len(t["collectives/instances"]) > 0
PY
else
    echo "h5py/pandas missing for /usr/bin/python3: loader not checked"
fi

# ---- the man page
if command -v man > /dev/null; then
    MANWIDTH=80 man -P cat -l "$P/share/man/man1/tlmpi.1" 2>&1 \
        | sed 's/.\x08//g' > "$W/man.txt"
    grep -q "tlmpi-run" "$W/man.txt" && grep -q -- "--trace_dir" "$W/man.txt" \
        || fail "man page does not render"
    # a page for every installed program
    for p in "$P"/bin/*; do
        pg=$P/share/man/man1/$(basename "$p").1
        [ -s "$pg" ] || fail "no man page for $(basename "$p")"
        MANWIDTH=80 man -P cat -l "$pg" 2>"$W/man.err" \
            | sed 's/.\x08//g' > "$W/man1.txt"
        [ -s "$W/man.err" ] && fail "man -l $pg: $(cat "$W/man.err")"
        grep -q "$(basename "$p")" "$W/man1.txt" \
            || fail "man -l $pg does not name $(basename "$p")"
    done
fi

# ---- the Debian package
if command -v dpkg-deb > /dev/null && command -v cpack > /dev/null; then
    # The package of the tree installed above (the same install rules, put
    # under /usr): plain `cpack -G DEB` would first build the build folder,
    # relinking tlmpi under the tests running beside this one whenever the
    # git commit changed since the build.
    (cd "$TLM_BUILD_DIR" && cpack -G DEB -B "$W/pkg" \
        -D CPACK_INSTALL_CMAKE_PROJECTS= \
        -D "CPACK_INSTALLED_DIRECTORIES=$P;usr") > "$W/cpack.log" 2>&1 \
        || { cat "$W/cpack.log"; fail "cpack -G DEB: exit $?"; }
    deb=$(ls "$W"/pkg/tlmpi_*.deb 2>/dev/null | head -n 1)
    [ -n "$deb" ] || fail "no .deb"
    dpkg-deb -c "$deb" | awk '{print $6}' > "$W/deb.files"
    for f in ./usr/bin/tlmpi ./usr/bin/tlmpi-run ./usr/bin/tlmpi-synth \
             ./usr/$PYDIR/tlmpi_h5.py ./usr/share/man/man1/tlmpi.1 \
             ./usr/share/tlmpi/slurm/postprocess.sbatch \
             ./usr/share/doc/tlmpi/cli.md; do
        grep -qx -- "$f" "$W/deb.files" || fail "$f not in the package"
    done
    dpkg-deb -f "$deb" Depends > "$W/deb.depends"
    for d in openmpi-bin libopenmpi3 libhdf5-openmpi-103-1 zlib1g libc6; do
        grep -Eq "(^|, )$d( |,|$)" "$W/deb.depends" \
            || fail "package does not depend on $d: $(cat "$W/deb.depends")"
    done
    dpkg-deb -f "$deb" Recommends | grep -q python3-h5py \
        || fail "package does not recommend python3-h5py"
    [ "$(dpkg-deb -f "$deb" Package)" = tlmpi ] || fail "package name"
fi
echo "PASS"
