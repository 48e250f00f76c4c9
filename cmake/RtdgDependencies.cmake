# Finds rtdg's dependencies. Required: CUDA toolkit (NVRTC; the driver is loaded at run
# time), Eigen, HDF5, OpenSSL (SHA-256), spdlog, nlohmann_json, CLI11, toml++.
# Optional: Gmsh SDK and VTK (pre- and post-processing), METIS (mesh partitioning), MPI
# (RTDG_WITH_MPI); reported at the end of configure.

if(NOT DEFINED CUDAToolkit_ROOT AND EXISTS /usr/local/cuda)
  set(CUDAToolkit_ROOT /usr/local/cuda)
endif()
find_package(CUDAToolkit 12.4 REQUIRED)
find_package(Threads REQUIRED)
find_package(OpenMP REQUIRED COMPONENTS CXX)
find_package(OpenSSL REQUIRED COMPONENTS Crypto)
find_package(Eigen3 3.3 REQUIRED NO_MODULE)
find_package(spdlog REQUIRED)
find_package(nlohmann_json 3.10 REQUIRED)

# CLI11 and toml++ are header-only; Debian ships CMake configs for both, other systems may
# only have the headers (or a folder handed in with RTDG_EXTRA_INCLUDE_DIRS).
set(RTDG_EXTRA_INCLUDE_DIRS "" CACHE PATH "Extra include folders searched for header-only dependencies")
find_path(CLI11_INCLUDE_DIR CLI/CLI.hpp HINTS ${RTDG_EXTRA_INCLUDE_DIRS})
# toml++ before 3.4 (Debian 12 ships 3.3) has only toml++/toml.h; every version has it, so
# code includes <toml++/toml.h>.
find_path(TOMLPP_INCLUDE_DIR NAMES toml++/toml.h toml++/toml.hpp HINTS ${RTDG_EXTRA_INCLUDE_DIRS})
if(NOT CLI11_INCLUDE_DIR)
  message(FATAL_ERROR "CLI11 not found (Debian: libcli11-dev); scripts/setup-deps installs it")
endif()
if(NOT TOMLPP_INCLUDE_DIR)
  message(FATAL_ERROR "toml++ not found (Debian: libtomlplusplus-dev); scripts/setup-deps installs it")
endif()
add_library(rtdg_cli11 INTERFACE)
target_include_directories(rtdg_cli11 SYSTEM INTERFACE ${CLI11_INCLUDE_DIR})
add_library(rtdg_tomlpp INTERFACE)
target_include_directories(rtdg_tomlpp SYSTEM INTERFACE ${TOMLPP_INCLUDE_DIR})
# toml++ 3.3 asserts on some malformed input that its parser then handles (Debug builds abort
# where release builds report a parse error): keep the asserts out, so a Debug (sanitizer)
# build treats bad input as the release build does.
# (A function-style macro: CMake's compile definitions drop those, so it goes in as an option.)
target_compile_definitions(rtdg_tomlpp INTERFACE TOML_HEADER_ONLY=1 TOML_EXCEPTIONS=1)
target_compile_options(rtdg_tomlpp INTERFACE "-DTOML_ASSERT(expr)=static_assert(true)")

# HDF5: the serial library unless an MPI build is asked for (Debian installs both flavours
# side by side, and FindHDF5 would otherwise pick whichever h5cc comes first).
if(NOT RTDG_WITH_MPI)
  set(HDF5_PREFER_PARALLEL FALSE)
  if(EXISTS /usr/lib/x86_64-linux-gnu/hdf5/serial AND NOT DEFINED HDF5_ROOT)
    set(HDF5_ROOT /usr/lib/x86_64-linux-gnu/hdf5/serial)
  endif()
else()
  set(HDF5_PREFER_PARALLEL TRUE)
  find_package(MPI REQUIRED COMPONENTS C CXX)
endif()
find_package(HDF5 REQUIRED COMPONENTS C)
if(HDF5_IS_PARALLEL AND NOT RTDG_WITH_MPI)
  message(FATAL_ERROR "Found a parallel HDF5 (${HDF5_INCLUDE_DIRS}) but RTDG_WITH_MPI is OFF; set HDF5_ROOT to the serial one")
endif()
add_library(rtdg_hdf5 INTERFACE)
target_include_directories(rtdg_hdf5 SYSTEM INTERFACE ${HDF5_INCLUDE_DIRS})
target_link_libraries(rtdg_hdf5 INTERFACE ${HDF5_C_LIBRARIES})
target_compile_definitions(rtdg_hdf5 INTERFACE ${HDF5_DEFINITIONS})
if(HDF5_IS_PARALLEL)
  # The parallel hdf5.h includes mpi.h.
  target_link_libraries(rtdg_hdf5 INTERFACE MPI::MPI_C)
endif()

# Optional components. AUTO: use when found; ON: required; OFF: skip.
set(RTDG_HAVE_GMSH OFF)
if(NOT RTDG_WITH_GMSH STREQUAL "OFF")
  find_path(GMSH_INCLUDE_DIR gmsh.h)
  find_library(GMSH_LIBRARY NAMES gmsh)
  if(GMSH_INCLUDE_DIR AND GMSH_LIBRARY)
    set(RTDG_HAVE_GMSH ON)
    add_library(rtdg_gmsh INTERFACE)
    target_include_directories(rtdg_gmsh SYSTEM INTERFACE ${GMSH_INCLUDE_DIR})
    target_link_libraries(rtdg_gmsh INTERFACE ${GMSH_LIBRARY})
  elseif(RTDG_WITH_GMSH STREQUAL "ON")
    message(FATAL_ERROR "RTDG_WITH_GMSH=ON but the Gmsh SDK was not found (Debian: libgmsh-dev)")
  endif()
endif()

set(RTDG_HAVE_VTK OFF)
if(NOT RTDG_WITH_VTK STREQUAL "OFF")
  find_package(VTK QUIET COMPONENTS CommonCore CommonDataModel IOXML)
  if(VTK_FOUND)
    set(RTDG_HAVE_VTK ON)
  elseif(RTDG_WITH_VTK STREQUAL "ON")
    message(FATAL_ERROR "RTDG_WITH_VTK=ON but VTK was not found (Debian: libvtk9-dev)")
  endif()
endif()

# METIS partitions meshes for parallel runs. Partitioning is serial, so METIS is useful
# without MPI too (rtdg mesh --partitions); an MPI build needs it unless told otherwise
# (AUTO becomes ON there: RTDG_WITH_METIS=OFF leaves runs with the partitions stored in their
# .h5 meshes). Debian's libmetis-dev has neither a CMake config nor a pkg-config file.
set(RTDG_HAVE_METIS OFF)
if(NOT RTDG_WITH_METIS STREQUAL "OFF")
  find_path(METIS_INCLUDE_DIR metis.h)
  find_library(METIS_LIBRARY NAMES metis)
  if(METIS_INCLUDE_DIR AND METIS_LIBRARY)
    set(RTDG_HAVE_METIS ON)
    add_library(rtdg_metis INTERFACE)
    target_include_directories(rtdg_metis SYSTEM INTERFACE ${METIS_INCLUDE_DIR})
    target_link_libraries(rtdg_metis INTERFACE ${METIS_LIBRARY})
  elseif(RTDG_WITH_METIS STREQUAL "ON" OR RTDG_WITH_MPI)
    message(FATAL_ERROR "METIS was not found (Debian: libmetis-dev; scripts/setup-deps installs it). "
      "RTDG_WITH_METIS=${RTDG_WITH_METIS}, RTDG_WITH_MPI=${RTDG_WITH_MPI}: an MPI build partitions meshes with METIS; "
      "set RTDG_WITH_METIS=OFF to build without it (runs then need partitions stored by rtdg mesh --partitions)")
  endif()
endif()

function(rtdg_report_components)
  message(STATUS "rtdg components:")
  message(STATUS "  CUDA toolkit ${CUDAToolkit_VERSION} (NVRTC ${CUDAToolkit_LIBRARY_DIR}); driver loaded at run time")
  message(STATUS "  HDF5 ${HDF5_VERSION} (parallel: ${HDF5_IS_PARALLEL})")
  message(STATUS "  Gmsh SDK: ${RTDG_HAVE_GMSH}")
  message(STATUS "  VTK: ${RTDG_HAVE_VTK}")
  if(RTDG_HAVE_METIS)
    message(STATUS "  METIS: ON (${METIS_LIBRARY})")
  else()
    message(STATUS "  METIS: OFF (RTDG_WITH_METIS=${RTDG_WITH_METIS})")
  endif()
  if(RTDG_WITH_MPI)
    message(STATUS "  MPI: ON (MPI ${MPI_CXX_VERSION}, ${MPIEXEC_EXECUTABLE})")
  else()
    message(STATUS "  MPI: OFF")
  endif()
  message(STATUS "  warnings as errors: ${RTDG_WARNINGS_AS_ERRORS}; sanitizers: ${RTDG_SANITIZE}")
endfunction()
