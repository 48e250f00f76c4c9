# `rtdg mesh --partitions` as a user runs it on data/meshes/sphere.h5 (MESH), in WORK:
# partitions are stored, listed, kept when the file is rewritten with another count, and
# refused with a message when they cannot be made. H5LS (optional) checks the stored layout.
file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}")

function(rtdg_mesh)
  execute_process(COMMAND "${RTDG}" mesh ${ARGN} WORKING_DIRECTORY "${WORK}"
    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  set(rc "${rc}" PARENT_SCOPE)
  set(out "${out}" PARENT_SCOPE)
  set(err "${err}" PARENT_SCOPE)
endfunction()

function(expect_failure expected)
  rtdg_mesh(${ARGN})
  if(rc EQUAL 0)
    message(FATAL_ERROR "rtdg mesh ${ARGN} was accepted:\n${out}")
  endif()
  string(FIND "${err}" "${expected}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "rtdg mesh ${ARGN}: expected \"${expected}\" in:\n${err}")
  endif()
endfunction()

if(NOT HAVE_METIS)
  expect_failure("needs METIS, and this rtdg was built without it" "${MESH}" --partitions 2 -o "${WORK}/s.h5")
  return()
endif()

rtdg_mesh("${MESH}" --partitions 2,3 --partition-seed 1 -o "${WORK}/sphere.h5")
message("${out}")
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "rtdg mesh --partitions 2,3 failed (${rc}):\n${err}")
endif()
set(line2 "")
foreach(parts 2 3)
  if(NOT out MATCHES "  partition: ${parts} parts \\(metis-kway, seed 1\\): [0-9.]+ elements per part \\(imbalance 1\\.0[0-3][0-9]\\), [0-9]+ faces cut, [0-9.]+ halo faces per part\n")
    message(FATAL_ERROR "no ${parts}-part partition line in:\n${out}")
  endif()
endforeach()
string(REGEX MATCH "  partition: 2 parts[^\n]*" line2 "${out}")
string(REGEX MATCH "([0-9]+) tetrahedra" unused "${out}")
set(K "${CMAKE_MATCH_1}")

# Rewriting the file with another count keeps the stored partitions.
rtdg_mesh("${WORK}/sphere.h5" --partitions 4 -o "${WORK}/sphere.h5")
message("${out}")
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "rtdg mesh sphere.h5 --partitions 4 failed (${rc}):\n${err}")
endif()
string(FIND "${out}" "${line2}" at)
if(at EQUAL -1 OR NOT out MATCHES "  partition: 3 parts \\(metis-kway, seed 1\\)" OR
   NOT out MATCHES "  partition: 4 parts \\(metis-kway, seed 0\\)")
  message(FATAL_ERROR "the 2- and 3-part partitions were not kept beside the new 4-part one:\n${out}")
endif()

if(H5LS)
  execute_process(COMMAND "${H5LS}" "${WORK}/sphere.h5/partitions" RESULT_VARIABLE rc OUTPUT_VARIABLE listing)
  foreach(parts 2 3 4)
    if(NOT listing MATCHES "(^|\n)${parts} +Dataset {${K}}")
      message(FATAL_ERROR "h5ls shows no /partitions/${parts} of ${K} elements:\n${listing}")
    endif()
  endforeach()
endif()

expect_failure("cannot partition ${K} elements into 5000 parts" "${MESH}" --partitions 5000 -o "${WORK}/x.h5")
expect_failure("--partitions" "${MESH}" --partitions 0 -o "${WORK}/x.h5")
expect_failure("--partition-tolerance" "${MESH}" --partitions 2 --partition-tolerance 3 -o "${WORK}/x.h5")
