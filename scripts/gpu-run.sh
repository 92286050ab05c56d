#!/usr/bin/env bash
# Runs the Python tests and the benchmarks on the GPU machine, which has Python, pybind11, CMake
# and Ninja but no LLVM: libcudajit.so is built here and carried there, and only the module
# cudajit._core is built there, against it (CMake option CUDAJIT_PREBUILT_LIB).
#
#   1. here:  scripts/gpu-run.sh prepare
#             builds libcudajit.so, strips it into .carry/lib/ (with dlpack.h in .carry/include/);
#             .carry/ is ignored by git, so it travels only when carried.
#   2. there: the device tool's `run`, with carry [".carry"] and the command
#             bash scripts/gpu-run.sh run
#             builds _core in build/gpu, puts _core and libcudajit.so in python/cudajit/, runs
#             pytest tests/python and every benchmarks/*.py; logs and results go to $OUT.
#
# The C++ tests of the cuda device need their own carry (the two binaries are over the
# 64 MiB a call can carry together):
#   here:  scripts/gpu-run.sh prepare-cpp      (strips build/cudajit_cpp_tests into .carry-cpp/)
#   there: carry [".carry-cpp"], command: bash scripts/gpu-run.sh run-cpp
set -euo pipefail
cd "$(dirname "$0")/.."

CARRY=${CARRY:-.carry}
PYTHON=${PYTHON:-python3}
JOBS=${JOBS:-2}

prepare() {
  make configure
  ninja -C build -j"$JOBS" libcudajit
  mkdir -p "$CARRY/lib" "$CARRY/include"
  strip --strip-unneeded -o "$CARRY/lib/libcudajit.so" build/libcudajit.so
  local dlpack
  dlpack=$(sed -n 's/^CUDAJIT_DLPACK_INCLUDE_DIR:PATH=//p' build/CMakeCache.txt)
  cp -r "$dlpack/dlpack" "$CARRY/include/"
  local exclude
  exclude=$(git rev-parse --git-path info/exclude)
  mkdir -p "$(dirname "$exclude")"
  grep -qxF "/$CARRY/" "$exclude" 2>/dev/null || echo "/$CARRY/" >>"$exclude"
  du -h "$CARRY/lib/libcudajit.so"
  echo "gpu-run: ready; on the device: carry [\"$CARRY\"], command: bash scripts/gpu-run.sh run"
}

prepare_cpp() {
  make configure
  ninja -C build -j"$JOBS" cudajit_cpp_tests
  mkdir -p .carry-cpp
  strip --strip-unneeded -o .carry-cpp/cudajit_cpp_tests build/cudajit_cpp_tests
  local exclude
  exclude=$(git rev-parse --git-path info/exclude)
  grep -qxF "/.carry-cpp/" "$exclude" 2>/dev/null || echo "/.carry-cpp/" >>"$exclude"
  du -h .carry-cpp/cudajit_cpp_tests
  echo "gpu-run: ready; on the device: carry [\".carry-cpp\"], command: bash scripts/gpu-run.sh run-cpp"
}

run_cpp() {
  local out=${OUT:-build/gpu/out}
  mkdir -p "$out"
  command -v nvidia-smi >/dev/null && nvidia-smi -L || true
  # Every test: the cuda device's own ([cuda]) and the rest, which must pass there too.
  ./.carry-cpp/cudajit_cpp_tests 2>&1 | tee "$out/cpp-tests.log"
}

run() {
  local lib=$PWD/$CARRY/lib/libcudajit.so
  [ -f "$lib" ] || { echo "gpu-run: no $lib; run 'scripts/gpu-run.sh prepare' here first" >&2; exit 1; }
  local out=${OUT:-build/gpu/out}
  mkdir -p "$out"
  command -v nvidia-smi >/dev/null && nvidia-smi -L || true

  local generator=()
  command -v ninja >/dev/null && generator=(-G Ninja)
  cmake -S . -B build/gpu "${generator[@]}" -DCMAKE_BUILD_TYPE=Release \
    -DCUDAJIT_PREBUILT_LIB="$lib" -DCUDAJIT_BUILD_TESTS=OFF \
    -DPython_EXECUTABLE="$("$PYTHON" -c 'import sys; print(sys.executable)')"
  cmake --build build/gpu -j"$(nproc)"

  export PYTHONPATH=$PWD/python${PYTHONPATH:+:$PYTHONPATH} PYTHONUNBUFFERED=1
  local status=0
  # PYTEST_ARGS adds options (e.g. "-n 8 --timeout 120" where pytest-xdist and pytest-timeout
  # are installed); BENCHES names the benchmarks to run (default: all), each stopped after
  # BENCH_TIMEOUT seconds, so that one command fits a lease.
  # shellcheck disable=SC2086
  "$PYTHON" -m pytest tests/python -q -ra --junitxml="$out/pytest.xml" ${PYTEST_ARGS:-} 2>&1 |
    tee "$out/pytest.log" || status=$?
  local benches=${BENCHES:-$(cd benchmarks && ls ./*.py | sed 's|^\./||; s|\.py$||' | grep -v '^_')}
  for name in $benches; do
    echo "==> benchmarks/$name.py"
    timeout "${BENCH_TIMEOUT:-600}" "$PYTHON" "benchmarks/$name.py" 2>&1 |
      tee -a "$out/benchmarks.log" || status=$?
  done
  if [ -d benchmarks/results ]; then
    tar -czf "$out/benchmark-results.tar.gz" -C benchmarks results
  fi
  return "$status"
}

case ${1:-} in
  prepare) prepare ;;
  run) run ;;
  prepare-cpp) prepare_cpp ;;
  run-cpp) run_cpp ;;
  *)
    echo "usage: $0 prepare|run|prepare-cpp|run-cpp   (prepare here, run on the GPU machine;" \
      "see the top of $0)" >&2
    exit 2
    ;;
esac
