"""``vsim probe net``: voice streams and a UDP flood through a tc bottleneck between two namespaces.

The sender's namespace holds the voice sender and the flood sender; its
veth end carries the bottleneck (``qdisc``). The receiver's namespace holds
a sink that binds the target ports and tcpdump, capturing on its veth end
with nanosecond timestamps. Afterwards the senders' logs and the capture
become a ``packets`` trace, the pcap is kept, and a per-stream and per-class
summary (loss, one-way delay, RFC 3550 jitter) is printed and written
beside the trace. The flood's achieved rate is measured from its log, and a
voice sender that fell behind (``send``) is reported with the packets it sent.

Arguments the probe cannot carry out as given are refused before anything
is set up: an option of the htb classes with another qdisc, a byte limit
smaller than the largest frame sent, a burst the kernel's token bucket
cannot hold, a period longer than the run, a flood of no datagram, or more
packets than ``MAX_PACKETS``.
"""

import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from vsim.outputs.atomic import atomic_path, write_text
from vsim.core.errors import InputError
from vsim.probe import cleanup, machine, netns, rtp
from vsim.probe.clock import NS, now_ns
from vsim.probe.guard import Guard, stop
from vsim.probe.netstats import arrivals, packet_columns, summarize
from vsim.probe.pcap import read_udp_frames
from vsim.probe.names import tmp_prefix
from vsim.probe.qdisc import BYTE_LIMITS, MAX_BUCKET_S, Bottleneck, max_burst_bytes, tc_commands
from vsim.probe.send import voice_offsets_ns
from vsim.probe.stats import summary_us
from vsim.probe.run_length import check_period
from vsim.traces.vsim_trace import write_trace

VOICE_PORT_BASE = 40000
FLOOD_PORT = 50000
START_DELAY_S = 1.0  # senders start together this long after they are launched
MAX_DRAIN_S = 3.0  # after the senders stop, wait up to this long for the bottleneck's queue to empty
MARGIN_S = 30.0  # hard deadline: the duration plus this
SNAPLEN = 80  # bytes kept per frame: a whole voice frame (74 B), a flood datagram's header and more
DEFAULT_LIMITS = {"pfifo": 100, "htb": 100, "htb_shared": 100, "bfifo": 64000, "tbf": 64000}
CLASS_OPTIONS = ("voice_rate", "voice_ceil", "flood_rate", "flood_ceil")  # htb's classes; no other shape has any
MAX_PACKETS = 2_000_000  # the trace's rows: matching them with the capture takes about 1 GB and 10 s a million


def _option(name):
    """The command-line spelling of the argument ``name``."""
    return "--" + name.replace("_", "-")


def _check_class_options(args):
    """``InputError`` for an option of htb's classes given with a qdisc that has none (it would do nothing)."""
    for name in CLASS_OPTIONS:
        if args.qdisc != "htb" and getattr(args, name) is not None:
            raise InputError("vsim probe net", _option(name),
                             f"expected only with --qdisc htb, the one qdisc with classes that use it "
                             f"(--qdisc {args.qdisc} has none)")


def _check_burst(bottleneck):
    """``InputError`` for a burst larger than the kernel's token bucket holds at the slowest bucket's rate
    (tc would wrap it around to some other size)."""
    slowest = min(bottleneck.bucket_rates_bps())
    most = max_burst_bytes(slowest)
    if bottleneck.burst_bytes > most:
        raise InputError("vsim probe net", "--burst",
                         f"expected at most {most} bytes at {slowest:g} bit/s (the kernel's token bucket holds "
                         f"{MAX_BUCKET_S:.1f} s of sending), got {bottleneck.burst_bytes}")


def bottleneck_of(args):
    """The ``Bottleneck`` the arguments describe; ``InputError`` for htb options without htb, inconsistent
    htb rates or a burst the kernel cannot hold."""
    limit = args.limit if args.limit is not None else DEFAULT_LIMITS[args.qdisc]
    voice_rate = args.voice_rate if args.voice_rate is not None else args.rate / 2
    flood_rate = args.flood_rate if args.flood_rate is not None else args.rate / 2
    voice_ceil = args.voice_ceil if args.voice_ceil is not None else args.rate
    flood_ceil = args.flood_ceil if args.flood_ceil is not None else args.rate
    _check_class_options(args)
    if args.qdisc == "htb":
        for name, rate, ceil in (("voice", voice_rate, voice_ceil), ("flood", flood_rate, flood_ceil)):
            if rate > args.rate:
                raise InputError("vsim probe net", f"--{name}-rate",
                                 f"expected a rate <= the bottleneck --rate {args.rate:g}, got {rate:g}")
            if ceil < rate:
                raise InputError("vsim probe net", f"--{name}-ceil",
                                 f"expected a ceil >= the {name} rate {rate:g}, got {ceil:g}")
            if ceil > args.rate:
                raise InputError("vsim probe net", f"--{name}-ceil",
                                 f"expected a ceil <= the bottleneck --rate {args.rate:g}, got {ceil:g}")
    bottleneck = Bottleneck(args.qdisc, args.rate, limit, args.burst, FLOOD_PORT, voice_rate, voice_ceil,
                            flood_rate, flood_ceil)
    _check_burst(bottleneck)
    return bottleneck


def pcap_path(args):
    """Where the capture goes: ``--pcap``, else the trace's path with the suffix .pcap."""
    return Path(args.pcap) if args.pcap else Path(args.out).with_suffix(".pcap")


def command_line(args):
    """The full command that reproduces this run, every option spelt out."""
    b = bottleneck_of(args)
    line = f"vsim probe net --qdisc {b.shape} --rate {b.rate_bps:g} --limit {b.limit} --burst {b.burst_bytes}"
    if b.shape == "htb":
        line += (f" --voice-rate {b.voice_rate_bps:g} --voice-ceil {b.voice_ceil_bps:g}"
                 f" --flood-rate {b.flood_rate_bps:g} --flood-ceil {b.flood_ceil_bps:g}")
    return line + (f" --streams {args.streams} --period {args.period:g} --pattern {args.pattern}"
                   f" --flood-fraction {args.flood_fraction:g} --flood-size {args.flood_size}"
                   + (f" --flood-wakeup {args.flood_wakeup:g}" if args.flood_wakeup else "")
                   + f" --duration {args.duration:g} --out {args.out} --pcap {pcap_path(args)}")


def _python_module(module, *options):
    return [sys.executable, "-m", module, *[str(option) for option in options]]


def _await_listening(capture, deadline):
    """Wait until tcpdump says it is listening (its first stderr line); what it said."""
    while time.monotonic() < deadline:
        line = capture.stderr.readline()
        if "listening on" in line:
            return line.strip()
        if not line and capture.poll() is not None:
            raise RuntimeError(f"tcpdump exited with code {capture.returncode} before capturing")
    raise RuntimeError("tcpdump did not start listening")


def _await_capture_quiet(path, quiet_s=0.3, limit_s=5.0):
    """Wait until the capture file has stopped growing for ``quiet_s`` (tcpdump has written what the
    kernel handed it; stopping it earlier would lose the packets still in its buffer), at most ``limit_s``."""
    deadline = time.monotonic() + limit_s
    size, since = -1, time.monotonic()
    while time.monotonic() < deadline:
        now_size = path.stat().st_size if path.exists() else 0
        if now_size != size:
            size, since = now_size, time.monotonic()
        elif time.monotonic() - since >= quiet_s:
            return
        time.sleep(0.05)


def _captured_counts(text):
    counts = dict((key, int(value)) for value, key in
                  re.findall(r"(\d+) packets? (captured|received by filter|dropped by kernel)", text))
    return ", ".join(f"{value} {key}" for key, value in counts.items()) or "unknown"


def root_qdisc_drops(stats_text):
    """Packets the root qdisc dropped, from ``tc -s qdisc show`` (its first 'dropped N')."""
    match = re.search(r"dropped (\d+)", stats_text)
    return int(match.group(1)) if match else 0


def _flood_rate(log, frame_bytes, time_zero_ns, gap_s):
    """The flood's achieved rate from its log: (datagrams/s, bit/s on the wire) from time zero to the
    last send plus one gap (the time its datagrams were due over)."""
    if len(log) == 0:
        return 0.0, 0.0
    pps = len(log) / ((log[-1, 3] - time_zero_ns) / NS + gap_s)
    return pps, pps * frame_bytes * 8


def voice_send_lateness_s(log, time_zero_ns, period_s, pattern, streams):
    """How late the voice sender sent each packet after its schedule (s), from the voice log."""
    period_ns = int(round(period_s * NS))
    offsets = np.asarray(voice_offsets_ns(streams, period_ns, pattern), dtype=np.int64)
    due = time_zero_ns + log[:, 1] * period_ns + offsets[log[:, 0]]
    return (log[:, 3] - due) / NS


@dataclass(frozen=True)
class Plan:
    """What the network probe sends: the bottleneck, the frames' sizes, the flood's rate and the ports."""

    bottleneck: Bottleneck
    voice_bytes: int
    flood_bytes: int
    flood_pps: float
    voice_ports: range


def voice_packets(args):
    """How many voice packets the streams are to send: one each per period that fits in the run."""
    return args.streams * int(args.duration / args.period)


def voice_shortfall(sent, planned):
    """The report's words for a voice sender that fell behind and left packets out ('' when it sent all)."""
    return "" if sent == planned else f"; the voice sender fell behind and sent {sent} of the {planned} planned"


def _check_limit(args, plan):
    """``InputError`` for a byte limit below the largest frame sent (that frame would always be dropped)."""
    largest, what = plan.voice_bytes, "a voice packet"
    if plan.flood_pps > 0 and plan.flood_bytes > largest:
        largest, what = plan.flood_bytes, "a flood datagram"
    if args.qdisc in BYTE_LIMITS and plan.bottleneck.limit < largest:
        raise InputError("vsim probe net", "--limit",
                         f"expected at least {largest} bytes for {args.qdisc} (the largest frame the probe "
                         f"sends, {what}), got {plan.bottleneck.limit}")


def _check_packets(args, plan):
    """``InputError`` for a period longer than the run, a flood of no datagram, or more than ``MAX_PACKETS``."""
    check_period("vsim probe net", args.period, args.duration, "every stream sends")
    flood = int(plan.flood_pps * args.duration)
    if plan.flood_pps > 0 and flood == 0:
        raise InputError("vsim probe net", "--flood-fraction",
                         f"expected 0 or a flood of at least one datagram in --duration, got "
                         f"{plan.flood_pps:.3g} datagrams/s for {args.duration:g} s")
    voice = voice_packets(args)
    if voice + flood > MAX_PACKETS:
        raise InputError("vsim probe net", "--duration",
                         f"expected a run of at most {MAX_PACKETS} packets (the trace's rows), got {voice} voice "
                         f"+ {flood} flood = {voice + flood}: shorten it, or send fewer streams or less flood")


def plan_of(args):
    """The ``Plan`` for the command's arguments; ``InputError`` for arguments the probe cannot carry out."""
    flood_bytes = rtp.flood_frame_bytes(args.flood_size)
    plan = Plan(bottleneck_of(args), rtp.voice_frame_bytes(), flood_bytes,
                args.flood_fraction * args.rate / (8 * flood_bytes),
                range(VOICE_PORT_BASE, VOICE_PORT_BASE + args.streams))
    _check_limit(args, plan)
    _check_packets(args, plan)
    return plan


def _plan_meta(args, plan):
    return {"bottleneck": plan.bottleneck.describe(), "streams": args.streams, "period_s": f"{args.period:g}",
            "pattern": args.pattern, "clock_rate_hz": rtp.CLOCK_HZ, "voice_frame_bytes": plan.voice_bytes,
            "voice_offered_bps": f"{args.streams * plan.voice_bytes * 8 / args.period:.0f}",
            "flood_frame_bytes": plan.flood_bytes, "flood_target_pps": f"{plan.flood_pps:.1f}",
            "flood_target_bps": f"{plan.flood_pps * plan.flood_bytes * 8:.0f}",
            "flood_sender": ("python socket.send in a loop paced by absolute deadlines" if not args.flood_wakeup
                             else f"python socket.send of every datagram due, on wake-ups every "
                                  f"{args.flood_wakeup:g} s (absolute deadlines)"),
            "voice_ports": f"udp {plan.voice_ports.start}-{plan.voice_ports.stop - 1}",
            "flood_port": FLOOD_PORT}


def _drain_s(args, plan):
    """How long the bottleneck's full queue takes to empty (capped), plus a margin."""
    queue_bytes = plan.bottleneck.limit * (plan.flood_bytes if args.qdisc not in BYTE_LIMITS else 1)
    return min(MAX_DRAIN_S, queue_bytes * 8 / args.rate) + 0.2


def _send_and_capture(guard, args, plan, tcpdump, tmp, meta):
    """Set up namespaces, bottleneck, sink and capture; send; return (sender logs, time zero in ns).

    The capture is left in ``tmp / capture.pcap``; the setup and the
    bottleneck's statistics go into ``meta``.
    """
    pair = netns.create(guard, os.getpid())
    commands = tc_commands(pair.sender_if, plan.bottleneck)
    for command in commands:
        netns.run(command, pair.sender_ns)
    meta["tc"] = " ; ".join(" ".join(command) for command in commands)
    meta["netns"] = (f"{pair.sender_ns} ({pair.sender_if} {netns.SENDER_IP}) -> "
                     f"{pair.receiver_ns} ({pair.receiver_if} {netns.RECEIVER_IP})")
    capture_file = tmp / "capture.pcap"
    guard.start(netns.in_netns(pair.receiver_ns, _python_module(
        "vsim.probe.sink", "--ports", ",".join(map(str, [*plan.voice_ports, FLOOD_PORT])),
        "--duration", args.duration + MARGIN_S)), stdout=subprocess.DEVNULL)
    capture_argv = [tcpdump, "-i", pair.receiver_if, "-w", str(capture_file), "-s", str(SNAPLEN),
                    "--time-stamp-precision=nano", "--immediate-mode", "-U", "-n", "-Z", "root", "udp"]
    capture = guard.start(netns.in_netns(pair.receiver_ns, capture_argv), stderr=subprocess.PIPE, text=True)
    meta["capture"] = " ".join(capture_argv)
    _await_listening(capture, time.monotonic() + 10)
    start_ns = now_ns() + int(START_DELAY_S * NS)
    time_zero_ns = time.clock_gettime_ns(time.CLOCK_REALTIME) + (start_ns - now_ns())
    meta["time_zero_realtime_ns"] = time_zero_ns
    common = ("--destination", netns.RECEIVER_IP, "--start-ns", start_ns, "--duration", args.duration)
    voice_log, flood_log = tmp / "voice.npy", tmp / "flood.npy"
    senders = [guard.start(netns.in_netns(pair.sender_ns, _python_module(
        "vsim.probe.send", "voice", "--port", VOICE_PORT_BASE, "--streams", args.streams, "--period",
        args.period, "--pattern", args.pattern, "--log", voice_log, *common)))]
    if plan.flood_pps > 0:
        senders.append(guard.start(netns.in_netns(pair.sender_ns, _python_module(
            "vsim.probe.send", "flood", "--port", FLOOD_PORT, "--size", args.flood_size, "--rate-pps",
            plan.flood_pps, "--wakeup", args.flood_wakeup, "--log", flood_log, *common))))
    for sender in senders:
        if sender.wait() != 0:
            raise RuntimeError(f"a sender failed with exit code {sender.returncode}")
    time.sleep(_drain_s(args, plan))
    stats = netns.run(["tc", "-s", "qdisc", "show", "dev", pair.sender_if], pair.sender_ns)
    meta["tc_stats_after"] = " | ".join(line.strip() for line in stats.splitlines() if line.strip())
    meta["qdisc_dropped"] = root_qdisc_drops(stats)
    _await_capture_quiet(capture_file)
    stop(capture, grace_s=5.0)
    meta["capture_counts"] = _captured_counts(capture.stderr.read())
    logs = [np.load(voice_log)] + ([np.load(flood_log)] if plan.flood_pps > 0 else [])
    return logs, time_zero_ns


def _write_outputs(args, plan, meta, logs, capture_file, time_zero_ns):
    """Match logs and capture, summarize, write pcap, trace and summary; the report's text."""
    meta["voice_send_lateness"] = summary_us(voice_send_lateness_s(logs[0], time_zero_ns, args.period,
                                                                   args.pattern, args.streams))
    meta["voice_packets_sent"] = f"{len(logs[0])} of {voice_packets(args)} planned"
    flood = ""
    if plan.flood_pps > 0:
        achieved_pps, achieved_bps = _flood_rate(logs[1], plan.flood_bytes, time_zero_ns, 1 / plan.flood_pps)
        meta["flood_achieved_pps"] = f"{achieved_pps:.1f}"
        meta["flood_achieved_bps"] = f"{achieved_bps:.0f}"
        flood = f"; flood achieved {meta['flood_achieved_bps']} bit/s of {meta['flood_target_bps']} targeted"
    seen = arrivals(read_udp_frames(capture_file), plan.voice_ports, FLOOD_PORT)
    columns = packet_columns(np.concatenate(logs), seen, time_zero_ns, plan.voice_bytes, plan.flood_bytes)
    summaries = summarize(columns)
    for summary in summaries:
        if summary.stream.startswith("["):
            meta[f"summary_{summary.klass}"] = " ".join(summary.line().split())
    pcap = pcap_path(args)
    meta["pcap"] = str(pcap)
    with atomic_path(pcap) as tmp_pcap:
        shutil.copyfile(capture_file, tmp_pcap)
    write_trace(args.out, "packets", columns, meta)
    table = "\n".join(summary.line() for summary in summaries)
    write_text(Path(args.out).with_suffix(".summary.txt"), table + "\n")
    shortfall = voice_shortfall(len(logs[0]), voice_packets(args))
    return f"{table}\nnet ({plan.bottleneck.describe()}){flood}{shortfall}; wrote {args.out}, {pcap}"


def run(args, note):
    """Build the namespaces and bottleneck, send and capture, write the pcap, trace and summary."""
    plan = plan_of(args)
    machine.require_root("net")
    tcpdump = machine.require_tools("net", "ip", "tc", "tcpdump", hint="apt-get install iproute2 tcpdump")[2]
    cleanup.remove_dead("net", note)
    meta = machine.facts_before(command_line(args))
    meta.update(_plan_meta(args, plan))
    note(f"vsim: probe net: {args.streams} voice streams and a {meta['flood_target_bps']} bit/s flood "
         f"through {plan.bottleneck.describe()} for {args.duration:g} s")
    began = time.monotonic()
    with tempfile.TemporaryDirectory(prefix=tmp_prefix(os.getpid(), "net")) as tmp:
        with Guard(args.duration + MARGIN_S) as guard:
            logs, time_zero_ns = _send_and_capture(guard, args, plan, tcpdump, Path(tmp), meta)
        meta.update(machine.facts_after(meta, time.monotonic() - began))
        return _write_outputs(args, plan, meta, logs, Path(tmp) / "capture.pcap", time_zero_ns)
