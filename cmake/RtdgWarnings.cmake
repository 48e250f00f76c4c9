# rtdg_target_warnings(<target>): the project's warning set, errors in CI.
add_library(rtdg_warnings INTERFACE)
target_compile_options(rtdg_warnings INTERFACE
  $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor
    -Wold-style-cast -Wcast-align -Woverloaded-virtual -Wconversion -Wsign-conversion
    -Wdouble-promotion -Wformat=2 -Wimplicit-fallthrough>)
if(RTDG_WARNINGS_AS_ERRORS)
  target_compile_options(rtdg_warnings INTERFACE $<$<COMPILE_LANGUAGE:CXX>:-Werror>)
endif()
# GCC 12 at -O3 (Release) reports -Wrestrict inside libstdc++'s std::string concatenation
# (GCC bug 105329: "accessing 9223372036854775810 or more bytes"), in code that only adds
# strings; off for GCC 12 so that a Release build with warnings as errors passes on Debian 12.
if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND CMAKE_CXX_COMPILER_VERSION VERSION_GREATER_EQUAL 12
   AND CMAKE_CXX_COMPILER_VERSION VERSION_LESS 13)
  target_compile_options(rtdg_warnings INTERFACE $<$<COMPILE_LANGUAGE:CXX>:-Wno-restrict>)
endif()

if(RTDG_SANITIZE)
  add_compile_options(-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined)
  # GCC's flow-based warnings see the sanitizers' instrumentation, not only the code, and give
  # false positives on it once optimizing (-O1 and up); they stay warnings in this build, and the
  # main build (-O2, uninstrumented) keeps them errors.
  if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
    add_compile_options(-Wno-error=maybe-uninitialized -Wno-error=stringop-overflow -Wno-error=stringop-overread
      -Wno-error=array-bounds -Wno-error=restrict -Wno-error=null-dereference)
  endif()
  add_link_options(-fsanitize=address,undefined)
endif()

# Every test executable links the DG libraries statically, with their debug information: about
# 110 MB each and 3.9 GB for the RelWithDebInfo build folder, which together with the sanitizer
# build filled the disk of a CI machine (2026-11-26). Compressed debug sections (zlib) are
# read by gdb, addr2line and the sanitizers' symbolizer alike, and make executables 3x smaller.
if(RTDG_COMPRESS_DEBUG_INFO)
  include(CheckCXXCompilerFlag)
  include(CheckLinkerFlag)
  check_cxx_compiler_flag(-gz RTDG_CXX_HAS_GZ)
  check_linker_flag(CXX -gz RTDG_LINKER_HAS_GZ)
  if(RTDG_CXX_HAS_GZ AND RTDG_LINKER_HAS_GZ)
    add_compile_options($<$<COMPILE_LANGUAGE:C,CXX>:-gz>)
    add_link_options(-gz)
  endif()
endif()

function(rtdg_target_warnings target)
  target_link_libraries(${target} PRIVATE $<BUILD_INTERFACE:rtdg_warnings>)
endfunction()
# -Wnull-dereference is left out: with GCC 12 it reports false positives inside libstdc++'s
# stream buffers at -O2, which would make every file that reads a stream fail under -Werror.
