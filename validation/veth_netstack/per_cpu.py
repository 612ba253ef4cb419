"""Each side's whole CPU per frame in this machine's veth runs with receive steering, and the
Linux receive stack's per-packet and per-byte costs they give.

    python validation/veth_netstack/per_cpu.py > validation/veth_netstack/per_cpu.txt

``measure_per_cpu.sh`` steers each veth's receive softirq to its receiver's CPU, so CPU 1 does
all of a data frame's receive work (softirq, TCP input, the system call and the copy to
iperf3) and the ACKs it sends, and CPU 0 all of the sending. A CPU's busy time over a run is
/proc/stat's user, nice, system, irq and softirq ticks, less what the same CPU was busy in the
idle interval before the round (scaled to the run's length). Divided by the frames the
receiving veth counted, it is that side's cost of one data frame.

The receive stack's cost is ``rx_per_packet + rx_per_byte * payload`` a frame, and the ACKs the
receiver sends cost it ``ACK_TX_CYCLES`` each, the model's own assumed Linux transmit cost of a
packet (``models/netstacks/linux64.toml``), so that the ACK share, which differs between the
runs (one ACK to about 175 frames at MTU 1500, to 8 at 9000), is taken out before the two
unknowns are solved from the medians at MTU 1500 and 9000. Cycles are this CPU's clock
(``date.txt``) times seconds.
"""

import re
import statistics
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
RUNS = HERE / "per_cpu"
MTUS = (1500, 4000, 9000)
FIT = (1500, 9000)
TCP_IP_HEADERS = 52
"""IPv4, TCP and the timestamps option: data bytes a frame = MTU - 52."""
ACK_TX_CYCLES = 3000.0
"""models/netstacks/linux64.toml tx_per_packet: what the receiver pays to send one ACK."""
USER_HZ = 100
"""/proc/stat's ticks a second."""


def clock_hz(runs=RUNS):
    """This CPU's clock as recorded in ``date.txt`` (``cpu MHz`` of /proc/cpuinfo)."""
    match = re.search(r"cpu MHz\s*:\s*([0-9.]+)", (runs / "date.txt").read_text())
    if match is None:
        raise ValueError(f"{runs / 'date.txt'}: no 'cpu MHz' line")
    return float(match.group(1)) * 1e6


def _snapshot(path):
    """({cpu: (busy ticks, all ticks)}, {(device, counter): value}) from a .before/.after file."""
    cpus, counters = {}, {}
    for line in path.read_text().splitlines():
        fields = line.split()
        if fields[0].startswith("cpu"):
            user, nice, system, idle, iowait, irq, softirq = map(int, fields[1:8])
            busy = user + nice + system + irq + softirq
            cpus[fields[0]] = (busy, busy + idle + iowait)
        else:
            counters[(fields[0], fields[1])] = int(fields[2])
    return cpus, counters


def _delta(stem):
    (cpu_a, count_a), (cpu_b, count_b) = _snapshot(stem.with_suffix(".before")), _snapshot(stem.with_suffix(".after"))
    cpus = {c: (cpu_b[c][0] - cpu_a[c][0], cpu_b[c][1] - cpu_a[c][1]) for c in cpu_a}
    counts = {k: count_b[k] - count_a[k] for k in count_a}
    return cpus, counts


def runs(directory=RUNS):
    """[(mtu, round, frames, acks, sender s a frame, receiver s a frame)] for every run."""
    rows = []
    for mtu in MTUS:
        paths = sorted(directory.glob(f"mtu{mtu}_r*.json"))
        if not paths:
            raise FileNotFoundError(f"{directory}: no runs at MTU {mtu}")
        for path in paths:
            round_ = int(path.stem.rsplit("_r", 1)[1])
            idle, _ = _delta(directory / f"idle_r{round_}")
            cpus, counts = _delta(path.with_suffix(""))
            frames, acks = counts[("vb", "rx_packets")], counts[("vb", "tx_packets")]
            cost = []
            for cpu in ("cpu0", "cpu1"):
                busy, ticks = cpus[cpu]
                background = idle[cpu][0] / idle[cpu][1] * ticks
                cost.append((busy - background) / USER_HZ / frames)
            rows.append((mtu, round_, frames, acks, *cost))
    return rows


def medians(rows):
    """{mtu: (ACKs a frame, sender s a frame, receiver s a frame)}, medians over rounds."""
    out = {}
    for mtu in MTUS:
        mine = [r for r in rows if r[0] == mtu]
        out[mtu] = (statistics.median(r[3] / r[2] for r in mine), statistics.median(r[4] for r in mine),
                    statistics.median(r[5] for r in mine))
    return out


def receive_costs(rows=None, hz=None):
    """(rx_per_packet cycles, rx_per_byte cycles) of the receive stack, from the ``FIT`` MTUs."""
    rows = runs() if rows is None else rows
    hz = clock_hz() if hz is None else hz
    med = medians(rows)
    (m1, m2) = FIT
    y = [med[m][2] * hz - med[m][0] * ACK_TX_CYCLES for m in FIT]
    p1, p2 = m1 - TCP_IP_HEADERS, m2 - TCP_IP_HEADERS
    per_byte = (y[1] - y[0]) / (p2 - p1)
    return y[0] - per_byte * p1, per_byte


def main():
    rows, hz = runs(), clock_hz()
    print(f"clock {hz / 1e9:.3f} GHz; medians of {len(rows) // len(MTUS)} rounds, background subtracted")
    print("| MTU | frames/s | ACKs a frame | sender us a frame | receiver us a frame | receiver cycles a frame |")
    print("| --- | --- | --- | --- | --- | --- |")
    for mtu, (acks, send, receive) in medians(rows).items():
        rates = [r[2] / 4 for r in rows if r[0] == mtu]
        print(f"| {mtu} | {statistics.median(rates):,.0f} | {acks:.4f} | {send * 1e6:.3f} | {receive * 1e6:.3f} "
              f"| {receive * hz:,.0f} |")
    per_packet, per_byte = receive_costs(rows, hz)
    print(f"receive stack (MTU {FIT[0]} and {FIT[1]}, ACKs at {ACK_TX_CYCLES:,.0f} cycles taken out): "
          f"{per_packet:,.0f} cycles a packet + {per_byte:.3f} cycles a byte")


if __name__ == "__main__":
    sys.exit(main())
