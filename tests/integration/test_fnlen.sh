#!/bin/bash
# No function over 150 lines in src/, mpi/ and tools/ (issue 31).  A
# function runs from its opening brace at column 0 to its closing brace at
# column 0, both counted (the style of the whole tree; the test also fails
# when a body opened at column 0 does not close that way).  Data tables
# (`... = {` ... `};`) and struct, union and enum bodies are not functions.
# Prints file:function:length for each offender.  TLM_FNLEN_MAX overrides
# the limit (to list the longest functions: TLM_FNLEN_MAX=100).
set -u
SRC="${TLM_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}"
MAX="${TLM_FNLEN_MAX:-150}"
cd "$SRC" || exit 1
files=$(find src mpi tools -name '*.c' | LC_ALL=C sort)
[ -n "$files" ] || { echo "FAIL no C files under $SRC"; exit 1; }
# shellcheck disable=SC2086
awk -v max="$MAX" '
# Header text before a column-0 brace: the lines since the previous
# declaration, body, comment or directive.
function reset_header() { hdr = "" }
FNR == 1 { reset_header(); infn = 0 }
infn && /^}/ {
    len = FNR - start + 1
    nfn++
    if (len > max) { printf "%s:%s:%d\n", FILENAME, name, len; bad++ }
    infn = 0; reset_header(); next
}
infn && /^{/ {
    printf "FAIL %s:%d: body of %s not closed at column 0\n", \
        FILENAME, start, name
    bad++; infn = 0
}
infn { next }
/^{/ {
    h = hdr
    sub(/[ \t]+$/, "", h)
    if (h ~ /=$/ || h !~ /\(/) { reset_header(); next }   # table, struct
    p = index(h, "(")
    pre = substr(h, 1, p - 1)
    sub(/[ \t]+$/, "", pre)
    n = split(pre, w, /[^A-Za-z0-9_]+/)
    name = w[n]
    start = FNR; infn = 1; next
}
/^[ \t]*$/ || /;[ \t]*$/ || /^}/ || /\*\/[ \t]*$/ || /^#/ { reset_header(); next }
{ hdr = hdr " " $0 }
END {
    if (nfn < 100) { printf "FAIL only %d functions found\n", nfn; bad++ }
    exit bad ? 1 : 0
}
' $files
rc=$?
if [ "$rc" -eq 0 ]; then
    echo "ok   no function over $MAX lines in src/, mpi/, tools/"
else
    echo "FAIL functions over $MAX lines (file:function:lines) listed above"
fi
exit "$rc"
