# Development flow: one CMake build folder (build/, Ninja), binaries copied into python/cudajit/
# so that PYTHONPATH=python works without installing.
#
#   make deps     install what is missing (scripts/install-deps.sh)
#   make build    configure if needed, build with $(JOBS) jobs
#   make test     build, then the C++ tests (ctest) and the Python tests (pytest)
#   make demo     build, then run every examples/*.py (on the GPU if present, else the cpu device)
#   make fuzz     build, then the Hypothesis fuzz suite at length (FUZZ_EXAMPLES per target)
#   make compat   build, then numba-cuda's own test suite against cudajit (scripts/compat; not
#                 part of test): on Numba's simulator and, whole, on the simulated GPU (numba-cuda
#                 itself there too); a venv in build/compat-venv, the report in build/compat/
#   make wheels   a manylinux wheel for each CPython reachable here, into build/wheels/: the host's
#                 (3.11), Debian 13's (3.13) and Debian unstable's newest, the last two built in root
#                 file systems that debootstrap makes in build/roots/ (scripts/pythons.sh; not part
#                 of test; PYTHONS="host trixie sid" chooses)
#   make test-pythons  wheels, then each in a fresh virtual environment of its Python, pytest
#                 tests/python there: one line per Python (docs/dev/pythons.md: how long it takes)
#   make format   clang-format our C++
#   make clean    remove build/ and the copied binaries
#
# Variables: JOBS (2), BUILD_DIR (build), BUILD_TYPE (Release), PYTHON (python3),
# CUDAJIT_LLVM_VERSION (19; also read from the environment), CMAKE_ARGS (extra -D options),
# COMPAT_ARGS (options of scripts/compat/run.py, e.g. --targets numba,cpu,sim or
# --targets numba-gpu,sim-gpu).

BUILD_DIR ?= build
JOBS ?= 2
BUILD_TYPE ?= Release
PYTHON ?= python3
CUDAJIT_LLVM_VERSION ?= 19
CMAKE_ARGS ?=
FUZZ_EXAMPLES ?= 5000
COMPAT_ARGS ?=

PY_EXE := $(shell $(PYTHON) -c 'import sys; print(sys.executable)' 2>/dev/null)
CXX_DIRS := compiler runtime python/src simulator support tests/cpp

.PHONY: all deps configure build test wheel-test wheels test-pythons demo fuzz compat format clean

all: build

deps:
	LLVM_VERSION=$(CUDAJIT_LLVM_VERSION) bash scripts/install-deps.sh

# Configures once (again if CUDAJIT_LLVM_VERSION changes); afterwards Ninja re-runs CMake itself
# when a CMakeLists.txt changes.
configure: deps
	@if [ ! -f $(BUILD_DIR)/build.ninja ] || ! grep -qx \
	    'CUDAJIT_LLVM_VERSION:STRING=$(CUDAJIT_LLVM_VERSION)' $(BUILD_DIR)/CMakeCache.txt; then \
	  echo "cmake -S . -B $(BUILD_DIR) -G Ninja -DCUDAJIT_LLVM_VERSION=$(CUDAJIT_LLVM_VERSION)"; \
	  cmake -S . -B $(BUILD_DIR) -G Ninja -DCMAKE_BUILD_TYPE=$(BUILD_TYPE) \
	    -DCUDAJIT_LLVM_VERSION=$(CUDAJIT_LLVM_VERSION) -DPython_EXECUTABLE=$(PY_EXE) $(CMAKE_ARGS); \
	fi

build: configure
	ninja -C $(BUILD_DIR) -j$(JOBS)

test: build
	ctest --test-dir $(BUILD_DIR) --output-on-failure
	PYTHONPATH=python $(PYTHON) -m pytest tests/python -q
	PYTHON=$(PYTHON) JOBS=$(JOBS) bash scripts/wheel-test.sh

# The manylinux wheel, built, repaired and run from a fresh virtual environment (part of test).
wheel-test: deps
	PYTHON=$(PYTHON) JOBS=$(JOBS) bash scripts/wheel-test.sh

# Every reachable CPython's wheel (scripts/pythons.sh), and the Python tests on each.
wheels:
	LLVM_VERSION=$(CUDAJIT_LLVM_VERSION) bash scripts/install-deps.sh --roots
	PYTHON=$(PYTHON) JOBS=$(JOBS) bash scripts/pythons.sh wheels

test-pythons: wheels
	PYTHON=$(PYTHON) JOBS=$(JOBS) bash scripts/pythons.sh test

demo: build
	@set -e; for f in examples/*.py; do \
	  [ -e "$$f" ] || continue; \
	  echo "==> $$f"; \
	  PYTHONPATH=python $(PYTHON) "$$f"; \
	done

fuzz: build
	CUDAJIT_FUZZ_EXAMPLES=$(FUZZ_EXAMPLES) PYTHONPATH=python $(PYTHON) -m pytest tests/python/test_fuzz.py -q

compat: build
	$(PYTHON) scripts/compat/run.py --jobs $(JOBS) $(COMPAT_ARGS)

format:
	find $(CXX_DIRS) \( -name '*.cpp' -o -name '*.hpp' -o -name '*.h' \) -print0 \
	  | xargs -0 -r clang-format -i

clean:
	rm -rf $(BUILD_DIR) python/cudajit/_core*.so python/cudajit/libcudajit.so*
