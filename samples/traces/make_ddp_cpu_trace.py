#!/usr/bin/env python3
"""Records the traces of a two-rank PyTorch DDP job on CPU (Gloo) with torch.profiler.

Run: `/usr/bin/python3 samples/traces/make_ddp_cpu_trace.py OUT_DIR [--shapes]`; writes OUT_DIR/rank0.json and
OUT_DIR/rank1.json. With a PyTorch built with Kineto these are Kineto traces (ProfilerStep#N, AccumulateGrad per
parameter, record_param_comms, gloo:all_reduce, distributedInfo; with --shapes the gradients' shapes). Debian 12's
python3-torch (1.13) is built without Kineto: its export is the legacy profiler's bare JSON array (names and times,
no categories, no arguments, no sizes even with --shapes). samples/traces/legacy_ddp_gloo_rank0.json is that
output, rank 0 of a run without --shapes: the trace `pacer-cli replay` refuses with the line saying what is missing.
"""
import os
import sys
import tempfile

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP


def model():
    # Eight layers, 16 parameters, ~5.3 MB of gradients: with 1 MB buckets DDP makes several buckets.
    torch.manual_seed(0)
    layers = []
    width = [256, 512, 512, 512, 512, 256, 256, 128, 10]
    for i in range(len(width) - 1):
        layers.append(nn.Linear(width[i], width[i + 1]))
        if i + 2 < len(width):
            layers.append(nn.ReLU())
    return nn.Sequential(*layers)


def run(rank, world, store_file, out_dir, shapes):
    torch.set_num_threads(1)
    dist.init_process_group("gloo", init_method="file://" + store_file, rank=rank, world_size=world)
    net = DDP(model(), bucket_cap_mb=1)
    opt = torch.optim.SGD(net.parameters(), lr=0.01)
    x = torch.randn(64, 256)
    y = torch.randint(0, 10, (64,))
    loss_fn = nn.CrossEntropyLoss()
    sched = torch.profiler.schedule(wait=1, warmup=2, active=5, repeat=1)
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU], schedule=sched,
                                record_shapes=shapes) as prof:
        for _ in range(8):
            opt.zero_grad()
            loss_fn(net(x), y).backward()
            opt.step()
            prof.step()
    prof.export_chrome_trace(os.path.join(out_dir, "rank%d.json" % rank))
    dist.destroy_process_group()


if __name__ == "__main__":
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    store = tempfile.mktemp()
    mp.spawn(run, args=(2, store, out, "--shapes" in sys.argv), nprocs=2)
