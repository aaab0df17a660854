#include "compiler/backend/offload.h"

#include <algorithm>
#include <set>

#include "compiler/backend/tsr.pb.h"

namespace tessera::backend {

int64_t NodeMacs(const ir::Node& n) {
  const std::string& op = n.op();
  const auto shape = [&](int i) -> const ir::Shape& { return n.input(i)->type().shape; };
  const int64_t out = n.output(0)->type().numel();
  if (op == "conv" || op == "qconv" || op == "qlinear_conv" || op == "conv_integer") {
    const ir::Shape& ws = shape(1);  // x, w, bias? (qlinear_conv's scales and zero points are on the types)
    return ws.empty() || ws[0] == 0 ? 0 : out * (ir::NumElements(ws) / ws[0]);
  }
  if (op == "conv_transpose") {
    const ir::Shape& ws = shape(1);
    return ws.empty() || ws[0] == 0 ? 0 : n.input(0)->type().numel() * (ir::NumElements(ws) / ws[0]);
  }
  if (op == "matmul" || op == "qmatmul" || op == "qlinear_matmul" || op == "matmul_integer") {
    const ir::Shape& a = shape(0);
    return a.empty() ? 0 : out * a.back();
  }
  if (op == "gemm") {
    const ir::Shape& a = shape(0);
    return a.size() != 2 ? 0 : out * a[n.attrs().Int("trans_a", 0) ? 0 : 1];
  }
  if (op == "lstm" || op == "gru" || op == "rnn") {
    const ir::Shape& x = shape(0);  // [T, B, I]; W [D, G*H, I], R [D, G*H, H]
    return x.size() != 3 ? 0 : x[0] * x[1] * (n.input(1)->type().numel() + n.input(2)->type().numel());
  }
  return 0;
}

namespace {
int64_t Bytes(const ir::Value* v) { return int64_t{ir::DTypeSize(v->type().dtype)} * v->type().numel(); }
}  // namespace

OffloadSummary SummarizeOffload(const tsr::Model& m, const ir::Graph& graph) {
  OffloadSummary s;
  const auto is_input = [&](const ir::Value* v) {
    return std::find(graph.inputs().begin(), graph.inputs().end(), v) != graph.inputs().end();
  };
  for (const ir::Node* n : graph.nodes())
    for (const ir::Value* v : n->outputs())
      if (!v->users().empty()) s.activation_bytes += Bytes(v);
  std::set<const ir::Value*> downloaded;
  for (const tsr::Step& st : m.steps()) {
    const ir::Value* v = graph.FindValue(st.value());
    switch (st.kind()) {
      case tsr::Step::ACCEL: s.accel_macs += st.useful_macs(); break;
      case tsr::Step::CPU:
        if (v && v->producer()) {
          s.total_macs += NodeMacs(*v->producer());
          const auto& ins = v->producer()->inputs();
          if (std::any_of(ins.begin(), ins.end(), [&](const ir::Value* in) { return downloaded.count(in) != 0; }))
            ++s.round_trip_ops[st.op()];
        }
        break;
      case tsr::Step::DOWNLOAD:
        if (v && !graph.IsOutput(v)) ++s.round_trips, s.round_trip_bytes += Bytes(v), downloaded.insert(v);
        break;
      case tsr::Step::UPLOAD:
        if (v && !is_input(v)) s.round_trip_bytes += Bytes(v);
        break;
      default: break;
    }
  }
  s.total_macs += s.accel_macs;
  return s;
}

}  // namespace tessera::backend
