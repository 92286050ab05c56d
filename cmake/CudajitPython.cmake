# The Python module cudajit._core (pybind11), linked against libcudajit.so, which it finds
# beside itself ($ORIGIN): in python/cudajit/ in the development flow, in the installed package.
find_package(Python 3.10 REQUIRED COMPONENTS Interpreter Development.Module)
if(NOT pybind11_DIR)
  # pybind11 is a pip package; under scikit-build-core it is on CMAKE_PREFIX_PATH already.
  execute_process(COMMAND "${Python_EXECUTABLE}" -m pybind11 --cmakedir
                  OUTPUT_VARIABLE pybind11_cmakedir OUTPUT_STRIP_TRAILING_WHITESPACE
                  RESULT_VARIABLE pybind11_found ERROR_QUIET)
  if(pybind11_found EQUAL 0)
    list(APPEND CMAKE_PREFIX_PATH "${pybind11_cmakedir}")
  endif()
endif()
set(PYBIND11_FINDPYTHON ON)
find_package(pybind11 CONFIG REQUIRED)

file(GLOB CUDAJIT_PYTHON_SOURCES CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/python/src/*.cpp)
if(NOT CUDAJIT_PYTHON_SOURCES)
  message(STATUS "cudajit: python/src holds no sources yet; not building _core")
  return()
endif()

pybind11_add_module(_core MODULE ${CUDAJIT_PYTHON_SOURCES})
target_link_libraries(_core PRIVATE libcudajit)
set_target_properties(_core PROPERTIES INSTALL_RPATH "$ORIGIN" BUILD_WITH_INSTALL_RPATH ON)
# Only PyInit__core leaves the module. A toolchain that links part of libstdc++ statically
# (devtoolset-style, as the GPU machine's does) would otherwise export its copies of std::
# functions, and libcudajit.so's calls would bind to them rather than to libstdc++.so: on an
# H200 formatting a stream handle in libcudajit crashed inside _core's copy of ostream.
set(CUDAJIT_CORE_VERSION_SCRIPT ${PROJECT_BINARY_DIR}/generated/_core.map)
file(CONFIGURE OUTPUT ${CUDAJIT_CORE_VERSION_SCRIPT} CONTENT "{ global: PyInit__core; local: *; };\n")
target_link_options(_core PRIVATE -Wl,--version-script=${CUDAJIT_CORE_VERSION_SCRIPT}
                    -Wl,--exclude-libs,ALL)
set_property(TARGET _core APPEND PROPERTY LINK_DEPENDS ${CUDAJIT_CORE_VERSION_SCRIPT})
cudajit_glibc_compat(_core)

# The wheel (scikit-build-core, wheel.packages = python/cudajit) gets both files in cudajit/.
if(CUDAJIT_PREBUILT_LIB)
  install(FILES "${CUDAJIT_PREBUILT_LIB}" DESTINATION cudajit)
else()
  install(TARGETS libcudajit LIBRARY DESTINATION cudajit)
endif()
install(TARGETS _core LIBRARY DESTINATION cudajit)

# Development flow: PYTHONPATH=python finds cudajit._core without installing.
if(CUDAJIT_COPY_TO_PACKAGE)
  add_custom_target(cudajit_package ALL
    COMMAND ${CMAKE_COMMAND} -E copy_if_different $<TARGET_FILE:_core> $<TARGET_FILE:libcudajit>
            ${PROJECT_SOURCE_DIR}/python/cudajit/
    DEPENDS _core libcudajit
    COMMENT "Copying _core and libcudajit.so into python/cudajit/"
    VERBATIM)
endif()
