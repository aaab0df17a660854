# The backend registry's list (driver/registry.h). A backend is a library that
# defines `tessera::BackendInfo <FUNCTION>()`; it is registered where the
# library (and its dependency) is defined:
#
#   tessera_add_backend(NAME sim FUNCTION SimBackend TARGET tessera_driver_sim)
#   tessera_backend_unavailable(NAME rtl DESCRIPTION "..." ENABLE "install ..., configure with ...")
#
# At the end of configuration the registration list is generated as a source
# file that calls every registered FUNCTION by name, and compiled into
# `tessera_driver_registry`, which links each backend TARGET. Explicit calls,
# not self-registering static objects: a static library's unreferenced object
# files are dropped by the linker, so a backend that registered itself from a
# static initializer would silently vanish from programs that never name it.
# An unavailable row is dropped when a backend of the same name is registered.

function(tessera_add_backend)
  cmake_parse_arguments(B "NEEDS_HARDWARE" "NAME;FUNCTION;TARGET" "" ${ARGN})
  set_property(GLOBAL APPEND PROPERTY TESSERA_BACKENDS "${B_NAME}")
  set_property(GLOBAL PROPERTY TESSERA_BACKEND_${B_NAME}_NEEDS_HARDWARE "${B_NEEDS_HARDWARE}")
  set_property(GLOBAL PROPERTY TESSERA_BACKEND_${B_NAME}_FUNCTION "${B_FUNCTION}")
  set_property(GLOBAL PROPERTY TESSERA_BACKEND_${B_NAME}_TARGET "${B_TARGET}")
endfunction()

function(tessera_backend_unavailable)
  cmake_parse_arguments(B "HAS_TIMING" "NAME;DESCRIPTION;ENABLE" "" ${ARGN})
  set_property(GLOBAL APPEND PROPERTY TESSERA_UNAVAILABLE_BACKENDS "${B_NAME}")
  set_property(GLOBAL PROPERTY TESSERA_UNAVAILABLE_${B_NAME} "${B_DESCRIPTION}|${B_HAS_TIMING}|${B_ENABLE}")
endfunction()

# The registered backends that are devices (they have a library target) and
# open without hardware (not NEEDS_HARDWARE, i.e. not fpga), in registration
# order: for tests that run on every device. Backends register
# in directories added before examples/, bench/ and tests/.
function(tessera_device_backends out)
  get_property(names GLOBAL PROPERTY TESSERA_BACKENDS)
  set(devices "")
  foreach(n IN LISTS names)
    get_property(tgt GLOBAL PROPERTY TESSERA_BACKEND_${n}_TARGET)
    get_property(hw GLOBAL PROPERTY TESSERA_BACKEND_${n}_NEEDS_HARDWARE)
    if(tgt AND NOT hw)
      list(APPEND devices ${n})
    endif()
  endforeach()
  set(${out} ${devices} PARENT_SCOPE)
endfunction()

# Called once, deferred to the end of the top-level directory (driver/CMakeLists.txt).
function(tessera_generate_backend_registry)
  get_property(names GLOBAL PROPERTY TESSERA_BACKENDS)
  get_property(unavailable GLOBAL PROPERTY TESSERA_UNAVAILABLE_BACKENDS)
  set(decls "")
  set(rows "")
  set(targets "")
  foreach(n IN LISTS names)
    get_property(fn GLOBAL PROPERTY TESSERA_BACKEND_${n}_FUNCTION)
    get_property(tgt GLOBAL PROPERTY TESSERA_BACKEND_${n}_TARGET)
    string(APPEND decls "BackendInfo ${fn}();\n")
    string(APPEND rows "  rows.push_back(${fn}());\n")
    get_property(hw GLOBAL PROPERTY TESSERA_BACKEND_${n}_NEEDS_HARDWARE)
    if(hw)
      string(APPEND rows "  rows.back().needs_hardware = true;\n")
    endif()
    if(tgt)
      list(APPEND targets ${tgt})
    endif()
  endforeach()
  foreach(n IN LISTS unavailable)
    if(n IN_LIST names)
      continue()
    endif()
    get_property(row GLOBAL PROPERTY TESSERA_UNAVAILABLE_${n})
    string(REPLACE "|" ";" row "${row}")
    list(GET row 0 desc)
    list(GET row 1 timing)
    list(GET row 2 enable)
    if(timing)
      set(timing true)
    else()
      set(timing false)
    endif()
    string(APPEND rows "  rows.push_back(Unavailable(\"${n}\", \"${desc}\", ${timing}, \"${enable}\"));\n")
  endforeach()
  set(TESSERA_BACKEND_DECLS "${decls}")
  set(TESSERA_BACKEND_ROWS "${rows}")
  configure_file(${PROJECT_SOURCE_DIR}/driver/backend_list.cc.in ${PROJECT_BINARY_DIR}/driver/backend_list.cc @ONLY)
  add_library(tessera_driver_registry ${PROJECT_SOURCE_DIR}/driver/registry.cc
              ${PROJECT_BINARY_DIR}/driver/backend_list.cc)
  target_include_directories(tessera_driver_registry PUBLIC ${PROJECT_SOURCE_DIR})
  target_link_libraries(tessera_driver_registry PUBLIC tessera_driver PRIVATE ${targets})
endfunction()

# A backend built per config (rtl: one Verilated model each) declares the
# configs it has; tests that sweep configs ask before adding a case:
#
#   tessera_backend_configs(rtl default tiny)
#   tessera_backend_has_config(rtl large ok)   # ok = FALSE
function(tessera_backend_configs name)
  set_property(GLOBAL PROPERTY TESSERA_BACKEND_${name}_CONFIGS ${ARGN})
endfunction()

function(tessera_backend_has_config name config out)
  get_property(configs GLOBAL PROPERTY TESSERA_BACKEND_${name}_CONFIGS)
  if(NOT configs OR config IN_LIST configs)
    set(${out} TRUE PARENT_SCOPE)
  else()
    set(${out} FALSE PARENT_SCOPE)
  endif()
endfunction()
