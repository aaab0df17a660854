# All third-party dependencies are found here, in one place. Each comes from a
# Debian package that tools/install-deps.sh installs; a missing one stops the
# configure step with the package to install.

macro(tessera_require found pkg what)
  if(NOT ${found})
    message(FATAL_ERROR "Tessera needs ${what}: install the Debian package '${pkg}' "
                        "(tools/install-deps.sh does it).")
  endif()
endmacro()

find_package(fmt CONFIG QUIET)
tessera_require(fmt_FOUND libfmt-dev "the fmt library")
find_package(nlohmann_json CONFIG QUIET)
tessera_require(nlohmann_json_FOUND nlohmann-json3-dev "nlohmann-json")
find_package(CLI11 CONFIG QUIET)
tessera_require(CLI11_FOUND libcli11-dev "CLI11")
find_package(GTest CONFIG QUIET)
tessera_require(GTest_FOUND libgtest-dev "GoogleTest")
find_package(benchmark CONFIG QUIET)
tessera_require(benchmark_FOUND libbenchmark-dev "Google Benchmark")
find_package(Threads REQUIRED)
# ONNX import (compiler/onnx): the ONNX C++ library with its checker and shape
# inference, and the protobuf runtime it is built on.
find_package(Protobuf QUIET)
tessera_require(Protobuf_FOUND libprotobuf-dev "protobuf")
# SHA-256 of compiled models (compiler/backend/tsr_check.h).
find_package(OpenSSL QUIET)
tessera_require(OpenSSL_FOUND libssl-dev "OpenSSL (libcrypto)")
find_package(ONNX CONFIG QUIET)
tessera_require(ONNX_FOUND libonnx-dev "the ONNX C++ library")

# Python with numpy/torch/onnx/sklearn: Debian's interpreter, never the first
# `python3` on PATH (which may be a different installation without them).
set(TESSERA_PYTHON /usr/bin/python3 CACHE FILEPATH "Python interpreter with Debian's python3-* packages")
if(NOT EXISTS ${TESSERA_PYTHON})
  message(FATAL_ERROR "Tessera needs ${TESSERA_PYTHON}: install the Debian package 'python3'.")
endif()

# FileCheck and lit (LLVM 15) for text-in/text-out IR and tool tests.
find_program(TESSERA_FILECHECK FileCheck PATHS /usr/lib/llvm-15/bin NO_DEFAULT_PATH)
tessera_require(TESSERA_FILECHECK llvm-15-tools "FileCheck")
set(TESSERA_LIT /usr/lib/llvm-15/build/utils/lit/lit.py)
if(NOT EXISTS ${TESSERA_LIT})
  message(FATAL_ERROR "Tessera needs lit: install the Debian package 'llvm-15-tools'.")
endif()

# The Python binding (python/): pybind11 against Debian's interpreter and its
# development headers, both found through FindPython for ${TESSERA_PYTHON}.
set(Python_EXECUTABLE ${TESSERA_PYTHON})
find_package(Python 3 QUIET COMPONENTS Interpreter Development.Module)
tessera_require(Python_Development.Module_FOUND python3-dev "the Python headers (for the binding)")
find_package(pybind11 CONFIG QUIET)
tessera_require(pybind11_FOUND pybind11-dev "pybind11 (for the Python binding)")

# SystemC 2.3.4 with TLM-2.0 (hw/systemc, the `systemc` backend, the virtual
# platform example). Optional: without it `systemc` stays a registry row that
# says how to get it.
find_path(TESSERA_SYSTEMC_INCLUDE_DIR systemc.h)
find_library(TESSERA_SYSTEMC_LIBRARY systemc)
if(TESSERA_SYSTEMC_INCLUDE_DIR AND TESSERA_SYSTEMC_LIBRARY AND EXISTS ${TESSERA_SYSTEMC_INCLUDE_DIR}/tlm.h)
  set(TESSERA_HAVE_SYSTEMC ON)
  add_library(SystemC::systemc UNKNOWN IMPORTED)
  set_target_properties(SystemC::systemc PROPERTIES IMPORTED_LOCATION ${TESSERA_SYSTEMC_LIBRARY}
                        INTERFACE_INCLUDE_DIRECTORIES ${TESSERA_SYSTEMC_INCLUDE_DIR})
else()
  set(TESSERA_HAVE_SYSTEMC OFF)
  message(STATUS "SystemC not found: the systemc target is not built (install the Debian package 'libsystemc-dev'; "
                 "tools/install-deps.sh does it)")
endif()

# The RTL's tools (hw/rtl): Verilator (lint, the Verilated models) and Yosys
# (synthesis checks). Optional for the library; without them the RTL tests
# are not defined, and configuration says so.
find_program(TESSERA_VERILATOR verilator)
find_program(TESSERA_YOSYS yosys)
# The compiler of the rtl backend's Verilated C++ (driver/rtl): clang++-15
# (Debian 'clang-15', tools/install-deps.sh) when found, whose code runs the
# model ~14% faster than gcc 12's and builds faster (docs/performance.md);
# else the project's compiler. Same libstdc++, so the objects link together.
find_program(TESSERA_CLANGXX clang++-15)
if(TESSERA_CLANGXX)
  set(default_rtl_cxx ${TESSERA_CLANGXX})
else()
  set(default_rtl_cxx ${CMAKE_CXX_COMPILER})
endif()
set(TESSERA_RTL_CXX ${default_rtl_cxx} CACHE FILEPATH "C++ compiler of the rtl backend's Verilated models")
# The Verilator runtime, compiled once for every Verilated model of the build
# (hw/rtl's unit models, driver/rtl's tsr_accel per config), VCD tracing
# included; warnings off: it is not our code.
if(TESSERA_VERILATOR)
  execute_process(COMMAND ${TESSERA_VERILATOR} --getenv VERILATOR_ROOT OUTPUT_VARIABLE TESSERA_VERILATOR_ROOT
                  OUTPUT_STRIP_TRAILING_WHITESPACE)
  add_library(tessera_verilated STATIC ${TESSERA_VERILATOR_ROOT}/include/verilated.cpp
                                       ${TESSERA_VERILATOR_ROOT}/include/verilated_threads.cpp
                                       ${TESSERA_VERILATOR_ROOT}/include/verilated_vcd_c.cpp)
  target_include_directories(tessera_verilated SYSTEM PUBLIC ${TESSERA_VERILATOR_ROOT}/include
                             ${TESSERA_VERILATOR_ROOT}/include/vltstd)
  target_compile_options(tessera_verilated PRIVATE -w)
  target_link_libraries(tessera_verilated PUBLIC Threads::Threads)
endif()
if(NOT TESSERA_VERILATOR OR NOT TESSERA_YOSYS)
  message(STATUS "Tessera: the RTL checks need Verilator and Yosys (Debian packages 'verilator', 'yosys'; "
                 "tools/install-deps.sh installs them): hw/rtl tests are skipped.")
endif()
# The iCE40 bitstream flow (fpga/ice40): nextpnr-ice40 and icepack (Debian
# packages 'nextpnr-ice40', 'fpga-icestorm'); without them its slow test is
# not defined.
find_program(TESSERA_NEXTPNR_ICE40 nextpnr-ice40)
find_program(TESSERA_ICEPACK icepack)
