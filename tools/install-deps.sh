#!/usr/bin/env bash
# Installs the Debian packages Tessera builds and tests with. Idempotent: only
# missing packages are installed, and nothing happens when all are present.
# Usage: tools/install-deps.sh [--check]   (--check lists missing, installs nothing)
set -euo pipefail

PACKAGES=(
  # toolchain and build
  build-essential cmake ninja-build pkg-config git
  # C++ libraries
  libgtest-dev libgmock-dev libbenchmark-dev libfmt-dev nlohmann-json3-dev libcli11-dev
  # ONNX front end
  libonnx-dev libprotobuf-dev protobuf-compiler libonnx-testdata
  # SHA-256 integrity digest of compiled models
  libssl-dev
  # FileCheck and lit for IR tests
  llvm-15-tools
  # Python side: model generation, digits data set, bindings
  python3 python3-numpy python3-onnx python3-torch python3-torchvision python3-sklearn
  python3-dev python3-pybind11 pybind11-dev python3-pytest
  # sweeps and plots
  python3-dask python3-distributed python3-matplotlib python3-yaml python3-pandas
  # hardware: RTL simulation and lint, SystemC/TLM-2.0, synthesis and the iCE40 bitstream flow
  verilator libsystemc-dev yosys nextpnr-ice40 fpga-icestorm
  # fuzzing (libFuzzer) and formatting
  clang-15 libfuzzer-15-dev clang-format
)

missing=()
for p in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi
if [ "${1:-}" = "--check" ]; then
  echo "missing packages: ${missing[*]}"
  exit 1
fi

echo "install-deps: installing ${missing[*]}"
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then SUDO="sudo"; else
    echo "install-deps: need root (or sudo) to install: ${missing[*]}" >&2
    exit 1
  fi
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -q
$SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
