// The compiler's cost model: a layer's recorded instruction stream timed by
// the timing contract's own engine (sim/timing_engine.h) without data, so a
// prediction follows exactly the rules `sim` follows. The tiler ranks
// candidate tilings with fast closed forms (conv_plan.cc); the cycles a
// compiled layer reports as predicted come from here.
//
// Addresses: data buffers are placed at multiples of 4 KiB (the device's data
// alignment), so a slot's offsets give the same burst splits as at run time;
// uop kernels and code pieces are assumed to start a 4 KiB page (they are
// 64-byte aligned on the device: a fetch block or kernel that crosses a page
// there costs one more burst).
#pragma once

#include <cstdint>
#include <string>

#include "driver/device.h"
#include "isa/base/status.h"

namespace tessera {
struct HwConfig;
class Recording;
}  // namespace tessera

namespace tessera::backend {

// Predicted counters of a recording, as a device with timing reports them
// (summed over the recording's pieces).
StatusOr<DeviceCounters> PredictRecording(const HwConfig& cfg, const Recording& rec);

// What limits a layer: the resource whose lower bound on the layer's cycles is
// largest, or latency when none accounts for most of them.
enum class Bound {
  kCompute,    // the compute module is busy (GEMM, ALU, its own DMAs' issue)
  kLoad,       // the load module's own work: DMA setup and padding entries
  kStore,      // the store module's own work: DMA setup
  kBandwidth,  // the DRAM data channel carries beats
  kBursts,     // the outstanding-burst limit: N_out bursts in flight, each >= L + beats cycles
  kFetch,      // instruction fetch: F instructions in flight, each >= L + a block's beats cycles
  kLatency,    // no resource is saturated: dependencies and DRAM latency
};
const char* BoundName(Bound b);

// Lower bounds of a layer's cycles from its counters.
struct Roofline {
  int64_t cycles = 0;  // what it took
  int64_t compute = 0, load = 0, store = 0, bandwidth = 0, bursts = 0, fetch = 0;
  Bound bound = Bound::kLatency;
  int64_t bound_cycles = 0;  // the largest lower bound
  double attained() const { return cycles ? static_cast<double>(bound_cycles) / cycles : 0.0; }
};
// A resource counts as the bound once its lower bound reaches this share of the cycles.
inline constexpr double kSaturated = 0.6;
// Counters a device read back without counters.categories have no busy
// cycles, without counters.volumes no DRAM bytes of LOADs and STOREs: such a
// roofline has no compute, load or store term (respectively no load or store).
Roofline LayerRoofline(const HwConfig& cfg, const DeviceCounters& c);

}  // namespace tessera::backend
