#!/bin/bash
# First contact (issue 21): the commands of the README's first screen work
# as written.  The first screen is everything before the README's first
# "## " heading; its commands are the lines of its ```sh blocks, taken
# mechanically (a trailing backslash joins the next line) and run in order,
# as one bash script with -e, in an empty folder, like a user typing them
# in the checkout after scripts/demo.sh.  Of the build, the folder gets
# only `build` (a link to this build).  The environment is a fresh
# machine's: no Open MPI setting (tlmpi-run must make the ones needed), no
# TLMPI; installing goes through DESTDIR into the folder, whose bin/ and
# Python folders come first on PATH and PYTHONPATH (on the machine
# itself they are /usr/bin and /usr/lib/python3/dist-packages).
#
# Skipped, and why:
#   scripts/demo.sh   installs apt packages and builds ./build in the
#                     checkout: ctest runs on that build already
#   scripts/test.sh   the same, then the whole test suite, this test
#                     included
#   apt-get / apt / scripts/setup.sh lines: the machine's setup, done
# Any other line runs; a README line this test cannot run fails it.
set -u
: "${TLM_BUILD_DIR:?}" "${TLM_SOURCE_DIR:?}"
W=${TLM_WORK_DIR:-$(mktemp -d)}/readme
rm -rf "$W"; mkdir -p "$W/run"
fail() { echo "FAIL: $*"; exit 1; }
README=$TLM_SOURCE_DIR/README.md

# ---- the commands of the first screen
awk '
    /^## / { exit }
    /^```sh[[:space:]]*$/ { inb = 1; next }
    /^```/ { inb = 0; next }
    inb && /[^[:space:]]/ { print }
' "$README" | sed -e ':a' -e '/\\$/N; s/\\\n//; ta' > "$W/lines"
[ -s "$W/lines" ] || fail "no command blocks before the first ## heading"
: > "$W/script"
ran=0
while IFS= read -r line; do
    case "$line" in
        scripts/demo.sh*|scripts/test.sh*|scripts/setup.sh*|apt-get\ *|apt\ *|sudo\ apt*)
            echo "skipped: $line"; continue ;;
    esac
    printf 'echo "+ %s"\n%s\n' "$(printf '%s' "$line" | sed 's/["$`\\]/\\&/g')" \
        "$line" >> "$W/script"
    ran=$((ran + 1))
done < "$W/lines"
grep -q '^scripts/demo.sh' "$W/lines" && grep -q '^scripts/test.sh' "$W/lines" \
    || fail "the first screen does not start with scripts/demo.sh and scripts/test.sh"
[ "$(head -n 2 "$W/lines" | cut -d' ' -f1 | tr '\n' ' ')" = \
  "scripts/demo.sh scripts/test.sh " ] || fail "demo.sh and test.sh are not first"
# what the first screen must show: install, the analysis, the report
for want in '^cmake --install build' '^tlmpi-run ' '^tlmpi report '; do
    grep -q "$want" "$W/lines" || fail "the first screen has no '$want' command"
done
[ $ran -ge 4 ] || fail "only $ran commands to run"

# ---- run them as a fresh machine would
ln -s "$TLM_BUILD_DIR" "$W/run/build"
D=$W/destdir
unset_ompi=$(env | sed -n 's/^\(OMPI_[A-Za-z0-9_]*\)=.*/-u \1/p')
(
    cd "$W/run" &&
    env $unset_ompi -u TLMPI -u TLMPI_SYNTH -u PYTHONPATH \
        DESTDIR="$D" \
        PATH="$D/usr/bin:$D/usr/local/bin:$PATH" \
        PYTHONPATH="$D/usr/lib/python3/dist-packages:$D/usr/local/lib/python3/dist-packages" \
        timeout 300 bash -eo pipefail "$W/script"
) > "$W/log" 2>&1
rc=$?
cat "$W/log"
[ $rc -eq 0 ] || fail "the README's commands failed (exit $rc)"
# the commands used the installed programs, not the build's
grep -q "^+ tlmpi-run" "$W/log" && [ -x "$D/usr/bin/tlmpi-run" ] \
    || fail "tlmpi-run not installed where the README says"
echo "PASS ($ran commands)"
