// The device's control-register map (AXI4-Lite, 32-bit registers) and error
// codes: the register-level protocol every backend implements. ref and sim
// emulate this register file; systemc, rtl and fpga expose the real one.
// docs/device-protocol.md is the specification.
#pragma once

#include <cstdint>
#include <iterator>

#include "isa/isa.h"

namespace tessera::regs {

inline constexpr uint32_t kIdMagic = 0x54535241;  // "TSRA"
inline constexpr uint32_t kProtocolVersion = 3;

// Counters kept per opcode and per memory type, in value order of isa/isa.def.
inline constexpr uint32_t kNumOpcodeCounters = static_cast<uint32_t>(std::size(kOpcodes));
inline constexpr uint32_t kNumMemCounters = static_cast<uint32_t>(std::size(kMemTypes));

// Register byte offsets.
inline constexpr uint32_t kId = 0x000;             // R  kIdMagic
inline constexpr uint32_t kVersion = 0x004;        // R  protocol version
inline constexpr uint32_t kCtrl = 0x008;           // W  kCtrl* bits (self-clearing)
inline constexpr uint32_t kStatus = 0x00C;         // R  kStatus* bits
inline constexpr uint32_t kInsnAddrLo = 0x010;     // RW instruction stream byte address [31:0]
inline constexpr uint32_t kInsnAddrHi = 0x014;     // RW instruction stream byte address [63:32]
inline constexpr uint32_t kInsnCount = 0x018;      // RW number of instructions (last is FINISH)
inline constexpr uint32_t kWatchdogLo = 0x01C;     // RW watchdog in device cycles [31:0] (0 = off)
inline constexpr uint32_t kWatchdogHi = 0x020;     // RW watchdog [63:32]
inline constexpr uint32_t kErrorCode = 0x024;      // R  ErrorCode of the last run
inline constexpr uint32_t kErrorInsn = 0x028;      // R  index of the faulting instruction (kNoInsn: unknown)
inline constexpr uint32_t kFingerprintLo = 0x030;  // R  ISA fingerprint of the hardware [31:0]
inline constexpr uint32_t kFingerprintHi = 0x034;  // R  ISA fingerprint [63:32]

// 64-bit counters, latched when DONE or ERROR is raised, cleared by START:
// lo word at the offset, hi word at offset + 4.
enum class Counter : uint32_t {
  kCycles = 0,      // device cycles of the run (0 on engines without timing)
  kInsns,           // instructions retired
  kMacs,            // multiply-accumulates of non-reset GEMM iterations
  kGemmIterations,  // GEMM uop iterations (reset included)
  kAluIterations,   // ALU uop iterations
  kDramReadBytes,   // bytes read from DRAM (instruction fetch included)
  kDramWriteBytes,  // bytes written to DRAM
  // Per-module cycle categories (docs/microarch.md, "Statistics"), in module
  // order fetch, load, compute, store; each busy, wait_token, wait_queue, wait_memory.
  kModuleBase,
  kInsnsByOpcode = kModuleBase + 16,                      // instructions retired, one counter per opcode value
  kInsnFetchBytes = kInsnsByOpcode + kNumOpcodeCounters,  // DRAM bytes read by instruction fetch
  kLoadBytesByMem,                                        // DRAM bytes read by LOADs, one counter per memory type value
  kUopLoads = kLoadBytesByMem + kNumMemCounters,          // uops written into the uop scratchpad
  kDramBusyCycles,  // cycles the DRAM data channel carried beats (0 without timing)
  kPortBursts,      // bursts the memory port accepted, instruction fetch included (0 without timing)
  kCount,
};
inline constexpr uint32_t kCounterBase = 0x040;
inline constexpr uint32_t CounterOffset(Counter c) { return kCounterBase + 8 * static_cast<uint32_t>(c); }
inline constexpr uint32_t kNumCounters = static_cast<uint32_t>(Counter::kCount);
// Module m in {0 fetch, 1 load, 2 compute, 3 store}, category k in {0 busy,
// 1 wait_token, 2 wait_queue, 3 wait_memory}.
inline constexpr Counter ModuleCounter(int m, int k) {
  return static_cast<Counter>(static_cast<uint32_t>(Counter::kModuleBase) + 4 * m + k);
}
inline constexpr Counter OpcodeCounter(Opcode op) {
  return static_cast<Counter>(static_cast<uint32_t>(Counter::kInsnsByOpcode) + static_cast<uint32_t>(op));
}
inline constexpr Counter MemCounter(MemType m) {
  return static_cast<Counter>(static_cast<uint32_t>(Counter::kLoadBytesByMem) + static_cast<uint32_t>(m));
}
inline constexpr uint32_t kRegisterWindowBytes = kCounterBase + 8 * kNumCounters;  // 0x170

// CTRL bits.
inline constexpr uint32_t kCtrlStart = 1u << 0;  // start a run at INSN_ADDR with INSN_COUNT
inline constexpr uint32_t kCtrlAbort = 1u << 1;  // stop a run: ERROR with kAbortedByHost
inline constexpr uint32_t kCtrlClear = 1u << 2;  // clear DONE/ERROR and the error registers

// STATUS bits.
inline constexpr uint32_t kStatusDone = 1u << 0;
inline constexpr uint32_t kStatusBusy = 1u << 1;
inline constexpr uint32_t kStatusError = 1u << 2;

inline constexpr uint32_t kNoInsn = 0xFFFFFFFFu;

enum class ErrorCode : uint32_t {
  kNone = 0,
  kBadLaunch = 1,           // START with a bad address/count, or while busy
  kIllegalInstruction = 2,  // a word that does not decode, FINISH misplaced
  kMemoryFault = 3,         // DRAM or scratchpad access out of range
  kTokenError = 4,          // unbalanced tokens at FINISH, unordered access (race), work behind FINISH
  kDeadlock = 5,            // no module can make progress
  kWatchdog = 6,            // the run exceeded the watchdog
  kAbortedByHost = 7,       // CTRL.ABORT
  kInternal = 8,
};
const char* ErrorCodeName(ErrorCode code);

}  // namespace tessera::regs
