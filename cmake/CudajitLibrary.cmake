# cudajit_static (OBJECT, PIC) and libcudajit.so (the objects + LLVM statically, symbols hidden).
find_package(Threads REQUIRED)

file(GLOB_RECURSE CUDAJIT_SOURCES CONFIGURE_DEPENDS
     ${PROJECT_SOURCE_DIR}/compiler/src/*.cpp ${PROJECT_SOURCE_DIR}/runtime/src/*.cpp)
if(NOT CUDAJIT_SOURCES)
  # Keeps an early tree (no sources yet) configurable.
  set(placeholder ${PROJECT_BINARY_DIR}/generated/no_sources_yet.cpp)
  file(CONFIGURE OUTPUT ${placeholder} CONTENT "// compiler/src and runtime/src hold no sources yet.\n")
  set(CUDAJIT_SOURCES ${placeholder})
endif()

# Boost.Context's fcontext switches the cpu device's fibers (threads of blocks that synchronise).
# The static archive is position-independent assembly; linked in, its symbols stay hidden.
find_path(CUDAJIT_BOOST_INCLUDE_DIR boost/context/detail/fcontext.hpp REQUIRED
          DOC "Boost.Context headers (Debian: libboost-context-dev)")
find_library(CUDAJIT_BOOST_CONTEXT_LIB NAMES libboost_context.a boost_context REQUIRED
             DOC "Boost.Context library")

add_library(cudajit_static OBJECT ${CUDAJIT_SOURCES})
set_target_properties(cudajit_static PROPERTIES POSITION_INDEPENDENT_CODE ON)
# Sections per function and datum, so the linker drops what nothing reaches (--gc-sections).
target_compile_options(cudajit_static PRIVATE -ffunction-sections -fdata-sections)
target_include_directories(cudajit_static PUBLIC ${PROJECT_SOURCE_DIR}/compiler/include
                                                 ${PROJECT_SOURCE_DIR}/runtime/include)
target_include_directories(cudajit_static SYSTEM PUBLIC ${LLVM_INCLUDE_DIRS}
                                                        ${CUDAJIT_THIRD_PARTY_INCLUDE_DIRS})
target_include_directories(cudajit_static SYSTEM PRIVATE ${CUDAJIT_BOOST_INCLUDE_DIR})
target_compile_definitions(cudajit_static PUBLIC ${CUDAJIT_LLVM_DEFINITIONS})
target_compile_definitions(cudajit_static PRIVATE CUDAJIT_CUDA_HOME="${CUDAJIT_CUDA_HOME}"
                                                  CUDAJIT_VERSION="${PROJECT_VERSION}")
target_link_libraries(cudajit_static PUBLIC ${CUDAJIT_LLVM_LIBS} ${CUDAJIT_BOOST_CONTEXT_LIB}
                                            ${CMAKE_DL_LIBS} Threads::Threads)

# Only cudajit::* (with its typeinfo and vtables) is exported; LLVM, libstdc++ instantiations and
# everything else stays inside, so another LLVM in the process (Triton, llvmlite) never binds to
# ours or ours to it.
set(CUDAJIT_VERSION_SCRIPT ${PROJECT_BINARY_DIR}/generated/libcudajit.map)
file(CONFIGURE OUTPUT ${CUDAJIT_VERSION_SCRIPT} @ONLY CONTENT [=[
{
  global:
    extern "C++" {
      cudajit::*;
      typeinfo?for?cudajit::*;
      typeinfo?name?for?cudajit::*;
      vtable?for?cudajit::*;
      VTT?for?cudajit::*;
      virtual?thunk?to?cudajit::*;
      non-virtual?thunk?to?cudajit::*;
    };
  local: *;
};
]=])

add_library(libcudajit SHARED)
set_target_properties(libcudajit PROPERTIES OUTPUT_NAME cudajit LINK_DEPENDS
                                            ${CUDAJIT_VERSION_SCRIPT})
# PRIVATE: the objects and LLVM go in here; users get only the public headers below.
target_link_libraries(libcudajit PRIVATE cudajit_static)
target_include_directories(libcudajit INTERFACE ${PROJECT_SOURCE_DIR}/compiler/include
                                                ${PROJECT_SOURCE_DIR}/runtime/include)
target_include_directories(libcudajit SYSTEM INTERFACE ${CUDAJIT_THIRD_PARTY_INCLUDE_DIRS})
target_link_options(libcudajit PRIVATE
  -Wl,--version-script=${CUDAJIT_VERSION_SCRIPT}
  -Wl,--exclude-libs,ALL   # belt and braces: nothing from a static archive is exported
  -Wl,--gc-sections
  -Wl,--as-needed
  -Wl,-z,defs)             # a missing LLVM component fails the link, not the import
cudajit_use_fast_linker(libcudajit)
cudajit_glibc_compat(libcudajit)
