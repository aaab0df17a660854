// Parses the text form printed by compiler/ir/printer.h. Errors carry
// "file:line:col: message". The result is structurally sound (every name
// defined once, before use) but not verified: call ir::Verify for types.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "isa/base/status.h"

namespace tessera::ir {

class Graph;

StatusOr<std::unique_ptr<Graph>> ParseGraph(std::string_view text, const std::string& filename = "<input>");

}  // namespace tessera::ir
