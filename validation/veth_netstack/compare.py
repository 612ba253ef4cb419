"""The native Linux path of ``vsim.net.stack`` against this machine's veth measurements.

    python validation/veth_netstack/compare.py      # prints the table of the README

Each run of ``runs/`` (``measure_reps.sh``) gives the CPU seconds per byte of data delivered on
the sending and on the receiving CPU: iperf3's process CPU share over the goodput. The model
says each is ``per_packet / bytes_per_packet + per_byte``. The two CPUs' per-packet and
per-byte costs are taken from the offload-off runs at MTU 1500 and 9000 (medians of the
rounds; the ACKs, one per two frames at either MTU, folded into the per-packet cost), and the
model's native path (``stream_works`` between two native endpoints) then predicts the runs it
was not given: MTU 4000 without offload, and MTU 1500 and 9000 with TSO/GSO, whose segments of
up to 64 KB pay the sender's per-packet cost once. The receiving side has no GRO in the model,
so with offload on it is charged per MTU frame.
"""

import json
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
RUNS = ROOT / "validation" / "veth_netstack" / "runs"
sys.path.insert(0, str(ROOT))

from vsim.net.stack.layers import Layer  # noqa: E402
from vsim.net.stack.paths import TCP_IP_HEADERS, Endpoint, Framing, stream_works  # noqa: E402

GSO_MAX = 65536
"""Linux's largest GSO/TSO segment (gso_max_size), headers included."""

FIT = ((1500, "off"), (9000, "off"))
CASES = ((1500, "off"), (4000, "off"), (9000, "off"), (1500, "on"), (9000, "on"))


def measured(runs=RUNS):
    """{(mtu, offload): (sender s/byte, receiver s/byte, goodput b/s)}, medians over rounds."""
    out = {}
    for mtu, offload in CASES:
        rows = []
        for path in sorted(runs.glob(f"stream_mtu{mtu}_offload_{offload}_r*.json")):
            end = json.loads(path.read_text())["end"]
            rate = end["sum_received"]["bytes"] / end["sum_received"]["seconds"]
            cpu = end["cpu_utilization_percent"]
            rows.append((cpu["host_total"] / 100 / rate, cpu["remote_total"] / 100 / rate, rate * 8))
        if not rows:
            raise FileNotFoundError(f"{runs}: no runs at MTU {mtu}, offload {offload}")
        out[(mtu, offload)] = tuple(statistics.median(r[i] for r in rows) for i in range(3))
    return out


def fit(data):
    """(per_packet, per_byte) of the sender and of the receiver from the two ``FIT`` runs."""
    (m1, o1), (m2, o2) = FIT
    p1, p2 = m1 - TCP_IP_HEADERS, m2 - TCP_IP_HEADERS
    costs = []
    for side in (0, 1):
        y1, y2 = data[(m1, o1)][side], data[(m2, o2)][side]
        per_packet = (y1 - y2) / (1 / p1 - 1 / p2)
        costs.append((per_packet, y1 - per_packet / p1))
    return tuple(costs)


def predict(costs, mtu, offload):
    """The model's (sender, receiver) CPU s/byte for a stream at ``mtu`` with offload on/off."""
    (sp, sb), (rp, rb) = costs
    tso = offload == "on"
    payload = mtu - TCP_IP_HEADERS
    framing = Framing(mtu, (GSO_MAX - TCP_IP_HEADERS) // payload if tso else 1)
    sender = Endpoint("sender", "vsa", Layer("sender stack", tx_per_packet=sp, tx_per_byte=sb),
                      nic=Layer("veth", tso=tso))
    receiver = Endpoint("receiver", "vsb", Layer("receiver stack", rx_per_packet=rp, rx_per_byte=rb),
                        nic=Layer("veth"))
    works = stream_works(sender, receiver, framing)
    return tuple(sum(w.seconds_per_byte for w in works if w.cpu == cpu) for cpu in ("sender", "receiver"))


def table(data=None):
    """Rows (mtu, offload, measured sender, model sender, measured receiver, model receiver,
    goodput Mb/s), CPU in ns a byte."""
    data = measured() if data is None else data
    costs = fit(data)
    rows = []
    for mtu, offload in CASES:
        s, r, bps = data[(mtu, offload)]
        ps, pr = predict(costs, mtu, offload)
        rows.append((mtu, offload, s * 1e9, ps * 1e9, r * 1e9, pr * 1e9, bps / 1e6))
    return costs, rows


def main():
    (sp, sb), (rp, rb) = fit(measured())
    print(f"fitted (offload off, MTU 1500 and 9000): sender {sp * 1e6:.3f} us a packet + {sb * 1e9:.3f} ns a byte, "
          f"receiver {rp * 1e6:.3f} us a packet + {rb * 1e9:.3f} ns a byte")
    print("| MTU | offload | goodput | sender ns/B measured | model | receiver ns/B measured | model |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for mtu, offload, s, ps, r, pr, mbps in table()[1]:
        tag = " (fit)" if (mtu, offload) in FIT else ""
        print(f"| {mtu}{tag} | {offload} | {mbps:,.0f} Mb/s | {s:.3f} | {ps:.3f} ({ps / s - 1:+.0%}) "
              f"| {r:.3f} | {pr:.3f} ({pr / r - 1:+.0%}) |")


if __name__ == "__main__":
    main()
