"""A deliberately naive per-packet SimPy model of the vsim media-server path.

This is the reference the optimised simulator is measured against: the same
scenario and the same component parameters (read from the same ``Loaded``
object), written the textbook way, with every voice frame its own chain of
SimPy events:

- each vCPU is a ``simpy.Resource(capacity=1)``; every 20 ms tick of a vCPU
  is a process that sleeps the guest timer's log-normal lateness, holds the
  vCPU, spends the tick overhead and then one timeout per stream (gamma
  frame cost), and posts the tick's frames to the vNIC when it is done;
- the vNIC's transmit ring holds at most ``tx_ring`` frames; its hypervisor
  world is woken at most ``wake_rate_hz`` times per second and then drains
  the ring frame by frame until it is empty: a request and a timeout of
  ``tx_cost + rx_cost`` on a hypervisor resource per frame, after which the
  frame goes on to the uplink;
- the uplink is a ``simpy.Resource(capacity=1)`` holding each frame for its
  serialization time, with a drop-tail queue of ``queue_packets`` frames
  checked with ``len(queue)``;
- every frame then travels the switch and client latency as its own timeout;
  the measuring client records the arrival of the measuring conference's
  frames.

One difference of detail from ``vsim.net.vnic_tx`` is deliberate: there the
hypervisor world's work is one job per batch of posts and the batch reaches
the uplink when the job ends; here each frame reaches the uplink as soon as
its own transmit cost is spent, the per-frame behaviour that batching stands
for. The effect on jitter is small next to the spread between seeds;
``bench_vs_naive.py`` tests it.

The CPU is modelled only for the case where nothing contends: every world
(vCPUs and vNIC transmit worlds) has a whole core of its own, so it always
runs at full speed the moment it is runnable. ``check_uncontended`` refuses
scenarios where that does not hold. Jitter is computed exactly as
``vsim.engines.simulation`` does: RFC 3550 per stream, pooled over the
measuring conference's streams, samples of packets sent after the warm-up.

Run: ``python benchmarks/naive_packet_model.py CONFIG --set vm.instances=1 --set vm.background_burst=0
--set params.host.socket_contention=0 --duration 20``
"""

import argparse
import json
import math
import random
import sys
import time
from collections import deque

import numpy as np
import simpy

from vsim.metrics.jitter import stream_jitter_samples
from vsim.net.frames import ip_bytes_for_rtp, serialization_time
from vsim.build.load import load_scenario
from vsim.config.run_length import RunPlan

MS = 1e3


def check_uncontended(loaded):
    """Raise ValueError unless every world of the scenario can have a core to itself."""
    scenario = loaded.scenario
    host = loaded.models["host"].values
    vm = scenario.vm
    cores = host.sockets * host.cores_per_socket
    worlds = vm.instances * (vm.vcpus + 1)
    if worlds > cores:
        raise ValueError(f"the naive model assumes an uncontended host: {vm.instances} instances x "
                         f"({vm.vcpus} vCPUs + 1 vNIC world) = {worlds} worlds > {cores} cores")
    if vm.affinity is not None or vm.limit is not None or scenario.vm_settings(0).limit is not None:
        raise ValueError("the naive model does not model CPU affinity or limits")
    if vm.background(loaded.models["workload"].values)[0] > 0:
        raise ValueError("the naive model does not model guest background bursts")
    if host.socket_contention > 0:
        raise ValueError("the naive model does not model socket contention (busy cores slowing "
                         "each other): set params.host.socket_contention=0")


def conference_layout(streams, participants, vcpus, measuring_conference):
    """Per vCPU: (streams it processes, how many of them are the measuring conference's).

    Conferences are dealt round-robin over the vCPUs in setup order and the
    measuring conference is set up last, as in ``vsim.guest.media_server``.
    """
    sizes = [participants] * math.ceil(streams / participants)
    if streams % participants:
        sizes[-1] = streams % participants
    if measuring_conference:
        sizes.append(participants)
    totals = [0] * vcpus
    for index, size in enumerate(sizes):
        totals[index % vcpus] += size
    measured = [0] * vcpus
    if measuring_conference:
        measured[(len(sizes) - 1) % vcpus] = participants
    return list(zip(totals, measured))


class Packet:
    """One voice frame: its stream, its RTP send time, whether the client measures it."""

    __slots__ = ("stream", "send_time", "measured")

    def __init__(self, stream, send_time, measured):
        self.stream = stream
        self.send_time = send_time
        self.measured = measured


class Counters:
    """Packet counts of the whole host and the measuring client's record."""

    def __init__(self):
        self.emitted = 0
        self.dropped = 0
        self.streams = []
        self.send_times = []
        self.recv_times = []

    def record(self, packet, recv_time):
        self.streams.append(packet.stream)
        self.send_times.append(packet.send_time)
        self.recv_times.append(recv_time)

    def snapshot(self):
        return self.emitted, self.dropped


class Uplink:
    """The physical NIC: one transmitter, a drop-tail queue, then the wire to the clients."""

    def __init__(self, env, counters, *, rate_bps, queue_packets, latency, client_latency, ip_bytes):
        self.env = env
        self.counters = counters
        self.link = simpy.Resource(env, capacity=1)
        self.queue_packets = queue_packets
        self.service = float(serialization_time(ip_bytes, rate_bps))
        self.delay = latency + client_latency

    def send(self, packet):
        """A frame arrives at the NIC: queue it (or drop it) as its own process."""
        if self.link.users and len(self.link.queue) >= self.queue_packets:
            self.counters.dropped += 1
            if packet.measured:
                self.counters.record(packet, math.nan)
            return
        self.env.process(self._transmit(packet, self.link.request()))

    def _transmit(self, packet, request):
        yield request
        yield self.env.timeout(self.service)
        self.link.release(request)
        yield self.env.timeout(self.delay)
        if packet.measured:
            self.counters.record(packet, self.env.now)


class VnicTx:
    """Transmit ring and hypervisor transmit world of one vNIC, one frame at a time."""

    def __init__(self, env, uplink, counters, *, tx_cost, rx_cost, ring_size, wake_rate_hz):
        self.env = env
        self.uplink = uplink
        self.counters = counters
        self.cost = tx_cost + rx_cost
        self.ring_size = ring_size
        self.min_gap = 1.0 / wake_rate_hz if wake_rate_hz < math.inf else 0.0
        self.hypervisor = simpy.Resource(env, capacity=1)
        self.pending = deque()
        self.in_ring = 0
        self.running = False
        self.last_wake = -math.inf

    def post(self, packet):
        """The guest puts one frame into the transmit ring."""
        if self.in_ring >= self.ring_size:
            self.counters.dropped += 1
            if packet.measured:
                self.counters.record(packet, math.nan)
            return
        self.in_ring += 1
        self.pending.append(packet)
        if not self.running:
            self.running = True
            self.env.process(self._world())

    def _world(self):
        wait = self.last_wake + self.min_gap - self.env.now
        if wait > 0:
            yield self.env.timeout(wait)
        self.last_wake = self.env.now
        while self.pending:
            packet = self.pending.popleft()
            with self.hypervisor.request() as request:
                yield request
                yield self.env.timeout(self.cost)
            self.in_ring -= 1
            self.uplink.send(packet)
        self.running = False


class Vcpu:
    """One vCPU and its worker thread's conferences."""

    def __init__(self, env, streams, measured, rng, frame_cost, frame_cost_cv):
        self.cpu = simpy.Resource(env, capacity=1)
        self.streams = streams
        self.measured = measured
        self.rng = rng
        self.frame_cost = frame_cost
        self.gamma_shape = 1.0 / (frame_cost_cv * frame_cost_cv) if frame_cost_cv > 0 else None

    def frame_work(self):
        """Core-seconds to decode, mix and encode one stream's frame."""
        if self.gamma_shape is None:
            return self.frame_cost
        return self.rng.gammavariate(self.gamma_shape, self.frame_cost / self.gamma_shape)


class MediaServerVm:
    """One media-server VM: a tick process per vCPU per 20 ms, a frame timeout per stream."""

    def __init__(self, env, loaded, index, rng, vnic, counters):
        m = {role: model.values for role, model in loaded.models.items()}
        scenario = loaded.scenario
        work, codec = m["workload"], m["codec"]
        self.env = env
        self.rng = rng
        self.vnic = vnic
        self.counters = counters
        self.tick = codec.packet_interval
        self.tick_overhead = work.tick_overhead
        self.timer_mu = math.log(work.timer_median) if work.timer_median > 0 else None
        self.timer_sigma = work.timer_sigma
        layout = conference_layout(scenario.vm.streams_per_instance, work.participants,
                                   scenario.vm.vcpus,
                                   scenario.client.measuring_conference and index == 0)
        self.vcpus = [Vcpu(env, streams, measured, rng, work.frame_cost, work.frame_cost_cv)
                      for streams, measured in layout if streams]
        self.phase = rng.uniform(0.0, self.tick)

    def run(self):
        """Fire the guest timer every tick and start each vCPU's tick as its own process."""
        yield self.env.timeout(self.phase)
        k = 0
        while True:
            for vcpu in self.vcpus:
                self.env.process(self._vcpu_tick(vcpu, k))
            k += 1
            yield self.env.timeout(self.tick)

    def _vcpu_tick(self, vcpu, k):
        if self.timer_mu is not None:
            yield self.env.timeout(self.rng.lognormvariate(self.timer_mu, self.timer_sigma))
        with vcpu.cpu.request() as request:
            yield request
            yield self.env.timeout(self.tick_overhead)
            for _stream in range(vcpu.streams):
                yield self.env.timeout(vcpu.frame_work())
        send_time = self.phase + k * self.tick
        first_measured = vcpu.streams - vcpu.measured
        for stream in range(vcpu.streams):
            measured = stream >= first_measured
            self.counters.emitted += 1
            self.vnic.post(Packet(stream - first_measured if measured else -1, send_time, measured))


def run_naive(loaded, seed, duration=None, warmup=None):
    """One replication of ``loaded`` with the naive model; a summary like ``simulate``'s."""
    check_uncontended(loaded)
    length = RunPlan(duration=duration).resolve(loaded.scenario.run)
    duration = length.duration
    warmup = length.warmup if warmup is None else warmup
    m = {role: model.values for role, model in loaded.models.items()}
    vnic_model, nic = m["vnic"], m["nic"]
    env = simpy.Environment()
    counters = Counters()
    uplink = Uplink(env, counters, rate_bps=nic.rate_bps, queue_packets=nic.queue_packets,
                    latency=nic.latency, client_latency=m["client"].latency,
                    ip_bytes=ip_bytes_for_rtp(m["codec"].payload_bytes))
    for index in range(loaded.scenario.vm.instances):
        rng = random.Random(f"naive-{seed}-vm{index}")
        vnic = VnicTx(env, uplink, counters, tx_cost=vnic_model.tx_cost, rx_cost=vnic_model.rx_cost,
                      ring_size=vnic_model.tx_ring, wake_rate_hz=vnic_model.wake_rate_hz)
        env.process(MediaServerVm(env, loaded, index, rng, vnic, counters).run())
    env.run(until=warmup)
    emitted0, dropped0 = counters.snapshot()
    env.run(until=duration)
    emitted1, dropped1 = counters.snapshot()
    streams = np.asarray(counters.streams, dtype=np.int64)
    send = np.asarray(counters.send_times, dtype=float)
    recv = np.asarray(counters.recv_times, dtype=float)
    order = np.lexsort((send, streams))
    streams, send, recv = streams[order], send[order], recv[order]
    received = ~np.isnan(recv)
    samples = stream_jitter_samples(send[received], recv[received], streams[received], warmup)
    in_window = send >= warmup
    measured = int(np.count_nonzero(in_window))
    lost = int(np.count_nonzero(in_window & ~received))
    emitted, dropped = emitted1 - emitted0, dropped1 - dropped0
    return {
        "jitter": {
            "samples": int(samples.size),
            "mean_ms": float(samples.mean() * MS) if samples.size else None,
            "p99_ms": float(np.percentile(samples, 99) * MS) if samples.size else None,
        },
        "jitter_samples_s": samples,
        "measured_packets": measured,
        "measured_loss_fraction": lost / measured if measured else 0.0,
        "voice": {
            "packets_emitted": emitted,
            "packets_dropped": dropped,
            "loss_fraction": dropped / emitted if emitted else 0.0,
        },
    }


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("config", help="scenario TOML, e.g. configs/voip-vsphere5/fig3.toml")
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                        help="override a scenario key (repeatable), e.g. vm.instances=1")
    parser.add_argument("--duration", type=float, help="simulated seconds (default: the scenario's)")
    parser.add_argument("--warmup", type=float, help="seconds discarded before measuring")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    loaded = load_scenario(args.config, args.set)
    try:
        check_uncontended(loaded)
    except ValueError as exc:
        print(f"naive_packet_model: {exc}", file=sys.stderr)
        return 2
    start = time.perf_counter()
    summary = run_naive(loaded, args.seed, args.duration, args.warmup)
    wall = time.perf_counter() - start
    del summary["jitter_samples_s"]
    duration = loaded.scenario.run.duration if args.duration is None else args.duration
    summary.update(model="naive per-packet SimPy", seed=args.seed, duration_s=duration,
                   wall_s=wall, sim_per_wall=duration / wall)
    print(json.dumps(summary, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
