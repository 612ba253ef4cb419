#!/bin/sh
# Aligned wake-ups of N periodic workers (one cgroup "VM", no quota, default weights) on this
# machine, and the CPU a wake-up costs a worker: `vsim probe cpu` at N = 1, 2, 4, 8, 16 workers,
# each with 0.01 ms of work per 20 ms tick (the wake-up's own cost dominates what the worker's
# accounting shows) and with 1 ms (when the last of N aligned ticks ends). Three rounds, the
# settings interleaved in each round so the background load is shared. Run as root from the
# repository's top folder:  sh validation/cpu_aligned/measure.sh
# (VSIM is the command that runs vsim; by default python -m vsim.)
set -eu
VSIM=${VSIM:-"python -m vsim"}
OUT=validation/cpu_aligned/data
mkdir -p "$OUT"
for round in 1 2 3; do
  for n in 1 2 4 8 16; do
    for work in 0.01 1; do
      uptime > "$OUT/n${n}_w${work}_r${round}.uptime"
      # a run whose worker was killed from outside (the machine is shared) is taken once more
      $VSIM probe cpu --vms 1 --workers "$n" --work-ms "$work" --period 0.02 --duration 8 \
        --out "$OUT/n${n}_w${work}_r${round}.csv" ||
      $VSIM probe cpu --vms 1 --workers "$n" --work-ms "$work" --period 0.02 --duration 8 \
        --out "$OUT/n${n}_w${work}_r${round}.csv"
    done
  done
done
