# Test helpers. Unit tests sit next to the code they test and are registered
# with CTest through tessera_gtest(); cross-component tests live in tests/.
# Labels select suites: `ctest -L differential|e2e|slow|unit|lit|example`;
# `make test` excludes `slow`, `make test-slow` runs only it.
enable_testing()
include(GoogleTest)

# tessera_gtest(NAME SOURCES... LIBS lib... [LABELS label...] [TIMEOUT s])
#
# Labels and the timeout are applied by a CTest include file that runs after
# the discovered tests are defined: gtest_discover_tests(PROPERTIES) flattens
# a list value, so "LABELS unit;e2e TIMEOUT 900" would lose every label but
# the first and the timeout with it.
function(tessera_gtest name)
  cmake_parse_arguments(T "" "TIMEOUT" "SOURCES;LIBS;LABELS" ${ARGN})
  add_executable(${name} ${T_SOURCES})
  target_link_libraries(${name} PRIVATE ${T_LIBS} GTest::gtest GTest::gtest_main)
  if(NOT T_TIMEOUT)
    set(T_TIMEOUT 300)
  endif()
  gtest_discover_tests(${name}
    WORKING_DIRECTORY ${PROJECT_SOURCE_DIR}
    TEST_LIST ${name}_TESTS
    DISCOVERY_TIMEOUT 60)
  set(labels unit ${T_LABELS})
  set(props ${CMAKE_CURRENT_BINARY_DIR}/${name}_properties.cmake)
  file(WRITE ${props}
       "if(${name}_TESTS)\n"
       "  set_tests_properties(\${${name}_TESTS} PROPERTIES LABELS \"${labels}\" TIMEOUT ${T_TIMEOUT})\n"
       "endif()\n")
  set_property(DIRECTORY APPEND PROPERTY TEST_INCLUDE_FILES ${props})
endfunction()
