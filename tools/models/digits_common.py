"""Shared by digits_cnn.py and digits_mlp.py: the deterministic split of
scikit-learn's 8x8 digits, the training loop (Adam, batches of 64) and the
files both write beside model.onnx."""
import os

import numpy as np
import torch
from sklearn.datasets import load_digits
from sklearn.model_selection import train_test_split


def setup(out, seed):
    """Output directory, seeds and one thread, so runs are reproducible."""
    os.makedirs(out, exist_ok=True)
    torch.manual_seed(seed)
    torch.set_num_threads(1)


def split(seed, images):
    """x_train, x_test, y_train, y_test in [0, 1]; images=True gives [N,1,8,8], else [N,64]."""
    digits = load_digits()
    x = ((digits.images if images else digits.data) / 16.0).astype(np.float32)
    if images:
        x = x[:, None, :, :]  # a view: its strides pick torch's conv algorithm, so the trained weights depend on it
    y = digits.target.astype(np.int64)
    return train_test_split(x, y, test_size=0.25, random_state=seed, stratify=y)


def train(model, x_train, y_train, epochs, seed, loss_fn):
    """Adam at 3e-3 over shuffled batches of 64; returns test-mode model."""
    opt = torch.optim.Adam(model.parameters(), lr=3e-3)
    xt, yt = torch.from_numpy(x_train), torch.from_numpy(y_train)
    g = torch.Generator().manual_seed(seed)
    for _ in range(epochs):
        model.train()
        perm = torch.randperm(len(xt), generator=g)
        for i in range(0, len(xt), 64):
            idx = perm[i:i + 64]
            opt.zero_grad()
            loss = loss_fn(model(xt[idx]), yt[idx])
            loss.backward()
            opt.step()
    model.eval()
    return model


def accuracy(model, x_test, y_test):
    with torch.no_grad():
        return (model(torch.from_numpy(x_test)).argmax(1).numpy() == y_test).mean()


def save_data(out, x_train, x_test, y_test, acc):
    """calib.npy (200 training samples), test_x.npy, test_y.npy, torch_accuracy.txt."""
    np.save(os.path.join(out, "calib.npy"), x_train[:200])
    np.save(os.path.join(out, "test_x.npy"), x_test)
    np.save(os.path.join(out, "test_y.npy"), y_test)
    with open(os.path.join(out, "torch_accuracy.txt"), "w") as f:
        f.write(f"{acc:.6f}\n")
