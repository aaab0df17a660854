# Runs a reference command and a board command and compares the files they
# write byte for byte (cmake -P; used by the simulated-board tests):
#   -DREF="cmd;args" -DREF_OUT=file -DBOARD="cmd;args" -DBOARD_OUT=file
foreach(side REF BOARD)
  file(REMOVE ${${side}_OUT})
  execute_process(COMMAND ${${side}} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  message("${side}: ${out}${err}")
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${side} command failed (${rc})")
  endif()
endforeach()
execute_process(COMMAND ${CMAKE_COMMAND} -E compare_files ${REF_OUT} ${BOARD_OUT} RESULT_VARIABLE same)
if(NOT same EQUAL 0)
  message(FATAL_ERROR "${BOARD_OUT} differs from ${REF_OUT}")
endif()
message("bit-exact: ${BOARD_OUT} == ${REF_OUT}")
