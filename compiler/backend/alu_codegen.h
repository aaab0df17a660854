// Code generation for the accelerator layers that use only the ALU: pooling
// windows (max_pool, qavg_pool) and element-wise qadd. Inputs are brought into
// the accumulator with LOAD acc8 (int8 tiles sign-extended) on the compute
// module; tiles alternate between two accumulator halves so the store of tile
// t-1 overlaps tile t. Integer sequences follow docs/quantization.md exactly:
//   max_pool:  MOV first window element, MAX the others (padding loads -128)
//   qavg_pool: MOV + ADD over the window (padding loads 0), MULSHR m, s, CLIP 127
//   qadd:      MULSHR a by M_a >> s_a, MULSHR b by M_b >> s_b, ADD, SHR k,
//              MAX act_min, MIN act_max
//   qmul:      MUL a by b (b: one tile per image block and channel block when
//              it is [N, C, 1, 1], read once per chunk), MULSHR M >> s,
//              MAX act_min, MIN act_max
//   unary:     an element-wise ALU program (compiler/quant/alu_program.h:
//              qhard_sigmoid, qhard_swish, requantize), step by step over
//              the tiles of a chunk; programs that read x after changing t
//              keep x in a second run of tiles
#pragma once

#include <cstdint>
#include <string>

#include "compiler/backend/conv_codegen.h"
#include "compiler/quant/alu_program.h"

namespace tessera::backend {

struct PoolCodegen {
  std::string name;
  bool max = true;  // else average
  int64_t n = 1, c = 1, ih = 1, iw = 1, oh = 1, ow = 1;
  int64_t kh = 1, kw = 1, sh = 1, sw = 1, pt = 0, pl = 0;
  ActView in, out;
  Slot params;  // average: one accumulator row, every lane the multiplier
  int shift = 0;
};

struct AddCodegen {
  std::string name;
  int64_t tiles = 0;  // packed tiles of each operand (identical layouts)
  Slot a, b, out;
  Slot params;  // three accumulator rows: M_a, M_b and 1 broadcast (MULSHRC's post-shift)
  int shift_a = 0, shift_b = 0, post_shift = 0;
  int64_t act_min = -128, act_max = 127;
};

struct MulCodegen {
  std::string name;
  // a's tiles as `planes` runs of `plane_tiles` (per image block and channel
  // block: H*W tiles); b has one tile per plane (broadcast) or a's layout.
  int64_t planes = 1, plane_tiles = 0;
  bool broadcast = false;
  Slot a, b, out;
  Slot params;  // one accumulator row: M broadcast
  int shift = 0;
  int64_t act_min = -128, act_max = 127;
};

struct UnaryCodegen {
  std::string name;
  int64_t tiles = 0;  // packed tiles of the input (and the output: same layout)
  Slot in, out;
  Slot params;  // one accumulator row per parameter step, every lane its value (ProgramParams)
  quant::AluProgram program;
};

// The values of a program's parameter rows, in step order.
std::vector<int64_t> ProgramParams(const quant::AluProgram& p);

// Checks that a pool fits (window, padding, scratchpad) without emitting.
Status CheckPool(const HwConfig& cfg, const PoolCodegen& p);

Status EmitPool(Stream& s, const HwConfig& cfg, const PoolCodegen& p);
Status EmitAdd(Stream& s, const HwConfig& cfg, const AddCodegen& a);
Status EmitMul(Stream& s, const HwConfig& cfg, const MulCodegen& m);
Status EmitUnary(Stream& s, const HwConfig& cfg, const UnaryCodegen& u);

}  // namespace tessera::backend
