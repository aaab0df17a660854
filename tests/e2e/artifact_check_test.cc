// Issue 15, findings 1 and 2: a .tsr is untrusted. Each crafted field the
// bad-input audit used (a heap overflow, an over-read, a SIGFPE, a SIGSEGV, a
// hang, a bad_alloc or a TSR_CHECK abort before) is now an error naming the
// step, value or buffer; damage anywhere in a file is refused by its digest,
// and steps swapped or deleted in a re-sealed file by the dataflow check.
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>

#include "compiler/backend/tsr_check.h"
#include "runtime/recording.h"
#include "tests/e2e/e2e_util.h"
#include "tests/support/random_isa.h"

namespace tessera::backend {
namespace {

class ArtifactCheck : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    cfg_ = new HwConfig(testing::LoadConfigOrDie("configs/default.json"));
    compiled_ = new Compiled(CompileModel("digits", *cfg_));  // uploads its input as im2col patches
    mlp_ = new Compiled(CompileModel("digits_mlp", *cfg_));   // uploads its input as it is
  }
  static void TearDownTestSuite() {
    delete mlp_;
    delete compiled_;
    delete cfg_;
  }

  // The error ModelRunner::Create gives for `m` ("" when it loads).
  static std::string LoadError(const tsr::Model& m) {
    RunnerOptions ro;
    ro.target = "ref";
    auto r = ModelRunner::Create(m, ro);
    return r.ok() ? "" : r.status().message();
  }
  static int FindStep(const tsr::Model& m, tsr::Step::Kind kind, bool im2col = false) {
    for (int i = 0; i < m.steps_size(); ++i)
      if (m.steps(i).kind() == kind && (m.steps(i).im2col_size() == 8) == im2col) return i;
    return -1;
  }
  static tsr::DeviceValue* DeviceValueOf(tsr::Model& m, const std::string& name) {
    for (tsr::DeviceValue& v : *m.mutable_device_values())
      if (v.value() == name) return &v;
    return nullptr;
  }
  static bool Contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

  static HwConfig* cfg_;
  static Compiled* compiled_;
  static Compiled* mlp_;
};
HwConfig* ArtifactCheck::cfg_ = nullptr;
Compiled* ArtifactCheck::compiled_ = nullptr;
Compiled* ArtifactCheck::mlp_ = nullptr;

TEST_F(ArtifactCheck, TheCompiledModelsPass) {
  ASSERT_TRUE(compiled_->model && mlp_->model);
  EXPECT_EQ(LoadError(*compiled_->model), "");
  EXPECT_EQ(LoadError(*mlp_->model), "");
  EXPECT_TRUE(CheckModel(*compiled_->model, *cfg_, *compiled_->graph).ok());
}

TEST_F(ArtifactCheck, TransferShapesMustMatchTheGraph) {
  ASSERT_TRUE(compiled_->model);
  // A download's act_shape enlarged: UnpackActivation wrote past the host tensor.
  tsr::Model m = *compiled_->model;
  const int down = FindStep(m, tsr::Step::DOWNLOAD);
  ASSERT_GE(down, 0);
  tsr::DeviceValue* dv = DeviceValueOf(m, m.steps(down).device_value());
  ASSERT_NE(dv, nullptr);
  dv->set_act_shape(1, dv->act_shape(1) + 1);
  std::string e = LoadError(m);
  EXPECT_TRUE(Contains(e, "does not match device value '" + dv->value() + "'")) << e;
  // An upload's act_shape enlarged: PackActivation read past the input.
  ASSERT_TRUE(mlp_->model);
  m = *mlp_->model;
  const int up = FindStep(m, tsr::Step::UPLOAD);
  ASSERT_GE(up, 0);
  dv = DeviceValueOf(m, m.steps(up).device_value());
  dv->set_act_shape(2, dv->act_shape(2) * 2);
  e = LoadError(m);
  EXPECT_TRUE(Contains(e, "device value '" + dv->value() + "'")) << e;
  dv->set_act_shape(2, 1);
  dv->set_act_shape(1, dv->act_shape(1) - 1);  // fits the buffer, but not the graph's value
  e = LoadError(m);
  EXPECT_TRUE(Contains(e, fmt::format("step {} (UPLOAD of '{}')", up, m.steps(up).value()))) << e;
  EXPECT_TRUE(Contains(e, "does not match device value")) << e;
  // act_shape [2^40, ...] (an uncaught bad_alloc).
  m = *mlp_->model;
  DeviceValueOf(m, m.steps(up).device_value())->set_act_shape(0, int64_t{1} << 40);
  e = LoadError(m);
  EXPECT_TRUE(Contains(e, "dimension 1099511627776 is out of range")) << e;
  // A shape that needs more than its buffer.
  m = *mlp_->model;
  dv = DeviceValueOf(m, m.steps(up).device_value());
  dv->set_act_shape(2, int64_t{1} << 20);
  e = LoadError(m);
  EXPECT_TRUE(Contains(e, "needs more than the")) << e;
}

TEST_F(ArtifactCheck, ChannelSlicesAreChecked) {
  ASSERT_TRUE(mlp_->model);
  tsr::Model m = *mlp_->model;
  const int up = FindStep(m, tsr::Step::UPLOAD);
  ASSERT_GE(up, 0);
  tsr::DeviceValue* dv = DeviceValueOf(m, m.steps(up).device_value());
  const int64_t c = dv->act_shape(1);
  // A slice that does not start on a channel block, or ends past its buffer's channels.
  dv->set_buffer_channels(c + cfg_->block_in);
  dv->set_channel_offset(1);
  std::string e = LoadError(m);
  EXPECT_TRUE(Contains(e, "are not a block-aligned slice")) << e;
  dv->set_channel_offset(2 * cfg_->block_in);
  e = LoadError(m);
  EXPECT_TRUE(Contains(e, "are not a block-aligned slice")) << e;
  // A well-formed slice of a buffer that is too small for the wider layout.
  dv->set_channel_offset(cfg_->block_in);
  dv->set_buffer_channels(c + 64 * cfg_->block_in);
  e = LoadError(m);
  EXPECT_TRUE(Contains(e, "needs more than the")) << e;
}

// A device value uploaded as weights (qbatch_matmul's second operand):
// its G matrices must fit its buffer and be the uploaded value's [..., K, N].
TEST_F(ArtifactCheck, WeightUploadsAreChecked) {
  ASSERT_TRUE(mlp_->model);
  tsr::Model m = *mlp_->model;
  const int up = FindStep(m, tsr::Step::UPLOAD);
  ASSERT_GE(up, 0);
  tsr::DeviceValue* dv = DeviceValueOf(m, m.steps(up).device_value());
  dv->set_weights(true);
  dv->set_act_shape(0, int64_t{1} << 20);  // 2^20 weight matrices
  std::string e = LoadError(m);
  EXPECT_TRUE(Contains(e, "do not fit its buffer")) << e;
  for (tsr::DeviceBuffer& b : *m.mutable_buffers())
    if (b.name() == dv->buffer()) b.set_bytes(1 << 16);
  dv->set_act_shape(0, 1), dv->set_act_shape(1, 1), dv->set_act_shape(2, 1), dv->set_act_shape(3, 1);
  e = LoadError(m);
  EXPECT_TRUE(Contains(e, "does not match weight device value '" + dv->value() + "'")) << e;
}

TEST_F(ArtifactCheck, Im2colParametersAreChecked) {
  ASSERT_TRUE(compiled_->model);
  // im2col parameters added to a plain upload: the patches over-read the input.
  ASSERT_TRUE(mlp_->model);
  tsr::Model m = *mlp_->model;
  const int up = FindStep(m, tsr::Step::UPLOAD);
  ASSERT_GE(up, 0);
  for (int k = 0; k < 8; ++k) m.mutable_steps(up)->add_im2col(3);
  std::string e = LoadError(m);
  EXPECT_TRUE(Contains(e, "im2col of '" + m.steps(up).value() + "'")) << e;
  const int im = FindStep(*compiled_->model, tsr::Step::UPLOAD, /*im2col=*/true);
  ASSERT_GE(im, 0) << "the digits CNN uploads its input as patches";
  // Set to 0 (a SIGFPE / empty loops) and to 2^40 (SIGSEGV and a hang).
  for (int64_t bad : {int64_t{0}, int64_t{1} << 40}) {
    m = *compiled_->model;
    m.mutable_steps(im)->set_im2col(6, bad);
    e = LoadError(m);
    EXPECT_TRUE(Contains(e, fmt::format("im2col parameter 6 = {} is out of range", bad))) << e;
  }
  m = *compiled_->model;
  m.mutable_steps(im)->set_im2col(0, m.steps(im).im2col(0) + 1);  // kernel height: more patches than the buffer
  e = LoadError(m);
  EXPECT_TRUE(Contains(e, "do not match device value")) << e;
  // im2col on a download.
  m = *compiled_->model;
  for (int k = 0; k < 8; ++k) m.mutable_steps(FindStep(m, tsr::Step::DOWNLOAD))->add_im2col(1);
  EXPECT_TRUE(Contains(LoadError(m), "im2col parameters on a step that is not an upload"));
}

TEST_F(ArtifactCheck, RecordingAndGraphFaults) {
  ASSERT_TRUE(compiled_->model);
  // A recording slot with alignment 0 (SIGFPE in Executable::Bind).
  tsr::Model m = *compiled_->model;
  const int accel = FindStep(m, tsr::Step::ACCEL);
  ASSERT_GE(accel, 0);
  const std::string& rb = m.steps(accel).recording();
  auto rec = Recording::Deserialize(std::vector<uint8_t>(rb.begin(), rb.end()), "layer");
  ASSERT_TRUE(rec.ok()) << rec.status().ToString();
  rec->slots.at(0).alignment = 0;
  std::vector<uint8_t> bytes = rec->Serialize();
  m.mutable_steps(accel)->set_recording(bytes.data(), bytes.size());
  std::string e = LoadError(m);
  EXPECT_TRUE(Contains(e, "has alignment 0")) << e;
  // A node listing the same result twice (a TSR_CHECK abort in Graph).
  m = *compiled_->model;
  tsr::Node* n = m.mutable_graph()->mutable_nodes(0);
  *n->add_outputs() = n->outputs(0);
  e = LoadError(m);
  EXPECT_TRUE(Contains(e, "lists result '" + n->outputs(0).name() + "' twice")) << e;
  // A constant declaring 2^31 int64 elements with 8 bytes of data (allocated before).
  m = *compiled_->model;
  ASSERT_GT(m.graph().constants_size(), 0);
  tsr::Constant* c = m.mutable_graph()->mutable_constants(0);
  c->mutable_type()->clear_shape();
  c->mutable_type()->add_shape(int64_t{1} << 31);
  c->mutable_type()->set_dtype(static_cast<uint32_t>(ir::DType::kI64));
  c->mutable_type()->set_quantized(false);
  c->set_data(std::string(8, '\0'));
  e = LoadError(m);
  EXPECT_TRUE(Contains(e, "its type needs 17179869184")) << e;
}

TEST_F(ArtifactCheck, StepsAreReplayedAsDataflow) {
  ASSERT_TRUE(compiled_->model);
  const tsr::Model& good = *compiled_->model;
  ASSERT_GE(good.steps_size(), 3);
  // Every single step deleted: refused, naming what is missing.
  for (int del = 0; del < good.steps_size(); ++del) {
    tsr::Model m = good;
    m.mutable_steps()->DeleteSubrange(del, 1);
    EXPECT_NE(LoadError(m), "") << "deleting step " << del << " went unnoticed";
  }
  // Every pair of neighbouring dependent steps swapped: refused.
  for (int i = 0; i + 1 < good.steps_size(); ++i) {
    tsr::Model m = good;
    m.mutable_steps()->SwapElements(i, i + 1);
    EXPECT_NE(LoadError(m), "") << "swapping steps " << i << " and " << i + 1 << " went unnoticed";
  }
  // A step repeated: the node is computed twice.
  tsr::Model m = good;
  const int accel = FindStep(m, tsr::Step::ACCEL);
  *m.add_steps() = good.steps(accel);
  EXPECT_TRUE(Contains(LoadError(m), "is computed twice"));
}

TEST_F(ArtifactCheck, DamagedFilesAreRefusedByTheirDigest) {
  ASSERT_TRUE(compiled_->model);
  const std::string path = std::string(TESSERA_TEST_OUTPUT_DIR) + "/check.tsr";
  ASSERT_TRUE(SaveModel(*compiled_->model, path).ok());
  std::ifstream in(path, std::ios::binary);
  const std::string file((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  ASSERT_TRUE(LoadModelFile(path).ok());
  auto write = [&](const std::string& bytes) { std::ofstream(path, std::ios::binary) << bytes; };
  // Flipped bits in the weights (the largest constant's data).
  const tsr::Constant* w = nullptr;
  for (const tsr::Constant& c : compiled_->model->graph().constants())
    if (!w || c.data().size() > w->data().size()) w = &c;
  ASSERT_TRUE(w && w->data().size() > 100);
  const size_t at = file.find(w->data());
  ASSERT_NE(at, std::string::npos);
  std::string bad = file;
  bad[at + 5] ^= 0x10, bad[at + 77] ^= 0x01;
  write(bad);
  auto r = LoadModelFile(path);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(),
            path + ": the compiled model is damaged: its content does not match its SHA-256 digest");
  EXPECT_EQ(r.status().code(), StatusCode::kDataLoss);
  // Truncated: the digest is gone.
  write(file.substr(0, file.size() - 1000));
  r = LoadModelFile(path);
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(Contains(r.status().message(), "does not end with an integrity digest")) << r.status().message();
  // Two steps swapped in the file (same bytes, other order): the digest differs.
  tsr::Model swapped = *compiled_->model;
  swapped.mutable_steps()->SwapElements(0, 1);
  std::string body;
  ASSERT_TRUE(swapped.SerializeToString(&body));
  write(body + file.substr(file.size() - kTsrSealBytes));
  EXPECT_FALSE(LoadModelFile(path).ok());
}

}  // namespace
}  // namespace tessera::backend
