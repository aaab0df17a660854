#!/usr/bin/env python3
"""Measures torch's CPU inference latency for a torchvision model (random
init, batch 1, 224x224) in fp32 and, with --int8, as a post-training int8
model (torch.ao FX quantization with the onednn engine, 8 random calibration
images). Prints wall-clock median and minimum and the median process CPU
time of --repeat runs after warm-up.

Usage: /usr/bin/python3 tools/models/torch_latency.py --model resnet18 [--threads 1] [--int8]
"""
import argparse
import statistics
import time

import torch
import torchvision


def timing(fn, x, repeat):
    """Wall-clock median and minimum, and the median CPU time of the process
    (robust when other jobs share the machine), over `repeat` runs after 3
    warm-up runs."""
    with torch.no_grad():
        for _ in range(3):
            fn(x)
        wall, cpu = [], []
        for _ in range(repeat):
            t, c = time.perf_counter(), time.process_time()
            fn(x)
            wall.append((time.perf_counter() - t) * 1e3)
            cpu.append((time.process_time() - c) * 1e3)
    return (f"wall median {statistics.median(wall):.2f} ms, min {min(wall):.2f} ms; "
            f"cpu median {statistics.median(cpu):.2f} ms over {repeat} runs")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", default="resnet18")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--repeat", type=int, default=20)
    ap.add_argument("--int8", action="store_true")
    args = ap.parse_args()
    torch.manual_seed(0)
    torch.set_num_threads(args.threads)
    model = getattr(torchvision.models, args.model)().eval()
    x = torch.randn(1, 3, 224, 224)
    print(f"torch {torch.__version__} {args.model} fp32, {args.threads} thread(s): {timing(model, x, args.repeat)}")
    if args.int8:
        from torch.ao.quantization import get_default_qconfig_mapping
        from torch.ao.quantization.quantize_fx import convert_fx, prepare_fx
        torch.backends.quantized.engine = "onednn"
        prepared = prepare_fx(model, get_default_qconfig_mapping("onednn"), example_inputs=(x,))
        with torch.no_grad():
            for _ in range(8):
                prepared(torch.randn(1, 3, 224, 224))
        q = convert_fx(prepared)
        print(f"torch {torch.__version__} {args.model} int8 (onednn), {args.threads} thread(s): "
              f"{timing(q, x, args.repeat)}")


if __name__ == "__main__":
    main()
