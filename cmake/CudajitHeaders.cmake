# Third-party headers: CUDA's cuda.h (types only: the driver is dlopen'd, libcuda is never
# linked) and DLPack's dlpack.h. Sets CUDAJIT_CUDA_HOME and CUDAJIT_THIRD_PARTY_INCLUDE_DIRS.
#
# With CUDAJIT_PREBUILT_LIB=<root>/lib/libcudajit.so, <root>/include is searched too: that is
# the layout of the carry folder that scripts/gpu-run.sh prepares.
set(prebuilt_root "")
if(CUDAJIT_PREBUILT_LIB)
  get_filename_component(prebuilt_root "${CUDAJIT_PREBUILT_LIB}/../.." ABSOLUTE)
endif()

# The CUDA toolkit: -DCUDAJIT_CUDA_HOME, else $CUDA_HOME, $CUDA_PATH, /usr/local/cuda. The path is
# compiled in as the last place to look for libdevice at run time.
if(NOT CUDAJIT_CUDA_HOME)
  set(detected "")
  foreach(candidate "$ENV{CUDA_HOME}" "$ENV{CUDA_PATH}" /usr/local/cuda "${prebuilt_root}")
    if(candidate AND EXISTS "${candidate}/include/cuda.h")
      set(detected "${candidate}")
      break()
    endif()
  endforeach()
  set(CUDAJIT_CUDA_HOME "${detected}" CACHE PATH "CUDA toolkit root (cuda.h, libdevice)" FORCE)
endif()
if(EXISTS "${CUDAJIT_CUDA_HOME}/include/cuda.h")
  set(CUDAJIT_CUDA_INCLUDE_DIR "${CUDAJIT_CUDA_HOME}/include")
  message(STATUS "cudajit: CUDA toolkit ${CUDAJIT_CUDA_HOME}")
else()
  set(CUDAJIT_CUDA_INCLUDE_DIR "")
  message(WARNING "cudajit: no cuda.h found; set CUDA_HOME (or -DCUDAJIT_CUDA_HOME=) to the CUDA "
                  "toolkit. Sources that include cuda.h will not compile.")
endif()

# dlpack.h: the system's (libdlpack-dev), or the prebuilt library's.
find_path(CUDAJIT_DLPACK_INCLUDE_DIR dlpack/dlpack.h HINTS "${prebuilt_root}/include"
          DOC "Folder holding dlpack/dlpack.h")
if(NOT CUDAJIT_DLPACK_INCLUDE_DIR)
  message(FATAL_ERROR "cudajit: dlpack/dlpack.h not found; install libdlpack-dev "
                      "(scripts/install-deps.sh) or set -DCUDAJIT_DLPACK_INCLUDE_DIR=")
endif()

set(CUDAJIT_THIRD_PARTY_INCLUDE_DIRS ${CUDAJIT_DLPACK_INCLUDE_DIR} ${CUDAJIT_CUDA_INCLUDE_DIR})
list(REMOVE_DUPLICATES CUDAJIT_THIRD_PARTY_INCLUDE_DIRS)
