// The back half's entry point: an int8 graph and a hardware config in, a
// compiled model (.tsr artifact, tsr.proto) out. Every accelerator layer is a
// relocatable runtime Recording over named device buffers; CPU layers refer to
// nodes of the embedded int8 graph; UPLOAD/DOWNLOAD steps pack and unpack
// activations only where the two meet.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "compiler/backend/conv_schedule.h"
#include "compiler/backend/partition.h"
#include "compiler/ir/graph.h"
#include "isa/base/status.h"

namespace tessera::tsr {
class Model;
}

namespace tessera::backend {

// 2: weights stored once, in the graph; constant buffers record their packing.
// 3: device values may be channel slices of a shared buffer (in-place concat).
// 4: device values may be host values uploaded as weights (qbatch_matmul).
inline constexpr uint32_t kTsrFormatVersion = 4;
// Artifacts larger than this are refused on load.
inline constexpr uint64_t kMaxTsrBytes = uint64_t{2} << 30;

struct BackendOptions {
  PartitionOptions partition;
  // GEMM layers on a config with timing.compute_overlap: the faster of the
  // overlap and plain schedules by the cost model (conv_schedule.h), or one of them.
  ConvSchedule conv_schedule = ConvSchedule::kCheapest;
  std::string model_name;
};

StatusOr<std::unique_ptr<tsr::Model>> CompileGraph(const ir::Graph& g, const HwConfig& cfg,
                                                   const BackendOptions& opts = {});

// The file's bytes: the serialized model sealed with its SHA-256 (tsr_check.h).
StatusOr<std::string> SerializeModel(const tsr::Model& m);
Status SaveModel(const tsr::Model& m, const std::string& path);
StatusOr<std::unique_ptr<tsr::Model>> LoadModelFile(const std::string& path);
// A serialized artifact held in memory; `source` names it in messages.
StatusOr<std::unique_ptr<tsr::Model>> ParseModel(const std::vector<uint8_t>& bytes, const std::string& source);

// The layer table of `tessera inspect MODEL.tsr`: each step with its placement
// and reason, predicted cycles and MACs.
std::string DescribeModel(const tsr::Model& m);

}  // namespace tessera::backend
