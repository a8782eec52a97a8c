"""The training loop the network fit scripts share: Adam over shuffled batches, the rate
decaying by a constant factor each epoch, the mean loss printed per epoch.

Each script keeps its own augmentation and loss in ``batch_loss``; PyTorch is imported only
when a fit runs (``pip install -e ".[fit]"``).
"""

from __future__ import annotations

import sys
from collections.abc import Callable


def load_torch(script: str, threads: int):
    """PyTorch, set to ``threads`` threads; None (after saying how to install it) where it is missing."""
    try:
        import torch
    except ImportError:
        print(f"{script} needs PyTorch: pip install -e '.[fit]'", file=sys.stderr)
        return None
    torch.set_num_threads(threads)
    return torch


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
