#include "tools/tessera/common.h"

#include <cstdio>

#include "isa/asm.h"
#include "isa/base/file.h"

namespace tessera::cli {

StatusOr<Program> LoadProgramFile(const HwConfig& cfg, const std::string& path) {
  TSR_ASSIGN_OR_RETURN(std::vector<uint8_t> bytes, ReadBinaryFile(path, uint64_t{1} << 32));
  if (IsProgramObject(bytes)) return ParseProgramObject(cfg, bytes, path);
  return Assemble(cfg, std::string(bytes.begin(), bytes.end()), path);
}

Status WriteOutput(const std::string& path, const std::string& text) {
  if (!path.empty() && path != "-") return WriteFile(path, text);
  std::fputs(text.c_str(), stdout);
  return OkStatus();
}

}  // namespace tessera::cli
