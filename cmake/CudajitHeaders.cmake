# Third-party headers (DLPack's dlpack.h) and the CUDA toolkit's place. Sets CUDAJIT_CUDA_HOME
# and CUDAJIT_THIRD_PARTY_INCLUDE_DIRS.
#
# With CUDAJIT_PREBUILT_LIB=<root>/lib/libcudajit.so, <root>/include is searched too: that is
# the layout of the carry folder that scripts/gpu-run.sh prepares.
set(prebuilt_root "")
if(CUDAJIT_PREBUILT_LIB)
  get_filename_component(prebuilt_root "${CUDAJIT_PREBUILT_LIB}/../.." ABSOLUTE)
endif()

# The CUDA toolkit is not needed to build (the driver API's declarations are our own:
# runtime/include/cudajit/cuda_api.h). One found here (-DCUDAJIT_CUDA_HOME, else $CUDA_HOME,
# $CUDA_PATH, /usr/local/cuda) is compiled in as the last place to look for libdevice at run time.
if(NOT DEFINED CUDAJIT_CUDA_HOME)
  set(detected "")
  foreach(candidate "$ENV{CUDA_HOME}" "$ENV{CUDA_PATH}" /usr/local/cuda)
    if(candidate AND EXISTS "${candidate}/nvvm/libdevice/libdevice.10.bc")
      set(detected "${candidate}")
      break()
    endif()
  endforeach()
  set(CUDAJIT_CUDA_HOME "${detected}" CACHE PATH "CUDA toolkit root (libdevice's last resort)")
endif()
message(STATUS "cudajit: CUDA toolkit for libdevice: ${CUDAJIT_CUDA_HOME}")

# dlpack.h: the system's (libdlpack-dev), or the prebuilt library's.
find_path(CUDAJIT_DLPACK_INCLUDE_DIR dlpack/dlpack.h HINTS "${prebuilt_root}/include"
          DOC "Folder holding dlpack/dlpack.h")
if(NOT CUDAJIT_DLPACK_INCLUDE_DIR)
  message(FATAL_ERROR "cudajit: dlpack/dlpack.h not found; install libdlpack-dev "
                      "(scripts/install-deps.sh) or set -DCUDAJIT_DLPACK_INCLUDE_DIR=")
endif()

set(CUDAJIT_THIRD_PARTY_INCLUDE_DIRS ${CUDAJIT_DLPACK_INCLUDE_DIR})
list(REMOVE_DUPLICATES CUDAJIT_THIRD_PARTY_INCLUDE_DIRS)
