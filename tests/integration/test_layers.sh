#!/bin/bash
# The layers of src/ point one way (docs/architecture.md).  The build
# already refuses an internal header of a layer above; this test also
# catches calls that go through a public header: every tlm_ symbol a
# layer's library leaves undefined must be defined by that library or by
# the layers it may use.  And the core never calls MPI or HDF5.
set -u
BUILD="${TLM_BUILD_DIR:?TLM_BUILD_DIR not set}"
fail=0
declare -A deps=(
    [util]=""
    [table]="util"
    [trace]="util"
    [tree]="trace util"
    [perf]="util"
    [report]="table perf tree trace util"
    [coll]="trace util"
    [synth]="util"
    [hta]="table trace util"
    [cmp]="report table perf tree trace util"
    [find]="report table perf tree trace util"
    [rdiff]="report table diff perf tree trace util"
    [replay]="report table perf tree trace util"
)
lib() { echo "$BUILD/libtlm_$1.a"; }
defined() { nm --defined-only -g "$(lib "$1")" 2>/dev/null | awk 'NF == 3 {print $3}'; }
for l in "${!deps[@]}"; do
    [ -f "$(lib "$l")" ] || { echo "FAIL no library $(lib "$l")"; fail=1; continue; }
    allowed=$(for d in $l ${deps[$l]}; do defined "$d"; done | sort -u)
    undef=$(nm -u "$(lib "$l")" | awk '{print $2}' | grep -E '^tlm_' | sort -u)
    bad=$(comm -23 <(echo "$undef") <(echo "$allowed") | grep -v '^$')
    if [ -n "$bad" ]; then
        echo "FAIL $l calls outside its layers: $(echo $bad)"
        fail=1
    else
        echo "ok   $l uses only: $l ${deps[$l]}"
    fi
    calls=$(nm -u "$(lib "$l")" | awk '{print $2}' | grep -E '^(MPI_|PMPI_|H5)' | sort -u)
    if [ -n "$calls" ]; then
        echo "FAIL $l calls MPI/HDF5: $(echo $calls | head -c 200)"
        fail=1
    fi
done
exit "$fail"
