"""Benchmark: ``vsim jitter`` on a capture of a million RTP packets, target <= 10 s wall.

Writes (into a temporary directory) a nanosecond pcap of G.729 streams over
Ethernet/IPv4/UDP, 20 ms frames with random network delay, some loss and a
few late packets, then times ``vsim jitter CAPTURE --json PATH`` as a
separate process (interpreter start-up and imports included). Prints JSON,
then one PASS/FAIL line; exits 1 when the target is missed.

    .venv/bin/python benchmarks/bench_jitter.py            # --packets, --streams, --budget
"""

import argparse
import json
import struct
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

FRAME = 14 + 20 + 8 + 12 + 20  # Ethernet, IPv4, UDP, RTP header, G.729 payload (20 ms)


def capture_bytes(packets, streams, seed=1):
    """A pcap file (bytes) of ``packets`` RTP packets spread over ``streams`` streams."""
    rng = np.random.default_rng(seed)
    per_stream = -(-packets // streams)
    stream = np.repeat(np.arange(streams), per_stream)[:packets]
    k = np.tile(np.arange(per_stream), streams)[:packets]
    arrival_ns = (k * 20_000_000 + stream * 137_000 + rng.uniform(0, 4e6, packets).astype(np.int64)
                  + 1_000_000_000_000)
    late = rng.random(packets) < 1e-4  # a few packets overtaken by the next one
    arrival_ns[late] += 25_000_000
    kept = rng.random(packets) >= 0.001  # 0.1 % loss
    order = np.argsort(arrival_ns[kept], kind="stable")
    stream, k, arrival_ns = stream[kept][order], k[kept][order], arrival_ns[kept][order]
    n = stream.size

    frame = np.zeros((n, 16 + FRAME), dtype=np.uint8)
    record = frame[:, :16].view("<u4")
    record[:, 0] = arrival_ns // 1_000_000_000
    record[:, 1] = arrival_ns % 1_000_000_000
    record[:, 2] = record[:, 3] = FRAME
    eth = frame[:, 16:]
    eth[:, 0:6] = [2, 0, 0, 0, 0, 2]
    eth[:, 6:12] = [2, 0, 0, 0, 0, 1]
    eth[:, 12:14] = [0x08, 0x00]
    ip = eth[:, 14:]
    ip[:, 0] = 0x45
    ip[:, 2:4] = np.frombuffer(struct.pack(">H", FRAME - 14), dtype=np.uint8)
    ip[:, 8] = 64
    ip[:, 9] = 17
    ip[:, 12:16] = [10, 0, 0, 1]
    ip[:, 16:20] = [10, 0, 1, 1]
    udp = ip[:, 20:]
    ports = (20000 + 2 * stream).astype(">u2").view(np.uint8).reshape(n, 2)
    udp[:, 0:2] = ports
    udp[:, 2:4] = ports
    udp[:, 4:6] = np.frombuffer(struct.pack(">H", FRAME - 34), dtype=np.uint8)
    rtp = udp[:, 8:]
    rtp[:, 0] = 0x80
    rtp[:, 1] = 18
    rtp[:, 2:4] = (k % 65536).astype(">u2").view(np.uint8).reshape(n, 2)
    rtp[:, 4:8] = ((k * 160) % 2**32).astype(">u4").view(np.uint8).reshape(n, 4)
    rtp[:, 8:12] = (0x10000 + stream).astype(">u4").view(np.uint8).reshape(n, 4)
    header = struct.pack("<IHHiIII", 0xA1B23C4D, 2, 4, 0, 0, 65535, 1)
    return header + frame.tobytes(), n


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--packets", type=int, default=1_000_000)
    parser.add_argument("--streams", type=int, default=100)
    parser.add_argument("--budget", type=float, default=10.0, help="target wall seconds")
    args = parser.parse_args(argv)
    vsim = Path(sys.executable).with_name("vsim")
    with tempfile.TemporaryDirectory() as tmp:
        capture = Path(tmp) / "bench.pcap"
        data, written = capture_bytes(args.packets, args.streams)
        capture.write_bytes(data)
        out = Path(tmp) / "streams.json"
        began = time.perf_counter()
        subprocess.run([str(vsim), "jitter", str(capture), "--json", str(out)], check=True)
        wall = time.perf_counter() - began
        streams = json.loads(out.read_text())["streams"]
    result = {"packets_offered": args.packets, "packets_written": written, "capture_bytes": len(data),
              "streams": len(streams), "wall_s": round(wall, 3),
              "mean_jitter_ms_median": float(np.median([s["mean_jitter_ms"] for s in streams])),
              "lost_total": int(sum(s["lost"] for s in streams))}
    print(json.dumps(result, indent=2))
    ok = wall <= args.budget
    print(f"{'PASS' if ok else 'FAIL'}: vsim jitter on {written} packets took {wall:.2f} s "
          f"(target <= {args.budget:g} s)")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
