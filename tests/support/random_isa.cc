#include "tests/support/random_isa.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include "isa/encoding.h"

namespace tessera::testing {

std::vector<std::string> BundledConfigPaths() { return ConfigPathList(TESSERA_BUNDLED_CONFIG_PATHS); }

bool HoldsBundledWorkloads(const HwConfig& cfg) { return cfg.dram_size_bytes >= (uint64_t{1} << 24); }

bool TooBigForSmallDram(const HwConfig& cfg, const Status& assembled) {
  return assembled.code() == StatusCode::kResourceExhausted && !HoldsBundledWorkloads(cfg);
}

std::vector<std::string> ConfigPathList(const std::string& comma_separated) {
  std::vector<std::string> paths;
  for (size_t at = 0; at <= comma_separated.size();) {
    const size_t end = std::min(comma_separated.find(',', at), comma_separated.size());
    if (end > at) paths.push_back(comma_separated.substr(at, end - at));
    at = end + 1;
  }
  return paths;
}

std::string ConfigTestName(const std::string& path) {
  std::string n = path.substr(path.rfind('/') + 1);
  n = n.substr(0, n.find('.'));
  for (char& ch : n)
    if (ch == '-') ch = '_';
  return n;
}

HwConfig LoadConfigOrDie(const std::string& path) {
  auto c = LoadHwConfig(path);
  TSR_CHECK(c.ok(), "{}", c.status().ToString());
  return *c;
}

RtlUnitArgs ParseRtlUnitArgs(int argc, char** argv, uint64_t default_words) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s CONFIG.json [--seed S] [--words N]\n", argv[0]);
    std::exit(2);
  }
  RtlUnitArgs a{LoadConfigOrDie(argv[1]), 1, default_words};
  for (int i = 2; i + 1 < argc; i += 2) {
    if (std::string(argv[i]) == "--seed") a.seed = std::strtoull(argv[i + 1], nullptr, 10);
    if (std::string(argv[i]) == "--words") a.words = std::strtoull(argv[i + 1], nullptr, 10);
  }
  return a;
}

Instruction RandomLegalInstruction(const HwConfig& cfg, std::mt19937_64& rng) {
  auto bits = [&](int w) -> int64_t { return w == 0 ? 0 : static_cast<int64_t>(rng() & ((uint64_t{1} << w) - 1)); };
  Instruction in;
  const OpcodeInfo& op = kOpcodes[rng() % std::size(kOpcodes)];
  in.opcode = static_cast<int64_t>(op.op);
  for (const FieldInfo& fi : kFields) {
    const FieldSlot& s = cfg.layout.slot(op.format, fi.id);
    if (!s.present() || fi.id == FieldId::opcode) continue;
    int64_t v = bits(s.width);
    if (fi.kind == FieldKind::kSigned && s.width > 0) v = (v << (64 - s.width)) >> (64 - s.width);
    in.Field(fi.id) = v;
  }
  switch (op.format) {
    case Format::kMem: {
      std::vector<MemType> legal;
      for (const MemInfo& m : kMemTypes)
        if (op.op == Opcode::kLoad ? m.loadable : m.storable) legal.push_back(m.mem);
      in.mem = static_cast<int64_t>(legal[rng() % legal.size()]);
      if (in.mem_type() == MemType::kUop) in.y_pad0 = in.y_pad1 = in.x_pad0 = in.x_pad1 = in.pad_value = 0;
      if (!IsAccumulatorMem(in.mem_type())) in.ovl = 0;
      break;
    }
    case Format::kGemm:
    case Format::kAlu:
      in.uop_bgn = static_cast<int64_t>(rng() % (cfg.uop_entries - 1));
      in.uop_end = in.uop_bgn + 1 + static_cast<int64_t>(rng() % (cfg.uop_entries - in.uop_bgn));
      if (op.format == Format::kAlu) {
        in.alu_op = static_cast<int64_t>(rng() % std::size(kAluOps));
        const AluOpInfo* a = FindAluOp(in.alu_op);
        if (a->operand == AluOperand::kVecAndImm)
          in.use_imm = 0, in.imm = static_cast<int64_t>(rng() % (a->imm_max + 1));
      }
      break;
    case Format::kFinish: break;
  }
  Module m = ModuleOf(in);
  if (m == Module::kLoad) in.pop_prev = in.push_prev = 0;
  if (m == Module::kStore) in.pop_next = in.push_next = 0;
  TSR_CHECK(ValidateInstruction(cfg, in).ok(), "generator produced an illegal instruction: {}",
            ValidateInstruction(cfg, in).message());
  return in;
}

Program RandomProgramObject(const HwConfig& cfg, std::mt19937_64& rng, int n_insns) {
  Program p;
  p.text_addr = (rng() % 64) * kInsnBytes;
  for (int i = 0; i < n_insns; ++i) p.insns.push_back(RandomLegalInstruction(cfg, rng));
  uint64_t cursor = p.text_addr + n_insns * kInsnBytes + 4096;
  const int n_segs = static_cast<int>(rng() % 5);
  for (int s = 0; s < n_segs; ++s) {
    Segment seg;
    seg.kind = static_cast<Segment::Kind>(rng() % 3);
    seg.name = "seg" + std::to_string(s);
    seg.type = seg.kind == Segment::Kind::kUops ? ElemType::kUop : static_cast<ElemType>(rng() % 6);
    const int eb = ElemBytes(seg.type);
    cursor = (cursor + 63) / 64 * 64;
    seg.addr = cursor;
    const size_t n = rng() % 40;
    for (size_t i = 0; i < n; ++i) {
      if (seg.kind == Segment::Kind::kUops) {
        Uop u{static_cast<int64_t>(rng() % cfg.acc_entries),
              static_cast<int64_t>(rng() % std::max(cfg.inp_entries, cfg.acc_entries)),
              static_cast<int64_t>(rng() % cfg.wgt_entries)};
        uint32_t w = *EncodeUop(cfg, u);
        for (int k = 0; k < 4; ++k) seg.bytes.push_back(static_cast<uint8_t>(w >> (8 * k)));
      } else {
        for (int k = 0; k < eb; ++k) seg.bytes.push_back(static_cast<uint8_t>(rng()));
      }
    }
    cursor += seg.bytes.size() + 64;
    p.segments.push_back(std::move(seg));
  }
  return p;
}

}  // namespace tessera::testing
