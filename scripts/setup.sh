#!/usr/bin/env bash
# Installs what tlmpi needs to build, test and run on Debian 12 (idempotent:
# does nothing when everything is there).  Run as root, or with sudo on PATH.
set -euo pipefail
pkgs=(build-essential cmake pkg-config openmpi-bin libopenmpi-dev
      libhdf5-openmpi-dev hdf5-tools zlib1g-dev libdeflate-dev libisal-dev libcmocka-dev
      python3-h5py python3-pandas python3-matplotlib time
      libxlsxwriter-dev libzip-dev libexpat1-dev
      libprotobuf-c-dev protobuf-c-compiler)
# CPU PyTorch (1.13 on Debian 12) for the event-replay runner
# (scripts/tlmpi_replay.py, tests/integration/test_replay.sh)
pkgs+=(python3-torch)
[ "${TLM_WITH_CLANG:-0}" = 1 ] && pkgs+=(clang libclang-rt-14-dev)
# the real-Slurm test (tests/integration/test_slurm.sh, docs/slurm.md)
[ "${TLM_WITH_SLURM:-0}" = 1 ] && pkgs+=(slurm-wlm munge)
# the valgrind test (tests/integration/test_valgrind.sh)
[ "${TLM_WITH_VALGRIND:-0}" = 1 ] && pkgs+=(valgrind)
missing=()
for p in "${pkgs[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' \
        || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
    exit 0
fi
echo "setup: installing ${missing[*]}" >&2
SUDO=
[ "$(id -u)" -eq 0 ] || SUDO=sudo
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq \
    --no-install-recommends "${missing[@]}" >/dev/null
