// .tir text: any text parses or is an error; a graph that verifies prints to
// text that parses and prints the same again.
#include <cstdint>
#include <string>

#include "compiler/ir/graph.h"
#include "compiler/ir/parser.h"
#include "compiler/ir/printer.h"
#include "compiler/ir/verifier.h"
#include "tests/fuzz/fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace tessera;
  auto g = ir::ParseGraph(std::string_view(reinterpret_cast<const char*>(data), size), "fuzz.tir");
  if (!g.ok() || !ir::Verify(**g).ok()) return 0;
  const std::string text = ir::PrintGraph(**g);
  auto back = ir::ParseGraph(text, "printed");
  if (!back.ok()) fuzz::Broken("tir round trip", back.status().ToString() + "\n" + text);
  if (ir::PrintGraph(**back) != text) fuzz::Broken("tir round trip", "printed text changed");
  return 0;
}
