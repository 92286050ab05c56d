# The simulated GPU (simulator/): a PTX parser and SIMT executor (cudajit_sim_core) and the
# stand-in CUDA driver built on them (libcudajit_sim.so, exporting the driver API). libcudajit
# never links it: the cuda device loads it with dlopen when asked (CUDAJIT_DEVICE=sim).
find_package(Threads REQUIRED)

file(GLOB_RECURSE CUDAJIT_SIM_CORE_SOURCES CONFIGURE_DEPENDS
     ${PROJECT_SOURCE_DIR}/simulator/ptx/*.cpp ${PROJECT_SOURCE_DIR}/simulator/exec/*.cpp
     ${PROJECT_SOURCE_DIR}/simulator/link/*.cpp)
add_library(cudajit_sim_core OBJECT ${CUDAJIT_SIM_CORE_SOURCES})
set_target_properties(cudajit_sim_core PROPERTIES POSITION_INDEPENDENT_CODE ON)
target_include_directories(cudajit_sim_core PUBLIC ${PROJECT_SOURCE_DIR}/simulator)
target_link_libraries(cudajit_sim_core PUBLIC Threads::Threads)
# Fatbins compress their PTX with zstd (CUDA 12.8+): the linker reads it (link/ptx_linker.cpp).
if(TARGET zstd::libzstd_static)
  target_link_libraries(cudajit_sim_core PRIVATE zstd::libzstd_static)
  target_compile_definitions(cudajit_sim_core PRIVATE CUDAJIT_SIM_HAVE_ZSTD=1)
endif()
# Float instructions set the host's rounding mode around their lanes: no operation may be
# folded or moved across it.
set_source_files_properties(${PROJECT_SOURCE_DIR}/simulator/exec/ops/float.cpp
                            PROPERTIES COMPILE_OPTIONS -frounding-math)

file(GLOB CUDAJIT_SIM_DRIVER_SOURCES CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/simulator/driver/*.cpp)
if(CUDAJIT_SIM_DRIVER_SOURCES)
  add_library(cudajit_sim SHARED ${CUDAJIT_SIM_DRIVER_SOURCES})
  # Only the driver API (cu*), the nvJitLink stand-in (nvJitLink*) and cudajitSim* are exported:
  # the simulator's C++ stays inside, so it never binds to libcudajit's symbols or they to it.
  set(CUDAJIT_SIM_VERSION_SCRIPT ${PROJECT_BINARY_DIR}/generated/libcudajit_sim.map)
  file(CONFIGURE OUTPUT ${CUDAJIT_SIM_VERSION_SCRIPT} CONTENT [=[
{
  global: cu*; nvJitLink*; cudajitSim*;
  local: *;
};
]=])
  set_target_properties(cudajit_sim PROPERTIES OUTPUT_NAME cudajit_sim
                                               LINK_DEPENDS ${CUDAJIT_SIM_VERSION_SCRIPT})
  target_link_libraries(cudajit_sim PRIVATE cudajit_sim_core)
  target_include_directories(cudajit_sim PRIVATE ${PROJECT_SOURCE_DIR}/runtime/include)  # cuda_api.h
  target_link_options(cudajit_sim PRIVATE -Wl,-z,defs
                      -Wl,--version-script=${CUDAJIT_SIM_VERSION_SCRIPT})
  cudajit_glibc_compat(cudajit_sim)
  install(TARGETS cudajit_sim LIBRARY DESTINATION cudajit)
  if(CUDAJIT_COPY_TO_PACKAGE)
    add_custom_target(cudajit_sim_package ALL
      COMMAND ${CMAKE_COMMAND} -E copy_if_different $<TARGET_FILE:cudajit_sim>
              ${PROJECT_SOURCE_DIR}/python/cudajit/
      DEPENDS cudajit_sim
      COMMENT "Copying libcudajit_sim.so into python/cudajit/"
      VERBATIM)
  endif()
endif()

if(CUDAJIT_BUILD_TESTS)
  # The simulator's own tests: no LLVM, so they build and link in seconds.
  file(GLOB CUDAJIT_SIM_TEST_SOURCES CONFIGURE_DEPENDS
       ${PROJECT_SOURCE_DIR}/tests/cpp/simulator/*.cpp)
  if(CUDAJIT_SIM_TEST_SOURCES)
    find_path(CATCH2_INCLUDE_DIR catch2/catch.hpp REQUIRED DOC "Catch2 v2 single header")
    add_executable(cudajit_sim_tests ${CUDAJIT_SIM_TEST_SOURCES})
    target_include_directories(cudajit_sim_tests SYSTEM PRIVATE ${CATCH2_INCLUDE_DIR})
    target_link_libraries(cudajit_sim_tests PRIVATE cudajit_sim_core)
    add_test(NAME cudajit_sim_tests COMMAND cudajit_sim_tests)
  endif()
endif()
