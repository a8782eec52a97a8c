"""The training loop the network fit scripts share: Adam over shuffled batches, the rate
decaying by a constant factor each epoch, the mean loss printed per epoch.

Each script keeps its own augmentation and loss in ``batch_loss``; PyTorch is imported only
when a fit runs (``pip install -e ".[fit]"``).
"""

from __future__ import annotations

import argparse
import sys
import warnings
from collections.abc import Callable
from pathlib import Path

import numpy as np

from benchmarks.fit_seeds import shared_seeds


def load_torch(script: str, threads: int):
    """PyTorch, set to ``threads`` threads; None (after saying how to install it) where it is missing."""
    try:
        import torch
    except ImportError:
        print(f"{script} needs PyTorch: pip install -e '.[fit]'", file=sys.stderr)
        return None
    torch.set_num_threads(threads)
    return torch


def export_onnx(net, path: Path, shape: tuple[int, ...], input_name: str, output_name: str, *,
                free_batch: bool = False) -> None:
    """Write ``net`` to ``path`` as ONNX for inputs of ``shape`` (``free_batch``: any first
    dimension), with the TorchScript exporter: deprecated, but the shipped networks were written
    with it, and its plain graphs run in ONNX Runtime (``vision.onnx_net``)."""
    import torch

    axes = {input_name: {0: "batch"}, output_name: {0: "batch"}} if free_batch else None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(net, torch.zeros(*shape), str(path), input_names=[input_name],
                          output_names=[output_name], dynamic_axes=axes, dynamo=False)


def load_onnx_weights(net, path: Path) -> None:
    """Set ``net``'s parameters from the ONNX file ``path`` it was exported to (``export_onnx``),
    so a fit can go on from a shipped network. Parameters keep their names in the export,
    except the few the exporter folds into a renamed constant; each of those takes the one
    leftover constant with its number of values. Raises ``ValueError`` where one has no match."""
    import onnx
    import torch
    from onnx import numpy_helper

    consts = {i.name: numpy_helper.to_array(i) for i in onnx.load(str(path)).graph.initializer}
    state = net.state_dict()
    missing = [name for name in state if name not in consts]
    leftover = [v for k, v in consts.items() if k not in state]
    loaded = {name: torch.from_numpy(consts[name].copy()) for name in state if name in consts}
    for name in missing:
        size = state[name].numel()
        same = [v for v in leftover if v.size == size]
        if len(same) != 1:
            raise ValueError(f"{path}: no single constant of {size} values for parameter {name!r}")
        loaded[name] = torch.from_numpy(same[0].reshape(state[name].shape).copy())
    net.load_state_dict(loaded)


def adam_epochs(net, count: int, batch_loss: Callable, *, epochs: int, batch: int, lr: float, decay: float,
                weight_decay: float = 1e-5):
    """Train ``net`` for ``epochs`` passes over ``count`` examples in shuffled batches of
    ``batch``; ``batch_loss(net, idx)`` returns the loss of the examples ``idx`` (a tensor of
    indices). Returns ``net`` in evaluation mode."""
    import torch

    opt = torch.optim.Adam(net.parameters(), lr, weight_decay=weight_decay)
    for epoch in range(epochs):
        net.train()
        order = torch.randperm(count)
        total = 0.0
        for i in range(0, count, batch):
            idx = order[i:i + batch]
            loss = batch_loss(net, idx)
            opt.zero_grad()
            loss.backward()
            opt.step()
            total += loss.item() * len(idx)
        for group in opt.param_groups:
            group["lr"] *= decay
        print(f"  epoch {epoch + 1}/{epochs}: loss {total / count:.4f}", flush=True)
    return net.eval()


def report_read_back(net, read_back: Callable[[np.ndarray], np.ndarray], sample: np.ndarray, out: Path) -> None:
    """Print how closely the exported file ``out``, run as the app runs it (``read_back``),
    reproduces the fitted PyTorch ``net`` on ``sample``."""
    import torch

    with torch.no_grad():
        expected = net(torch.from_numpy(sample)).numpy()
    got = read_back(sample)
    drift = float(np.abs(got - expected.reshape(got.shape)).max())
    print(f"wrote {out}; OpenCV reads it back within {drift:.2e}")


def fit_parser(description: str, *, frames: int, held_out: int, epochs: int, out: Path) -> argparse.ArgumentParser:
    """The options every fit script takes (its own defaults); a script adds its own after."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--frames", type=int, default=frames)
    parser.add_argument("--held-out", type=int, default=held_out)
    parser.add_argument("--epochs", type=int, default=epochs)
    parser.add_argument("--cache", type=Path, help="keep the rendered inputs here (.npz) and reuse them")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--threads", type=int, default=2, help="PyTorch threads while training")
    parser.add_argument("--out", type=Path, default=out)
    return parser


def cached(path: Path | None, build: Callable[[], dict[str, np.ndarray]]) -> dict[str, np.ndarray]:
    """The arrays saved at ``path`` if it exists; else ``build()``'s, saved there when ``path``
    is given (rendering the inputs takes longer than a fit, and a refit may reuse them)."""
    if path is not None and path.exists():
        with np.load(path) as data:
            return {k: data[k] for k in data.files}
    arrays = build()
    if path is not None:
        np.savez(path, **arrays)
    return arrays


def seed_ranges(train: int, frames: int, held: int, held_out: int) -> tuple[range, range]:
    """The training and held-out scene seeds. A held-out seed that is also fitted on renders
    the same scene and flatters the report, so overlapping ranges stop the fit."""
    fit, check = range(train, train + frames), range(held, held + held_out)
    if len(shared_seeds(fit, check)):
        raise SystemExit(f"training seeds {fit.start}-{fit.stop - 1} overlap the held-out seeds "
                         f"{check.start}-{check.stop - 1}: fit fewer frames")
    return fit, check


def scene_difficulty(seed: int, cycle: tuple[str, ...], held: bool) -> str:
    """A scene's difficulty: training scenes take ``cycle``'s in turn by seed; held-out scenes
    are hard, where a fit's figures tell most."""
    return "hard" if held else cycle[seed % len(cycle)]
