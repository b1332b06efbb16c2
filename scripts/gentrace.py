#!/usr/bin/env python3
"""Writes a synthetic job trace in Scoria's CSV format (scoria trace import
turns it into objects), in the spirit of gencluster.py:

  - arrivals: a Poisson process, --jobs over --days;
  - durations: heavy-tailed (log-normal, median --median-minutes, sigma
    --sigma), capped at --max-hours;
  - gangs: most jobs are one pod, the rest gangs of 2, 4, ... --max-gang
    pods (each size half as likely as the one before), minAvailable = size;
  - requests: 1, 2, 4 or 8 CPUs per pod (smaller more likely), 4 GiB per
    CPU; --gpu-share of the jobs ask for 1 to 8 GPUs per pod;
  - queues team-0..team-(N-1) and priorities 0, 10, 100, drawn uniformly.

Same seed, same trace.

  scripts/gentrace.py --jobs 100000 --days 7 > week.csv
  python3 gencluster.py --nodes 1000 --gang-jobs 0 > nodes.yaml
  scoria trace import week.csv > week.yaml
  scoria simulate --config CONF --output table nodes.yaml week.yaml
"""
import argparse
import math
import random
import sys


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--jobs", type=int, default=1000)
    p.add_argument("--days", type=float, default=1.0)
    p.add_argument("--queues", type=int, default=4)
    p.add_argument("--median-minutes", type=float, default=60.0)
    p.add_argument("--sigma", type=float, default=1.5)
    p.add_argument("--max-hours", type=float, default=48.0)
    p.add_argument("--single-share", type=float, default=0.7,
                   help="fraction of jobs that are one pod")
    p.add_argument("--max-gang", type=int, default=64)
    p.add_argument("--gpu-share", type=float, default=0.0,
                   help="fraction of jobs asking for GPUs")
    p.add_argument("--seed", type=int, default=1)
    a = p.parse_args()
    if a.jobs < 0 or a.days <= 0 or a.queues < 1 or a.max_gang < 1:
        p.error("--jobs >= 0, --days > 0, --queues >= 1, --max-gang >= 1")

    rng = random.Random(a.seed)
    span = a.days * 86400.0
    rate = a.jobs / span if span > 0 else 0
    gang_sizes = []
    size = 2
    while size <= a.max_gang:
        gang_sizes.append(size)
        size *= 2
    gang_weights = [0.5 ** i for i in range(len(gang_sizes))]
    out = sys.stdout
    out.write("name,queue,arrival,duration,replicas,minAvailable,cpu,memory,gpu,priority\n")
    t = 0.0
    for i in range(a.jobs):
        t += rng.expovariate(rate) if rate > 0 else 0
        duration = min(a.max_hours * 3600.0,
                       math.exp(math.log(a.median_minutes * 60.0) + a.sigma * rng.gauss(0, 1)))
        if rng.random() < a.single_share or not gang_sizes:
            replicas = 1
        else:
            replicas = rng.choices(gang_sizes, gang_weights)[0]
        cpu = rng.choices([1, 2, 4, 8], [8, 4, 2, 1])[0]
        gpu = rng.randint(1, 8) if rng.random() < a.gpu_share else 0
        out.write(f"job-{i:06d},team-{rng.randrange(a.queues)},{t:.1f},{max(1.0, duration):.0f},"
                  f"{replicas},{replicas},{cpu},{4 * cpu}Gi,{gpu},{rng.choice([0, 10, 100])}\n")


if __name__ == "__main__":
    main()
