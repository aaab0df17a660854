#!/usr/bin/env python3
"""Exports one model of Tessera's model zoo to ONNX with a fixed input, torch's
output for it and calibration inputs.

The zoo is torchvision families (random init, seeded; BatchNorm statistics
randomised as in torchvision_model.py) plus hand-written models for the
patterns the compiler must cover: a squeeze-and-excitation block, concat
branches, DenseNet-style dense blocks with a transition, a U-Net with Resize and ConvTranspose, a decoder with overlapping
ConvTranspose (4x4/2 and 3x3/2 with output_padding), ResNeXt/ShuffleNet-style
grouped convs, a dilated ASPP head, a 2-layer transformer encoder over token
embeddings, and an LSTM keyword spotter with a 1-D conv front end.

Writes into --out: model.onnx, input.npy, torch_out.npy, calib.npy.
Usage: /usr/bin/python3 tools/models/zoo_model.py --model se_block --out DIR
"""
import argparse
import math
import os

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import torchvision


class DenseLayer(nn.Module):
    """DenseNet's pre-activation bottleneck: BN-ReLU-1x1 conv, BN-ReLU-3x3 conv, concatenated to its input."""

    def __init__(self, c, growth):
        super().__init__()
        self.norm1, self.conv1 = nn.BatchNorm2d(c), nn.Conv2d(c, 2 * growth, 1, bias=False)
        self.norm2, self.conv2 = nn.BatchNorm2d(2 * growth), nn.Conv2d(2 * growth, growth, 3, padding=1, bias=False)

    def forward(self, x):
        y = self.conv2(F.relu(self.norm2(self.conv1(F.relu(self.norm1(x))))))
        return torch.cat([x, y], 1)


class DenseBlocks(nn.Module):
    """DenseNet in small: stem, a dense block of 3 layers, a transition (BN-ReLU-1x1 conv-avg pool), a dense block of
    2 layers, the final BN-ReLU, global pool and classifier."""

    def __init__(self, growth=16):
        super().__init__()
        self.stem, self.norm0 = nn.Conv2d(3, 32, 3, padding=1, bias=False), nn.BatchNorm2d(32)
        self.block1 = nn.Sequential(*[DenseLayer(32 + i * growth, growth) for i in range(3)])
        self.norm_t, self.conv_t = nn.BatchNorm2d(80), nn.Conv2d(80, 48, 1, bias=False)
        self.block2 = nn.Sequential(*[DenseLayer(48 + i * growth, growth) for i in range(2)])
        self.norm5, self.fc = nn.BatchNorm2d(80), nn.Linear(80, 10)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.norm0(self.stem(x))), 3, 2, 1)
        x = self.block1(x)
        x = self.block2(F.avg_pool2d(self.conv_t(F.relu(self.norm_t(x))), 2))
        return self.fc(torch.flatten(F.adaptive_avg_pool2d(F.relu(self.norm5(x)), 1), 1))


class SeBlock(nn.Module):
    """conv -> SE (GAP, 1x1 reduce, ReLU, 1x1 expand, Sigmoid, channel Mul) -> conv -> head."""

    def __init__(self):
        super().__init__()
        self.stem = nn.Conv2d(3, 32, 3, padding=1)
        self.reduce = nn.Conv2d(32, 8, 1)
        self.expand = nn.Conv2d(8, 32, 1)
        self.conv = nn.Conv2d(32, 32, 3, padding=1, stride=2)
        self.fc = nn.Linear(32, 10)

    def forward(self, x):
        x = F.relu(self.stem(x))
        s = torch.sigmoid(self.expand(F.relu(self.reduce(F.adaptive_avg_pool2d(x, 1)))))
        x = F.relu(self.conv(x * s))
        return self.fc(torch.flatten(F.adaptive_avg_pool2d(x, 1), 1))


class ConcatBranches(nn.Module):
    """Inception-style block: 1x1, 3x3, 5x5 (as two 3x3) and pool branches concatenated on channels."""

    def __init__(self):
        super().__init__()
        self.stem = nn.Conv2d(3, 16, 3, padding=1)
        self.b1 = nn.Conv2d(16, 16, 1)
        self.b3 = nn.Sequential(nn.Conv2d(16, 16, 1), nn.ReLU(), nn.Conv2d(16, 16, 3, padding=1))
        self.b5 = nn.Sequential(nn.Conv2d(16, 8, 1), nn.ReLU(), nn.Conv2d(8, 16, 3, padding=1), nn.ReLU(),
                                nn.Conv2d(16, 16, 3, padding=1))
        self.bp = nn.Conv2d(16, 16, 1)
        self.head = nn.Conv2d(64, 32, 3, stride=2, padding=1)
        self.fc = nn.Linear(32, 10)

    def forward(self, x):
        x = F.relu(self.stem(x))
        y = torch.cat([F.relu(self.b1(x)), F.relu(self.b3(x)), F.relu(self.b5(x)),
                       F.relu(self.bp(F.max_pool2d(x, 3, 1, 1)))], dim=1)
        y = F.relu(self.head(y))
        return self.fc(torch.flatten(F.adaptive_avg_pool2d(y, 1), 1))


class UNet(nn.Module):
    """Two-level U-Net: ConvTranspose upsampling on one level, bilinear Resize on the other, skip concats."""

    def __init__(self):
        super().__init__()

        def block(i, o):
            return nn.Sequential(nn.Conv2d(i, o, 3, padding=1), nn.BatchNorm2d(o), nn.ReLU(),
                                 nn.Conv2d(o, o, 3, padding=1), nn.BatchNorm2d(o), nn.ReLU())

        self.enc1, self.enc2, self.mid = block(3, 16), block(16, 32), block(32, 64)
        self.up2 = nn.ConvTranspose2d(64, 32, 2, stride=2)
        self.dec2 = block(64, 32)
        self.reduce1 = nn.Conv2d(32, 16, 1)
        self.dec1 = block(32, 16)
        self.out = nn.Conv2d(16, 3, 1)

    def forward(self, x):
        e1 = self.enc1(x)
        e2 = self.enc2(F.max_pool2d(e1, 2))
        m = self.mid(F.max_pool2d(e2, 2))
        d2 = self.dec2(torch.cat([self.up2(m), e2], dim=1))
        u1 = F.interpolate(self.reduce1(d2), scale_factor=2, mode="bilinear", align_corners=False)
        d1 = self.dec1(torch.cat([u1, e1], dim=1))
        return self.out(d1)


class DecoderCt(nn.Module):
    """Encoder-decoder upsampling with overlapping ConvTranspose (DCGAN/FCN style): 4x4 stride 2 padding 1 and
    3x3 stride 2 padding 1 output_padding 1, each followed by BatchNorm and ReLU, a skip add, a 1x1 head."""

    def __init__(self):
        super().__init__()
        self.enc1 = nn.Sequential(nn.Conv2d(3, 16, 3, 2, 1), nn.BatchNorm2d(16), nn.ReLU())
        self.enc2 = nn.Sequential(nn.Conv2d(16, 32, 3, 2, 1), nn.BatchNorm2d(32), nn.ReLU())
        self.up1 = nn.Sequential(nn.ConvTranspose2d(32, 16, 4, 2, 1), nn.BatchNorm2d(16), nn.ReLU())
        self.up2 = nn.Sequential(nn.ConvTranspose2d(16, 16, 3, 2, 1, output_padding=1), nn.BatchNorm2d(16),
                                 nn.ReLU())
        self.head = nn.Conv2d(16, 3, 1)

    def forward(self, x):
        e1 = self.enc1(x)
        return self.head(self.up2(self.up1(self.enc2(e1)) + e1))


class GroupedConvs(nn.Module):
    """ResNeXt-style bottlenecks (grouped 3x3: 16 groups of 4 channels, then 4 groups of 32, strided) and
    ShuffleNet-style grouped 1x1 convs (2 groups of 64 -> 48 and 48 -> 64 channels), with residual adds."""

    def __init__(self):
        super().__init__()

        def cbr(i, o, k, s=1, g=1):
            return nn.Sequential(nn.Conv2d(i, o, k, s, k // 2, groups=g, bias=False), nn.BatchNorm2d(o), nn.ReLU())

        self.stem = cbr(3, 32, 3)
        self.b1 = nn.Sequential(cbr(32, 64, 1), cbr(64, 64, 3, g=16), nn.Conv2d(64, 64, 1), nn.BatchNorm2d(64))
        self.proj1 = nn.Conv2d(32, 64, 1)
        self.b2 = nn.Sequential(cbr(64, 128, 1), cbr(128, 128, 3, s=2, g=4), nn.Conv2d(128, 128, 1),
                                nn.BatchNorm2d(128))
        self.proj2 = nn.Conv2d(64, 128, 1, stride=2)
        self.g1 = cbr(128, 96, 1, g=2)
        self.g2 = nn.Sequential(nn.Conv2d(96, 128, 1, groups=2), nn.BatchNorm2d(128))
        self.fc = nn.Linear(128, 10)

    def forward(self, x):
        x = self.stem(x)
        x = F.relu(self.b1(x) + self.proj1(x))
        x = F.relu(self.b2(x) + self.proj2(x))
        x = F.relu(self.g2(self.g1(x)) + x)
        return self.fc(torch.flatten(F.adaptive_avg_pool2d(x, 1), 1))


class DilatedAspp(nn.Module):
    """DeepLab / LR-ASPP-style head over a strided backbone: parallel 3x3 convs with dilations 1, 2 and 4 and a
    dilated depthwise 5x5 (dilation 2), concatenated on channels, projected by a 1x1 conv to class scores."""

    def __init__(self):
        super().__init__()

        def cbr(i, o, k, s=1, d=1, g=1):
            return nn.Sequential(nn.Conv2d(i, o, k, s, d * (k // 2), dilation=d, groups=g, bias=False),
                                 nn.BatchNorm2d(o), nn.ReLU())

        self.backbone = nn.Sequential(cbr(3, 32, 3, s=2), cbr(32, 64, 3), cbr(64, 64, 3, d=2))
        self.branches = nn.ModuleList([cbr(64, 32, 1), cbr(64, 32, 3, d=2), cbr(64, 32, 3, d=4),
                                       nn.Sequential(cbr(64, 64, 5, d=2, g=64), cbr(64, 32, 1))])
        self.project = nn.Sequential(cbr(128, 64, 1), nn.Conv2d(64, 5, 1))

    def forward(self, x):
        x = self.backbone(x)
        return self.project(torch.cat([b(x) for b in self.branches], dim=1))


class EncoderLayer(nn.Module):
    """Post-norm transformer encoder layer: multi-head self-attention, GELU feed-forward, LayerNorm."""

    def __init__(self, d, heads, ff):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(d, 3 * d)
        self.proj = nn.Linear(d, d)
        self.ff1, self.ff2 = nn.Linear(d, ff), nn.Linear(ff, d)
        self.norm1, self.norm2 = nn.LayerNorm(d), nn.LayerNorm(d)

    def forward(self, x):
        b, t, d = x.shape
        h = self.heads
        q, k, v = self.qkv(x).reshape(b, t, 3, h, d // h).permute(2, 0, 3, 1, 4)
        att = torch.softmax(q @ k.transpose(-2, -1) / math.sqrt(d // h), dim=-1)
        y = (att @ v).transpose(1, 2).reshape(b, t, d)
        x = self.norm1(x + self.proj(y))
        return self.norm2(x + self.ff2(F.gelu(self.ff1(x))))


class Transformer(nn.Module):
    """Token embedding (Gather) + learned positions, 2 encoder layers, mean pooling, classifier."""

    def __init__(self, vocab=100, d=32, t=16):
        super().__init__()
        self.embed = nn.Embedding(vocab, d)
        self.pos = nn.Parameter(0.1 * torch.randn(1, t, d))
        self.layers = nn.ModuleList([EncoderLayer(d, 4, 64) for _ in range(2)])
        self.fc = nn.Linear(d, 5)

    def forward(self, tokens):
        x = self.embed(tokens) + self.pos
        for layer in self.layers:
            x = layer(x)
        return self.fc(x.mean(dim=1))


class LstmKws(nn.Module):
    """Keyword spotter: MFCC frames [B, 10, 49] -> Conv1d -> LSTM -> last step -> 12 classes."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv1d(10, 32, 3, padding=1)
        self.lstm = nn.LSTM(32, 48, batch_first=True)
        self.fc = nn.Linear(48, 12)

    def forward(self, x):
        y = F.relu(self.conv(x)).transpose(1, 2)
        y, _ = self.lstm(y)
        return self.fc(y[:, -1])


# name -> (constructor, input shape, input kind)
HAND_WRITTEN = {
    "se_block": (SeBlock, (1, 3, 32, 32), "image"),
    "concat_branches": (ConcatBranches, (1, 3, 32, 32), "image"),
    "dense_blocks": (DenseBlocks, (1, 3, 32, 32), "image"),
    "unet": (UNet, (1, 3, 32, 32), "image"),
    "decoder_ct": (DecoderCt, (1, 3, 32, 32), "image"),
    "grouped_convs": (GroupedConvs, (1, 3, 32, 32), "image"),
    "dilated_aspp": (DilatedAspp, (1, 3, 32, 32), "image"),
    "transformer": (Transformer, (1, 16), "tokens"),
    "lstm_kws": (LstmKws, (1, 10, 49), "image"),
}
TORCHVISION = ["shufflenet_v2_x0_5", "mobilenet_v3_small", "mnasnet0_5", "squeezenet1_1", "efficientnet_b0",
               "densenet121", "googlenet", "lraspp_mobilenet_v3_large"]


def randomize_batchnorm(model, g):
    """Random running statistics and affine parameters (a fresh torchvision model has identity BatchNorm)."""
    for m in model.modules():
        if isinstance(m, nn.BatchNorm2d):
            c = m.num_features
            m.running_mean.copy_(0.1 * torch.randn(c, generator=g))
            m.running_var.copy_(0.5 + torch.rand(c, generator=g))
            m.weight.data.copy_(0.8 + 0.4 * torch.rand(c, generator=g))
            m.bias.data.copy_(0.1 * torch.randn(c, generator=g))


class FirstOutput(nn.Module):
    """Segmentation models return a dict; export its 'out' tensor."""

    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, x):
        return self.model(x)["out"]


def build(name, size):
    if name in HAND_WRITTEN:
        ctor, shape, kind = HAND_WRITTEN[name]
        return ctor(), shape, kind
    if name == "lraspp_mobilenet_v3_large":
        return FirstOutput(torchvision.models.segmentation.lraspp_mobilenet_v3_large(weights_backbone=None)), \
            (1, 3, size, size), "image"
    kwargs = {"aux_logits": False, "init_weights": True} if name == "googlenet" else {}
    return getattr(torchvision.models, name)(**kwargs), (1, 3, size, size), "image"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", required=True, choices=sorted(HAND_WRITTEN) + TORCHVISION)
    ap.add_argument("--out", required=True)
    ap.add_argument("--size", type=int, default=224, help="image side of the torchvision models")
    ap.add_argument("--opset", type=int, default=13)
    ap.add_argument("--calib", type=int, default=4, help="number of calibration inputs")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    torch.manual_seed(args.seed)
    torch.set_num_threads(1)
    model, shape, kind = build(args.model, args.size)
    g = torch.Generator().manual_seed(args.seed + 1)
    with torch.no_grad():
        randomize_batchnorm(model, g)
    model.eval()

    def sample(n):
        if kind == "tokens":
            return torch.randint(0, 100, (n,) + tuple(shape[1:]), generator=g)
        return torch.randn((n,) + tuple(shape[1:]), generator=g)

    x = sample(shape[0])
    with torch.no_grad():
        y = model(x)
        torch.onnx.export(model, x, os.path.join(args.out, "model.onnx"), opset_version=args.opset,
                          input_names=["input"], output_names=["output"], do_constant_folding=False)
    np.save(os.path.join(args.out, "input.npy"), x.numpy())
    np.save(os.path.join(args.out, "torch_out.npy"), y.numpy().astype(np.float32))
    np.save(os.path.join(args.out, "calib.npy"), sample(args.calib).numpy())


if __name__ == "__main__":
    main()
