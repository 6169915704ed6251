#!/bin/bash
# The layers of src/ point one way (docs/architecture.md): every symbol a
# layer's library uses from another layer, whatever its name, belongs to
# a layer it may use (CMakeLists.txt's tlm_layer DEPS, transitively); no
# layer calls MPI or HDF5; no file includes the public header of a layer
# above or beside its own (layers_check.py says how each is checked).
set -u
SRC="${TLM_SOURCE_DIR:?TLM_SOURCE_DIR not set}"
BUILD="${TLM_BUILD_DIR:?TLM_BUILD_DIR not set}"
exec /usr/bin/python3 "$SRC/tests/integration/layers_check.py" "$SRC" "$BUILD"
