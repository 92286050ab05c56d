#!/usr/bin/env bash
# Wheels and tests for every CPython that can be reached here (issue 27): the host's Python
# (3.11), Debian 13's (3.13) and Debian unstable's default and newest (3.14 and 3.15 today), the
# last three in root file systems that debootstrap makes from Debian's packages.
#
#   scripts/pythons.sh wheels   # build/wheels/: one manylinux wheel per Python
#   scripts/pythons.sh test     # each wheel in a fresh virtual environment of its Python,
#                               # pytest tests/python there (cpu device and simulated GPU);
#                               # one line per Python, fails if any test fails
#   scripts/pythons.sh roots    # only make (or bring up to date) the roots
#
#   PYTHONS                     the environments, "host trixie sid:python3.14 sid" by default:
#                               host, or a Debian suite's root with its newest python3.X in it,
#                               or SUITE:python3.X for another of its Pythons
#   PYTEST_ARGS                 what pytest runs: tests/python by default
#                               ("-x tests/python/test_frontend.py")
#   TEST_ENV                    variables for the tests ("CUDAJIT_LIBCUDA=/none": no cuda device,
#                               its tests skipped, the cpu device's alone)
#   JOBS (2), PYTHON (python3: the host's Python, which also runs auditwheel)
#
# Where things go, all under build/ (ignored by git):
#   build/roots/SUITE/          the root (debootstrap --variant=minbase, then apt inside it);
#                               made once, packages brought up to date when this list changes
#   build/pythons/cmake-SUITE/  the incremental CMake build of a root's wheels (its Pythons share
#                               it: a second Python rebuilds _core alone); the host's is
#                               build/wheel/cmake/, scripts/wheel-test.sh's
#   build/pythons/dist/         wheels as built; build/wheels/ the repaired (manylinux) ones
#   build/pythons/venv-TAG/     the test environments, made afresh by each `test`
#   build/pythons/logs/         build and test logs
# Inside a root the source tree is /src (a bind mount of this tree), so the paths there are
# /src/build/...; mounts live in a mount namespace of their own (unshare) and end with it.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
PYTHON=${PYTHON:-python3}
JOBS=${JOBS:-2}
PYTHONS=${PYTHONS:-host trixie sid:python3.14 sid}
PYTEST_ARGS=${PYTEST_ARGS:-tests/python}
TEST_ENV=${TEST_ENV:-}
OUT=$ROOT/build/pythons
WHEELS=$ROOT/build/wheels
LOCK=/tmp/cudajit-build.lock  # one heavy build at a time on this machine

# What a root needs to build the wheel and run the tests: Debian's own packages only.
ROOT_PACKAGES=(python3-dev python3-venv python3-pip g++ cmake ninja-build llvm-19-dev libzstd-dev
               libdlpack-dev libboost-context-dev pybind11-dev python3-pybind11
               python3-scikit-build-core python3-numpy python3-pytest python3-hypothesis
               python3-mpmath python3-pytest-timeout)

log() { echo "pythons: $*"; }

# Runs a command in an environment: on the host, or chrooted into build/roots/SUITE with /proc,
# /dev and the source tree (as /src) mounted in a private mount namespace.
in_env() {
  local env=$1
  shift
  if [ "$env" = host ]; then
    bash -c "$*"
    return
  fi
  local dir=$ROOT/build/roots/${env%%:*}
  unshare --mount --propagation private bash -euo pipefail -c '
    dir=$1 src=$2
    shift 2
    mount -t proc proc "$dir/proc"
    mount --bind /dev "$dir/dev"
    mount --bind /dev/pts "$dir/dev/pts"
    mkdir -p "$dir/dev/shm" && mount -t tmpfs -o mode=1777 tmpfs "$dir/dev/shm"
    mount -t tmpfs tmpfs "$dir/tmp"
    mkdir -p "$dir/src" && mount --bind "$src" "$dir/src"
    cp -L /etc/resolv.conf "$dir/etc/resolv.conf" 2>/dev/null || true
    exec chroot "$dir" /usr/bin/env -i HOME=/root LANG=C.UTF-8 \
      PATH=/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin DEBIAN_FRONTEND=noninteractive \
      bash -euo pipefail -c "cd /src && $*"
  ' in_env "$dir" "$ROOT" "$*"
}

# The Python an environment is tested with: the host's, or the newest python3.X of the root.
python_of() {
  if [ "$1" = host ]; then
    echo "$PYTHON"
  elif [[ $1 == *:* ]]; then
    echo "${1#*:}"
  else
    in_env "$1" 'ls /usr/bin | grep -E "^python3\.[0-9]+$" | sort -V | tail -1'
  fi
}

# Where the tree is seen from the environment.
src_of() { if [ "$1" = host ]; then echo "$ROOT"; else echo /src; fi; }

make_root() {
  local suite=$1 dir=$ROOT/build/roots/$1
  if [ ! -x "$dir/usr/bin/apt-get" ] || [ ! -f "$dir/.cudajit-debootstrap" ]; then
    command -v debootstrap >/dev/null || {
      echo "pythons: debootstrap is missing (make wheels installs it: scripts/install-deps.sh --roots)" >&2
      exit 1
    }
    log "debootstrap $suite (a minimal Debian $suite in build/roots/$suite)"
    rm -rf "$dir"
    mkdir -p "$OUT/logs"
    debootstrap --variant=minbase "$suite" "$dir" ${DEBOOTSTRAP_MIRROR:-} \
      >"$OUT/logs/debootstrap-$suite.log" 2>&1 || {
      tail -20 "$OUT/logs/debootstrap-$suite.log" >&2
      exit 1
    }
    touch "$dir/.cudajit-debootstrap"
  fi
  # The package mirror may serve a snapshot whose Release files are past their Valid-Until
  # date (Debian unstable's are valid for a week): apt is told what the host's apt is told.
  printf '%s\n' 'Acquire::Check-Valid-Until "false";' 'Acquire::Check-Date "false";' \
    >"$dir/etc/apt/apt.conf.d/99cudajit-snapshot"
  # The newest python3.X with its development files, beside the suite's default python3.
  local wanted="${ROOT_PACKAGES[*]}"
  if [ "$(cat "$dir/.cudajit-packages" 2>/dev/null)" != "$wanted" ]; then
    log "apt-get install in $suite: ${ROOT_PACKAGES[*]}"
    in_env "$suite" "apt-get update -qq && apt-get install -y -qq --no-install-recommends \
      ${ROOT_PACKAGES[*]} >/dev/null"
    local newest
    newest=$(in_env "$suite" 'apt-cache pkgnames python3. | grep -E "^python3\.[0-9]+-dev$" \
      | sed "s/-dev$//" | sort -V | tail -1')
    log "$suite: the newest Python is $newest"
    in_env "$suite" "apt-get install -y -qq --no-install-recommends $newest-dev $newest-venv \
      >/dev/null && apt-get clean"
    echo "$wanted" >"$dir/.cudajit-packages"
  fi
}

# The wheel tag of an environment's Python (cp313, ...).
tag_of() { in_env "$1" "$2 -c 'import sys; print(f\"cp{sys.version_info[0]}{sys.version_info[1]}\")'"; }

build_wheel() {
  local env=$1 python tag src
  python=$(python_of "$env")
  tag=$(tag_of "$env" "$python")
  src=$(src_of "$env")
  mkdir -p "$OUT/dist/$tag" "$OUT/logs" "$WHEELS"
  rm -f "$OUT/dist/$tag"/cudajit-*.whl "$WHEELS"/cudajit-*-"$tag"-*.whl
  log "$tag ($env, $python): building the wheel (log: build/pythons/logs/build-$tag.log)"
  local start=$SECONDS
  # scikit-build-core's build folder, kept for incremental rebuilds; the lock only around it.
  local cmake=$src/build/pythons/cmake-${env%%:*}
  [ "$env" = host ] && cmake=$src/build/wheel/cmake
  {
    flock 9
    in_env "$env" "CMAKE_BUILD_PARALLEL_LEVEL=$JOBS $python -m pip wheel . -q --no-deps \
      --no-build-isolation -w $src/build/pythons/dist/$tag -Cbuild-dir=$cmake"
  } 9>"$LOCK" >"$OUT/logs/build-$tag.log" 2>&1 || {
    tail -30 "$OUT/logs/build-$tag.log" >&2
    log "$tag: the build failed"
    return 1
  }
  local built=$((SECONDS - start))
  local wheel
  wheel=$(ls "$OUT/dist/$tag"/cudajit-*.whl)
  # auditwheel runs here (Debian 13 packages none): the wheel's libraries need nothing beyond
  # the manylinux policy's libraries, so it only reads their symbol versions and retags.
  "$PYTHON" -m auditwheel repair -w "$WHEELS" "$wheel" >>"$OUT/logs/build-$tag.log" 2>&1 || {
    tail -20 "$OUT/logs/build-$tag.log" >&2
    return 1
  }
  local repaired
  repaired=$(ls "$WHEELS"/cudajit-*-"$tag"-*manylinux*.whl)
  local platform promised=manylinux_2_28
  platform=$(basename "$repaired" | grep -oE 'manylinux_[0-9]+_[0-9]+' | sort -t_ -k2,2n -k3,3n | head -1)
  log "$tag: $(basename "$repaired") (built in ${built}s)"
  if [ "$(printf '%s\n%s\n' "$platform" "$promised" | sort -t_ -k2,2n -k3,3n | tail -1)" != "$promised" ]; then
    echo "pythons: $tag: auditwheel tags the wheel $platform, newer than the promised $promised:" >&2
    "$PYTHON" -m auditwheel show "$repaired" >&2
    rm -f "$repaired"
    return 1
  fi
}

test_wheel() {
  local env=$1 python tag src
  python=$(python_of "$env")
  tag=$(tag_of "$env" "$python")
  src=$(src_of "$env")
  local wheel
  local note="" failed_tag=0
  wheel=$(ls "$WHEELS"/cudajit-*-"$tag"-*manylinux*.whl 2>/dev/null) || {
    # No manylinux wheel (its tag was too new): the wheel as built is tested all the same, so
    # that the Python is, and the line says so; the command fails.
    wheel=$(ls "$OUT/dist/$tag"/cudajit-*.whl 2>/dev/null | head -1) || {
      echo "pythons: no wheel for $tag (make wheels first)" >&2
      return 1
    }
    note=" NOT MANYLINUX <= 2_28, the wheel as built:"
    failed_tag=1
  }
  local venv=$src/build/pythons/venv-$tag
  # Kernels that call math functions need NVIDIA's libdevice on a GPU and on the simulated GPU:
  # the one the host's tests use (CUDA_HOME, /usr/local/cuda or NVIDIA's pip wheels), as
  # $CUDA_HOME/nvvm/libdevice for every environment.
  local libdevice
  libdevice=$(find "${CUDA_HOME:-/usr/local/cuda}/nvvm/libdevice" \
    $("$PYTHON" -c 'import nvidia; print(*nvidia.__path__)' 2>/dev/null) \
    -name libdevice.10.bc 2>/dev/null | head -1)
  if [ -n "$libdevice" ]; then
    mkdir -p "$OUT/cuda/nvvm/libdevice"
    cp "$libdevice" "$OUT/cuda/nvvm/libdevice/"
  fi
  rm -rf "$OUT/venv-$tag"
  # numpy, pytest and hypothesis are the environment Python's own (Debian's packages in a root):
  # the venv sees them, and the wheel is installed into it without its dependencies.
  in_env "$env" "$python -m venv --system-site-packages $venv && \
    $venv/bin/python -m pip install -q --no-deps --disable-pip-version-check \
      $src/${wheel#"$ROOT"/}"
  log "$tag ($env): pytest tests/python (log: build/pythons/logs/test-$tag.log)"
  local start=$SECONDS status=0
  # Run from the tree's root, where no cudajit package is importable: the venv's is used.
  in_env "$env" "cd $src && CUDA_HOME=$src/build/pythons/cuda $TEST_ENV \
    $venv/bin/python -m pytest -q -p no:cacheprovider $PYTEST_ARGS" \
    >"$OUT/logs/test-$tag.log" 2>&1 || status=$?
  local summary
  summary=$(grep -E '^(=+ )?[0-9]+ (passed|failed)|^(=+ )?[0-9]+ .* in [0-9.]+s' \
    "$OUT/logs/test-$tag.log" | tail -1 | sed 's/=//g; s/^ *//; s/ *$//')
  local version
  version=$(in_env "$env" "$python -c 'import platform; print(platform.python_version())'")
  RESULTS+=("Python $version ($env,$note $(basename "$wheel")): ${summary:-no summary, exit $status} [$((SECONDS - start))s]")
  [ $failed_tag = 0 ] || status=1
  return $status
}

command=${1:-}
case $command in
  roots)
    for env in $PYTHONS; do [ "$env" = host ] || make_root "${env%%:*}"; done
    ;;
  wheels)
    for env in $PYTHONS; do [ "$env" = host ] || make_root "${env%%:*}"; done
    failed=0
    for env in $PYTHONS; do build_wheel "$env" || failed=1; done
    ls -1 "$WHEELS"
    exit $failed
    ;;
  test)
    RESULTS=()
    failed=0
    for env in $PYTHONS; do test_wheel "$env" || failed=1; done
    echo "pythons: results"
    printf '  %s\n' "${RESULTS[@]}"
    exit $failed
    ;;
  *)
    echo "usage: scripts/pythons.sh roots|wheels|test (PYTHONS='host trixie sid')" >&2
    exit 2
    ;;
esac
