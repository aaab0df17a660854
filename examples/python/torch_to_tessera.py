"""torch -> ONNX -> Tessera, in one process (docs/python.md).

A small seeded CNN is exported to ONNX in memory, handed to Tessera as an
onnx.ModelProto, quantized to int8 with calibration arrays, compiled for a
config and run on the cycle-accurate simulator. The accelerator's output is
checked bit-for-bit against the int8 CPU reference and compared with torch's
fp32 output. Prints PASS.

    PYTHONPATH=build/python /usr/bin/python3 examples/python/torch_to_tessera.py [-c configs/default.json]
"""

import argparse
import io
import os

import numpy as np
import onnx
import torch

import tessera


class SmallCnn(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = torch.nn.Conv2d(3, 16, 3, padding=1)
        self.conv2 = torch.nn.Conv2d(16, 32, 3, stride=2, padding=1)
        self.fc = torch.nn.Linear(32, 10)

    def forward(self, x):
        x = torch.relu(self.conv1(x))
        x = torch.relu(self.conv2(x))
        x = torch.nn.functional.adaptive_avg_pool2d(x, 1).flatten(1)
        return self.fc(x)


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-c", "--config", default=os.path.join(here, "..", "..", "configs", "default.json"))
    args = ap.parse_args()

    torch.manual_seed(0)
    net = SmallCnn().eval()
    rng = np.random.default_rng(0)
    calib = rng.standard_normal((64, 3, 16, 16)).astype(np.float32)
    x = rng.standard_normal((8, 3, 16, 16)).astype(np.float32)

    # torch -> ONNX, in memory.
    buf = io.BytesIO()
    torch.onnx.export(net, torch.from_numpy(x[:1]), buf, opset_version=13, input_names=["x"], output_names=["y"])
    proto = onnx.load_model_from_string(buf.getvalue())
    proto.graph.name = "small_cnn"

    # ONNX -> Tessera: quantize with the calibration arrays, compile, run.
    cfg = tessera.load_config(args.config)
    model = tessera.compile(proto, cfg, calib=calib)
    print(model.describe())
    sim = model.run(x, target="sim")
    golden = model.run(x, target="cpu")
    with torch.no_grad():
        want = net(torch.from_numpy(x)).numpy()

    print(sim.layer_table)
    print(f"sim: {sim.cycles // sim.batches} cycles per image ({sim.latency_us:.1f} us at {cfg.clock_mhz:g} MHz), "
          f"GEMM utilization {100 * sim.gemm_utilization:.1f}%")
    same = np.array_equal(sim.outputs[0], golden.outputs[0])
    err = np.abs(sim.outputs[0] - want).max() / np.abs(want).max()
    agree = (sim.outputs[0].argmax(1) == want.argmax(1)).mean()
    print(f"accelerator == int8 CPU reference: {same}; vs torch fp32: max error {100 * err:.1f}% of range, "
          f"top-1 agreement {100 * agree:.0f}%")
    if not same or err > 0.1:
        raise SystemExit("FAIL")
    print("PASS")


if __name__ == "__main__":
    main()
