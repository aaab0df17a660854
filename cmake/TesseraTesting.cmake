# Test helpers. Unit tests sit next to the code they test and are registered
# with CTest through tessera_gtest(); cross-component tests live in tests/.
enable_testing()
include(GoogleTest)

# tessera_gtest(NAME SOURCES... LIBS lib... [LABELS label...] [TIMEOUT s])
function(tessera_gtest name)
  cmake_parse_arguments(T "" "TIMEOUT" "SOURCES;LIBS;LABELS" ${ARGN})
  add_executable(${name} ${T_SOURCES})
  target_link_libraries(${name} PRIVATE ${T_LIBS} GTest::gtest GTest::gtest_main)
  if(NOT T_TIMEOUT)
    set(T_TIMEOUT 300)
  endif()
  gtest_discover_tests(${name}
    WORKING_DIRECTORY ${PROJECT_SOURCE_DIR}
    PROPERTIES LABELS "unit;${T_LABELS}" TIMEOUT ${T_TIMEOUT}
    DISCOVERY_TIMEOUT 60)
endfunction()
