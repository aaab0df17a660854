// The ISA fingerprint follows the tables: changing any row of a copy of
// isa/isa.def's tables (a field's width, an opcode's value, a memory type's
// or ALU operation's properties) or a behaviour parameter changes it; a
// timing parameter does not.
#include "isa/fingerprint.h"

#include <gtest/gtest.h>

#include <functional>

#include "isa/config.h"

namespace tessera {
namespace {

HwConfig Default() {
  auto cfg = LoadHwConfig("configs/default.json");
  EXPECT_TRUE(cfg.ok()) << cfg.status().ToString();
  return *cfg;
}

uint64_t Changed(const std::function<void(IsaTables&)>& edit) {
  IsaTables t = DefaultIsaTables();
  edit(t);
  return IsaFingerprint(Default(), t);
}

TEST(IsaFingerprint, IsTheConfigsFingerprint) {
  const HwConfig cfg = Default();
  EXPECT_EQ(IsaFingerprint(cfg, DefaultIsaTables()), cfg.isa_fingerprint);
  EXPECT_EQ(Changed([](IsaTables&) {}), cfg.isa_fingerprint);
}

TEST(IsaFingerprint, ChangesWithEveryKindOfTableRow) {
  const uint64_t base = Default().isa_fingerprint;
  auto field = [](IsaTables& t, FieldId id) -> FieldInfo& { return t.fields[static_cast<size_t>(id)]; };
  EXPECT_NE(Changed([&](IsaTables& t) { field(t, FieldId::alu_op).width.fixed += 1; }), base);
  EXPECT_NE(Changed([&](IsaTables& t) { std::swap(t.fields[1], t.fields[2]); }), base);
  EXPECT_NE(Changed([&](IsaTables& t) { field(t, FieldId::imm).kind = FieldKind::kUnsigned; }), base);
  EXPECT_NE(Changed([](IsaTables& t) { std::swap(t.uop_fields[0], t.uop_fields[1]); }), base);
  EXPECT_NE(Changed([](IsaTables& t) { std::swap(t.opcodes[0].op, t.opcodes[1].op); }), base);
  EXPECT_NE(Changed([](IsaTables& t) { t.mem_types[1].storable = !t.mem_types[1].storable; }), base);
  EXPECT_NE(Changed([](IsaTables& t) { t.alu_ops.pop_back(); }), base);
  EXPECT_NE(Changed([](IsaTables& t) {
              t.alu_ops[0].operand =
                  t.alu_ops[0].operand == AluOperand::kImmOrVec ? AluOperand::kVecAndImm : AluOperand::kImmOrVec;
            }),
            base);
}

// Each parameter is moved to a nearby value that validates on one of the
// bundled configs (not every value fits every config's encoding).
TEST(IsaFingerprint, FollowsBehaviourParametersOnly) {
  for (const ParamInfo& p : kParams) {
    bool changed = false;
    for (const char* path : {"configs/default.json", "configs/tiny.json", "configs/large.json"}) {
      auto base = LoadHwConfig(path);
      ASSERT_TRUE(base.ok()) << base.status().ToString();
      const double v = p.get(*base);
      const double step = p.multiple_of > 1 ? static_cast<double>(p.multiple_of) : 1;
      for (double t : {p.kind == ParamKind::kInt ? v + step : v * 2, p.kind == ParamKind::kInt ? v - step : v / 2}) {
        HwConfig c = *base;
        p.set(c, t);
        if (changed || !ValidateHwConfig(c, "changed").ok()) continue;
        changed = true;
        if (p.effect == ParamEffect::kBehaviour)
          EXPECT_NE(c.isa_fingerprint, base->isa_fingerprint) << p.key << " on " << path;
        else
          EXPECT_EQ(c.isa_fingerprint, base->isa_fingerprint) << p.key << " on " << path;
      }
    }
    EXPECT_TRUE(changed) << p.key << ": no nearby valid value";
  }
}

}  // namespace
}  // namespace tessera
