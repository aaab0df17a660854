// The compiled artifact as a file (declared in compile.h): serialized and
// sealed, saved, loaded (mapped) and parsed behind the seal and format
// version checks, and the layer table `tessera inspect MODEL.tsr` prints.
#include <fmt/format.h>

#include <climits>
#include <set>

#include "compiler/backend/compile.h"
#include "compiler/backend/constants.h"
#include "compiler/backend/tsr.pb.h"
#include "compiler/backend/tsr_check.h"
#include "isa/base/file.h"

namespace tessera::backend {

StatusOr<std::string> SerializeModel(const tsr::Model& m) {
  std::string bytes;
  if (!m.SerializeToString(&bytes)) return InternalError("cannot serialize the compiled model");
  return SealModelBytes(std::move(bytes));
}

Status SaveModel(const tsr::Model& m, const std::string& path) {
  TSR_ASSIGN_OR_RETURN(std::string bytes, SerializeModel(m));
  return WriteFile(path, bytes);
}

namespace {

StatusOr<std::unique_ptr<tsr::Model>> ParseModelData(const uint8_t* data, uint64_t size, const std::string& source) {
  if (size > kMaxTsrBytes)
    return InvalidArgumentError("{}: {} bytes is larger than the {} bytes a .tsr may have", source, size, kMaxTsrBytes);
  TSR_RETURN_IF_ERROR(CheckModelSeal(data, size, source).status());
  auto m = std::make_unique<tsr::Model>();
  if (size > static_cast<uint64_t>(INT_MAX) || !m->ParseFromArray(data, static_cast<int>(size)) ||
      m->producer() != "tessera")
    return DataLossError("{}: not a Tessera compiled model (.tsr)", source);
  m->clear_content_sha256();
  if (m->format_version() != kTsrFormatVersion)
    return FailedPreconditionError("{}: format version {} is not supported (this build reads {}): recompile the model",
                                   source, m->format_version(), kTsrFormatVersion);
  return m;
}

}  // namespace

StatusOr<std::unique_ptr<tsr::Model>> ParseModel(const std::vector<uint8_t>& bytes, const std::string& source) {
  return ParseModelData(bytes.data(), bytes.size(), source);
}

StatusOr<std::unique_ptr<tsr::Model>> LoadModelFile(const std::string& path) {
  // Mapped, not read: the file is parsed once and needs no buffer of its own.
  TSR_ASSIGN_OR_RETURN(MappedFile file, MappedFile::Open(path, kMaxTsrBytes));
  return ParseModelData(file.data(), file.size(), path);
}

std::string DescribeModel(const tsr::Model& m) {
  uint64_t constant = 0, activation = 0;
  for (const tsr::DeviceBuffer& b : m.buffers()) (IsConstantBuffer(b) ? constant : activation) += b.bytes();
  std::string s = fmt::format(
      "compiled model '{}' for config fingerprint 0x{:016x} ({} steps, {} device buffers: {} bytes of constants, {} "
      "bytes of activation arenas)\n",
      m.name(), m.isa_fingerprint(), m.steps_size(), m.buffers_size(), constant, activation);
  s += fmt::format("  {:<4} {:<9} {:<12} {:<44} {:>12} {:>14}  {}\n", "#", "where", "op", "node", "pred. cycles",
                   "MACs", "reason");
  std::set<std::string> weights;  // device values uploaded as weight tiles (batch_matmul.h)
  for (const tsr::DeviceValue& v : m.device_values())
    if (v.weights()) weights.insert(v.value());
  int i = 0;
  for (const tsr::Step& st : m.steps()) {
    switch (st.kind()) {
      case tsr::Step::ACCEL:
        s += fmt::format("  {:<4} {:<9} {:<12} {:<44} {:>12} {:>14}  {}\n", i, "accel", st.op(), st.node(),
                         st.predicted_cycles(), st.useful_macs(), st.reason());
        break;
      case tsr::Step::CPU:
        s += fmt::format("  {:<4} {:<9} {:<12} {:<44} {:>12} {:>14}  {}\n", i, "cpu", st.op(), st.node(), "", "",
                         st.reason());
        break;
      case tsr::Step::UPLOAD:
        s += fmt::format("  {:<4} {:<9} {:<12} {:<44} {:>12} {:>14}  {}\n", i, "upload",
                         st.im2col_size()                   ? "im2col"
                         : weights.count(st.device_value()) ? "weights"
                                                            : "pack",
                         st.value(), "", "", "host -> device boundary");
        break;
      case tsr::Step::DOWNLOAD:
        s += fmt::format("  {:<4} {:<9} {:<12} {:<44} {:>12} {:>14}  {}\n", i, "download", "unpack", st.value(), "", "",
                         "device -> host boundary");
        break;
      default: break;
    }
    ++i;
  }
  return s;
}

}  // namespace tessera::backend
