#!/bin/bash
# docs/architecture.md is the map of the tree: every source file has its
# row and the map names no file that does not exist; mpi/ holds only what
# calls MPI or HDF5, without circles; one file lists folders
# (map_check.py says what each check is).
set -u
SRC="${TLM_SOURCE_DIR:?TLM_SOURCE_DIR not set}"
BUILD="${TLM_BUILD_DIR:?TLM_BUILD_DIR not set}"
exec /usr/bin/python3 "$SRC/tests/integration/map_check.py" "$SRC" "$BUILD"
