#!/usr/bin/env python3
"""PyTorch's side of bench_vs_pytorch: the same MLP, batch and loop as Pacer's run, under DDP (Gloo) or no_sync.

  pytorch_ddp_mlp.py --mode ddp|no_sync --ranks N --layers 1024,4096,4096,4096,1024 --batch 64
                     --iterations 20 --warmup 5 --threads 1 --bind cores|compute|none

Starts N rank processes (torch.distributed over Gloo, TCP loopback, FileStore rendezvous), each with one
intra-op thread as Pacer's ranks have, and with `--bind cores` (the default) its compute on cores of its own as
Pacer's ranks compute (kernels/cpu_binding.h): rank r's training thread takes the r-th run of --threads CPUs of
the process mask when all ranks fit, bound after the process group started so that Gloo's threads stay free, unless
the host has no core to spare for them: then they go on the rank's cores too (`--bind compute`: never).
Softmax cross-entropy on random inputs, plain SGD: the work Pacer's worker
does per iteration. Prints one JSON line: {"iter_ms": the mean time between iteration starts after warm-up
(Pacer's definition), "params": parameter count}. Exit 2 when torch cannot be imported (the bench skips).
"""
import argparse
import json
import os
import sys
import tempfile
import time


def rank_main(rank, args, store_path, out):
    import torch
    import torch.distributed as dist
    import torch.nn as nn

    torch.set_num_threads(args.threads)
    torch.manual_seed(7)
    dist.init_process_group("gloo", init_method="file://" + store_path, rank=rank, world_size=args.ranks)
    allowed = sorted(os.sched_getaffinity(0))
    if args.bind != "none" and args.ranks * args.threads <= len(allowed):
        share = allowed[rank * args.threads:(rank + 1) * args.threads]
        # Gloo's threads too where the host has no core to spare for them, as Pacer's ranks do ("cores").
        no_core_to_spare = args.ranks * (args.threads + 1) > len(allowed)
        threads = os.listdir("/proc/self/task") if args.bind == "cores" and no_core_to_spare else ["0"]
        for tid in threads:
            try:
                os.sched_setaffinity(int(tid), share)  # tid 0: this thread
            except ProcessLookupError:
                pass  # a thread that ended since the listing
    sizes = [int(s) for s in args.layers.split(",")]
    layers = []
    for i in range(len(sizes) - 1):
        layers.append(nn.Linear(sizes[i], sizes[i + 1]))
        if i + 2 < len(sizes):
            layers.append(nn.ReLU())
    model = nn.Sequential(*layers)
    ddp = nn.parallel.DistributedDataParallel(model)
    opt = torch.optim.SGD(ddp.parameters(), lr=0.01)
    loss_fn = nn.CrossEntropyLoss()
    x = torch.randn(args.batch, sizes[0])
    y = torch.randint(0, sizes[-1], (args.batch,))
    starts = []
    for _ in range(args.iterations):
        starts.append(time.perf_counter())
        opt.zero_grad(set_to_none=False)
        if args.mode == "no_sync":
            with ddp.no_sync():
                loss_fn(ddp(x), y).backward()
        else:
            loss_fn(ddp(x), y).backward()
        opt.step()
    steady = starts[args.warmup:]
    if rank == 0:
        out.put({"iter_ms": (steady[-1] - steady[0]) * 1e3 / (len(steady) - 1),
                 "params": sum(p.numel() for p in model.parameters())})
    dist.barrier()
    dist.destroy_process_group()


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--mode", choices=["ddp", "no_sync"], required=True)
    p.add_argument("--ranks", type=int, default=2)
    p.add_argument("--layers", default="1024,4096,4096,4096,1024")
    p.add_argument("--batch", type=int, default=64)
    p.add_argument("--iterations", type=int, default=20)
    p.add_argument("--warmup", type=int, default=5)
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--bind", choices=["cores", "compute", "none"], default="cores")
    args = p.parse_args()
    if args.iterations - args.warmup < 2:
        print("pytorch_ddp_mlp.py: error: need at least 2 iterations after warm-up", file=sys.stderr)
        return 2
    try:
        import torch  # noqa: F401
        import torch.multiprocessing as mp
    except ImportError as e:
        print("pytorch_ddp_mlp.py: torch is not installed (%s)" % e, file=sys.stderr)
        return 2
    # One intra-op thread per rank also for anything torch starts before set_num_threads.
    os.environ.setdefault("OMP_NUM_THREADS", str(args.threads))
    ctx = mp.get_context("spawn")
    out = ctx.Queue()
    with tempfile.TemporaryDirectory() as d:
        procs = [ctx.Process(target=rank_main, args=(r, args, os.path.join(d, "store"), out)) for r in range(args.ranks)]
        for proc in procs:
            proc.start()
        result = out.get(timeout=600)
        for proc in procs:
            proc.join(60)
        if any(proc.exitcode != 0 for proc in procs):
            print("pytorch_ddp_mlp.py: a rank failed", file=sys.stderr)
            return 1
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
