#!/usr/bin/env python3
"""Measure SIP call processing on this machine: SIPp's UAS under a cgroup CPU limit, SIPp's UAC
offering calls at a range of rates over loopback.

Run as root from anywhere (Python 3 standard library and Debian's ``sip-tester`` only):

    python3 validation/sip_uas/measure.py --out validation/sip_uas/data

For each call rate it

1. creates a cgroup ``vsim_sip_uas`` with a CPU limit (cgroup v2 ``cpu.max`` where the v2
   hierarchy has the cpu controller, else the v1 files ``cpu.cfs_quota_us`` /
   ``cpu.cfs_period_us``, with ``cpuacct`` for the usage);
2. starts SIPp's built-in UAS (``sipp -sn uas``) in it, pinned to one CPU, the group's weight
   high (``cpu.weight`` 1000, v1 ``cpu.shares`` 10240) so that other work on that CPU delays it
   little: the quota, not the neighbours, limits it;
3. measures the UAS's CPU use while it waits for calls (``--idle`` s), then runs SIPp's
   built-in UAC (``sipp -sn uac -r RATE -m CALLS``), outside the cgroup, pinned to the other
   CPU at nice -10, until it has ended every call (or ``-timeout``);
4. stops the UAS (SIGTERM: SIPp writes its last statistics row) and keeps both sides'
   ``-trace_stat`` files (``uac_stat.csv``, ``uas_stat.csv``), ``-trace_rtt`` files
   (``uac_rtt.csv``, ``uas_rtt.csv``), the UAC's ``-trace_screen`` log (``uac_screen.log``),
   and ``run.json`` with the exact commands, the cgroup files, the UAS's CPU use (cgroup usage and throttling), the
   UAC's own CPU, the machine's busy, iowait and steal time and /proc/loadavg before and after.
   SIPp writes its files in a directory in /dev/shm (memory) while it runs, so that no write
   to disk stalls it.

Before each attempt it waits (up to ``--quiet-wait`` s) until the machine's busy time, sampled
over 2 s, is at most ``--max-others`` CPUs. A rate whose run shared the machine with more than
``--max-others`` CPUs of other work on average (busy time of the whole machine minus the two
SIPp processes), or that started with a 1-minute load average above ``--max-load``, is run
again (up to ``--attempts`` times; every attempt's record is kept in run.json, the files are
the last attempt's). At the end ``summary.csv`` gives one row per rate. The cgroup and every
process started are removed on any exit, Ctrl-C and SIGTERM included.
"""

import argparse
import json
import os
import platform
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

GROUP = "vsim_sip_uas"
UAS_PORT, UAC_PORT = 5070, 5071
HOST = "127.0.0.1"
SUMMARY_COLUMNS = (
    "rate_cps", "duration_s", "calls_created", "successful", "failed", "failed_max_udp_retrans",
    "current_at_end", "uac_retransmissions", "uas_retransmissions", "uas_successful", "uas_failed",
    "uas_dead_call_msgs", "uas_out_of_call_msgs", "rtt_count", "rtt_mean_ms", "rtt_p50_ms",
    "rtt_p95_ms", "rtt_p99_ms", "rtt_max_ms", "uas_rtt_count", "uas_rtt_p50_ms", "uas_rtt_p95_ms",
    "uas_cpu_s", "uas_cpu_fraction", "uas_cpu_ms_per_call", "uas_idle_cpu_fraction", "quota_fraction",
    "nr_periods",
    "nr_throttled", "throttled_s", "uac_cpu_s", "others_cpu", "steal_s", "uas_stat_max_gap_s",
    "loadavg1_before", "loadavg1_after", "attempts")


# ------------------------------------------------------------------ cgroups
class Cgroups:
    """The UAS's cgroup(s): one v2 group, or v1 groups in the cpu and cpuacct hierarchies."""

    def __init__(self, period_us, quota_us, weight):
        self.period_us, self.quota_us, self.weight = period_us, quota_us, weight
        self.version, self.cpu_root, self.acct_root = _find_hierarchies()
        self.groups = []

    def create(self):
        cpu = self.cpu_root / GROUP
        self._mkdir(cpu)
        if self.version == 2:
            (cpu / "cpu.max").write_text(f"{self.quota_us} {self.period_us}")
            (cpu / "cpu.weight").write_text(str(self.weight))
        else:
            (cpu / "cpu.shares").write_text(str(round(self.weight * 1024 / 100)))
            (cpu / "cpu.cfs_period_us").write_text(str(self.period_us))
            (cpu / "cpu.cfs_quota_us").write_text(str(self.quota_us))
            if self.acct_root != self.cpu_root:
                self._mkdir(self.acct_root / GROUP)

    def _mkdir(self, path):
        if path.exists():  # left by a run killed with SIGKILL
            _remove_group(path)
        path.mkdir()
        self.groups.append(path)

    def join(self, pid):
        for group in self.groups:
            (group / "cgroup.procs").write_text(str(pid))

    def files(self):
        """The settings as the kernel reads them back."""
        cpu = self.cpu_root / GROUP
        names = (("cpu.max", "cpu.weight") if self.version == 2
                 else ("cpu.cfs_period_us", "cpu.cfs_quota_us", "cpu.shares"))
        return {str(cpu / name): (cpu / name).read_text().strip() for name in names}

    def stat(self):
        """{usage_s, nr_periods, nr_throttled, throttled_s} now."""
        cpu = self.cpu_root / GROUP
        fields = dict(line.split() for line in (cpu / "cpu.stat").read_text().splitlines() if line)
        if self.version == 2:
            return {"usage_s": int(fields["usage_usec"]) / 1e6, "nr_periods": int(fields["nr_periods"]),
                    "nr_throttled": int(fields["nr_throttled"]),
                    "throttled_s": int(fields["throttled_usec"]) / 1e6}
        usage = int((self.acct_root / GROUP / "cpuacct.usage").read_text())
        return {"usage_s": usage / 1e9, "nr_periods": int(fields["nr_periods"]),
                "nr_throttled": int(fields["nr_throttled"]),
                "throttled_s": int(fields["throttled_time"]) / 1e9}

    def remove(self):
        for group in reversed(self.groups):
            _remove_group(group)
        self.groups = []


def _find_hierarchies():
    """(version, root holding cpu, root holding cpu usage): v2 if its root has the cpu controller."""
    cpu_v1 = acct_v1 = None
    for line in Path("/proc/mounts").read_text().splitlines():
        fields = line.split()
        root, fstype, options = Path(fields[1]), fields[2], fields[3].split(",")
        if fstype == "cgroup2":
            try:
                controllers = (root / "cgroup.controllers").read_text().split()
            except OSError:
                controllers = []
            if "cpu" in controllers:
                subtree = root / "cgroup.subtree_control"
                if "cpu" not in subtree.read_text().split():
                    subtree.write_text("+cpu")
                return 2, root, root
        if fstype == "cgroup":
            cpu_v1 = cpu_v1 or (root if "cpu" in options else None)
            acct_v1 = acct_v1 or (root if "cpuacct" in options else None)
    if cpu_v1 is None or acct_v1 is None:
        sys.exit("measure.py: no cgroup hierarchy with the cpu (and cpuacct) controller is mounted")
    return 1, cpu_v1, acct_v1


def _remove_group(path, timeout_s=5.0):
    deadline = time.monotonic() + timeout_s
    while path.exists():
        for pid in (path / "cgroup.procs").read_text().split():
            try:
                os.kill(int(pid), signal.SIGKILL)
            except ProcessLookupError:
                pass
        try:
            path.rmdir()
        except FileNotFoundError:
            return
        except OSError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.05)


# ------------------------------------------------------------------ processes
STARTED = []  # Popen objects still to stop on exit


def _start(command, cwd, cpu, cgroups=None, nice=0):
    def child():
        if cgroups is not None:
            cgroups.join(os.getpid())
        os.sched_setaffinity(0, {cpu})
        if nice:
            os.nice(nice)
    process = subprocess.Popen(command, cwd=cwd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                               stderr=open(Path(cwd) / f"{command[2]}.stderr", "w"), preexec_fn=child)
    STARTED.append(process)
    return process


def _stop(process, sig=signal.SIGTERM, timeout_s=10.0):
    if process.poll() is None:
        process.send_signal(sig)
        try:
            process.wait(timeout_s)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
    if process in STARTED:
        STARTED.remove(process)


def _cpu_of(pid):
    """utime + stime of a process (and its waited-for children), s."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return sum(int(x) for x in fields[11:15]) / os.sysconf("SC_CLK_TCK")


def _cpu_line():
    return [int(x) / os.sysconf("SC_CLK_TCK") for x in Path("/proc/stat").read_text().splitlines()[0].split()[1:]]


def _machine_busy():
    """Busy CPU time of the whole machine so far, s (all of /proc/stat's cpu line but idle, iowait
    and steal)."""
    values = _cpu_line()
    return sum(values[:7]) - values[3] - values[4]


def _iowait_steal():
    """(iowait, steal) time of the whole machine so far, s."""
    values = _cpu_line()
    return values[4], values[7]


def _loadavg():
    return Path("/proc/loadavg").read_text().strip()


def _wait_for_sockets_free(timeout_s=10.0):
    """Wait until nothing listens on the SIPp ports (a previous UAS gone)."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        text = Path("/proc/net/udp").read_text()
        ports = {f":{port:04X}" for port in (UAS_PORT, UAC_PORT)}
        if not any(line.split()[1][-5:] in ports for line in text.splitlines()[1:]):
            return
        time.sleep(0.1)


# ------------------------------------------------------------------ one rate
def run_rate(rate, args, cgroups, folder):
    """One attempt at one rate; SIPp writes its files in a directory in memory (a process blocked on
    a disk write would stall), moved to ``folder`` at the end."""
    if folder.exists():
        shutil.rmtree(folder)
    folder.mkdir(parents=True)
    scratch = Path(tempfile.mkdtemp(prefix="vsim_sip_uas_", dir="/dev/shm" if Path("/dev/shm").is_dir() else None))
    try:
        return _run_rate(rate, args, cgroups, folder, scratch)
    finally:
        for path in scratch.iterdir():
            shutil.move(str(path), folder / path.name)
        scratch.rmdir()


def _run_rate(rate, args, cgroups, folder, work):
    calls = int(round(rate * args.duration))
    uas = ["sipp", "-sn", "uas", "-i", HOST, "-p", str(UAS_PORT), "-nostdin", "-trace_stat",
           "-stf", "uas_stat.csv", "-fd", "1", "-trace_rtt", "-rtt_freq", "1", "-trace_screen"]
    uac = ["sipp", "-sn", "uac", f"{HOST}:{UAS_PORT}", "-i", HOST, "-p", str(UAC_PORT),
           "-r", f"{rate:g}", "-rp", "1000", "-m", str(calls), "-l", str(args.open_calls),
           "-nostdin", "-trace_stat", "-stf", "uac_stat.csv", "-fd", "1", "-trace_rtt", "-rtt_freq", "1",
           "-trace_screen", "-timeout", f"{int(args.duration + args.drain)}s"]
    record = {"rate_cps": rate, "calls": calls, "loadavg_before": _loadavg()}
    _wait_for_sockets_free()
    cgroups.create()
    record["cgroup_version"] = cgroups.version
    record["cgroup_files"] = cgroups.files()
    uas_process = _start(uas, work, args.uas_cpu, cgroups)
    time.sleep(1.0)  # the UAS binds its socket
    if uas_process.poll() is not None:
        raise RuntimeError(f"the UAS exited at once (see {folder}/uas.stderr)")
    idle_start, idle_wall = cgroups.stat(), time.monotonic()
    time.sleep(args.idle)  # the UAS waiting for calls: what its loop takes with nothing to do
    idle_end, idle_wall = cgroups.stat(), time.monotonic() - idle_wall
    stat_start, busy_start, wall_start = cgroups.stat(), _machine_busy(), time.monotonic()
    iowait_start, steal_start = _iowait_steal()
    uac_process = _start(uac, work, args.uac_cpu, nice=args.uac_nice)
    uac_cpu = 0.0
    while uac_process.poll() is None:
        try:
            uac_cpu = _cpu_of(uac_process.pid)
        except (FileNotFoundError, ProcessLookupError):
            pass
        time.sleep(0.2)
    STARTED.remove(uac_process)
    time.sleep(0.5)  # the UAS answers what is still on its way
    stat_end, busy_end, wall_end = cgroups.stat(), _machine_busy(), time.monotonic()
    iowait_end, steal_end = _iowait_steal()
    time.sleep(4.5)  # the UAS ends its calls after their 4 s timewait, then counts them
    uas_cpu_total = _cpu_of(uas_process.pid)
    _stop(uas_process)
    cgroups.remove()
    wall = wall_end - wall_start
    uas_cpu = stat_end["usage_s"] - stat_start["usage_s"]
    record.update({
        "uas_command": " ".join(uas), "uac_command": " ".join(uac), "uac_exit_code": uac_process.returncode,
        "uas_cpu_pinned": args.uas_cpu, "uac_cpu_pinned": args.uac_cpu, "uac_nice": args.uac_nice,
        "wall_s": round(wall, 3), "cgroup_stat_start": stat_start, "cgroup_stat_end": stat_end,
        "idle_s": round(idle_wall, 3), "idle_cgroup_stat_start": idle_start, "idle_cgroup_stat_end": idle_end,
        "uas_idle_cpu_fraction": round((idle_end["usage_s"] - idle_start["usage_s"]) / idle_wall, 5),
        "uas_cpu_s": round(uas_cpu, 6), "uas_process_cpu_s_whole_life": uas_cpu_total,
        "uac_cpu_s": uac_cpu, "machine_busy_s": round(busy_end - busy_start, 3),
        "others_cpu": round(max(0.0, (busy_end - busy_start - uas_cpu - uac_cpu) / wall), 3),
        "iowait_s": round(iowait_end - iowait_start, 3), "steal_s": round(steal_end - steal_start, 3),
        "loadavg_after": _loadavg()})
    for side in ("uac", "uas"):  # SIPp names these after the scenario and its pid
        for pattern, name in (("_*_rtt.csv", "rtt.csv"), ("_*_screen.log", "screen.log")):
            for found in work.glob(side + pattern):
                if found.stat().st_size:
                    found.rename(work / f"{side}_{name}")
                else:  # the UAS, stopped by a signal, writes no screen
                    found.unlink()
    return record


def wait_for_quiet(args):
    """Wait (up to ``--quiet-wait`` s) until the machine's other work takes at most ``--max-others``
    CPUs over 2 s; the samples taken, as (CPUs busy, 1-minute load)."""
    samples, deadline = [], time.monotonic() + args.quiet_wait
    while True:
        before = _machine_busy()
        time.sleep(2.0)
        samples.append((round((_machine_busy() - before) / 2.0, 3), float(_loadavg().split()[0])))
        if samples[-1][0] <= args.max_others or time.monotonic() > deadline:
            return samples


def busy(record, args):
    """Why this run shared the machine too much (None: it did not)."""
    load = float(record["loadavg_before"].split()[0])
    if load > args.max_load:
        return f"1-minute load {load} > {args.max_load} before the run"
    if record["others_cpu"] > args.max_others:
        return f"other work took {record['others_cpu']} CPUs > {args.max_others} during the run"
    return None


# ------------------------------------------------------------------ summary
def _stat_rows(path):
    lines = [line for line in Path(path).read_text().splitlines() if line.strip()]
    names = lines[0].split(";")
    return [dict(zip(names, line.split(";"))) for line in lines[1:]]


def _stat_last_row(path):
    return _stat_rows(path)[-1]


def _max_gap(path):
    """The longest time between two rows of a -trace_stat file written every second, s: a stalled
    SIPp writes none."""
    times = [float(row["CurrentTime"].split("\t")[-1]) for row in _stat_rows(path)]
    return round(max((b - a for a, b in zip(times, times[1:])), default=0.0), 3)


def _rtt(path):
    values = []
    try:
        lines = Path(path).read_text().splitlines()[1:]
    except FileNotFoundError:
        return values
    for line in lines:
        if line.strip():
            values.append(float(line.split(";")[1]))
    return values


def _quantile(values, q):
    """Linear interpolation between order statistics (numpy's default, R's type 7)."""
    ordered = sorted(values)
    at = q * (len(ordered) - 1)
    low = int(at)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (at - low)


def summarize(folder, rate, record, args):
    uac, uas = _stat_last_row(folder / "uac_stat.csv"), _stat_last_row(folder / "uas_stat.csv")
    rtt, uas_rtt = _rtt(folder / "uac_rtt.csv"), _rtt(folder / "uas_rtt.csv")
    created = int(uac["TotalCallCreated"])
    start, end = record["cgroup_stat_start"], record["cgroup_stat_end"]

    def stats(values, prefix, full):
        out = {f"{prefix}_count": len(values)}
        if full:
            out[f"{prefix}_mean_ms"] = round(statistics.fmean(values), 3) if values else ""
        for q in ((0.5, 0.95, 0.99) if full else (0.5, 0.95)):
            out[f"{prefix}_p{round(q * 100)}_ms"] = round(_quantile(values, q), 3) if values else ""
        if full:
            out[f"{prefix}_max_ms"] = max(values) if values else ""
        return out

    row = {"rate_cps": rate, "duration_s": args.duration, "calls_created": created,
           "successful": int(uac["SuccessfulCall(C)"]), "failed": int(uac["FailedCall(C)"]),
           "failed_max_udp_retrans": int(uac["FailedMaxUDPRetrans(C)"]),
           "current_at_end": int(uac["CurrentCall"]),
           "uac_retransmissions": int(uac["Retransmissions(C)"]),
           "uas_retransmissions": int(uas["Retransmissions(C)"]),
           "uas_successful": int(uas["SuccessfulCall(C)"]), "uas_failed": int(uas["FailedCall(C)"]),
           "uas_dead_call_msgs": int(uas["DeadCallMsgs(C)"]),
           "uas_out_of_call_msgs": int(uas["OutOfCallMsgs(C)"]),
           **stats(rtt, "rtt", True), **stats(uas_rtt, "uas_rtt", False),
           "uas_cpu_s": record["uas_cpu_s"], "uas_cpu_fraction": round(record["uas_cpu_s"] / record["wall_s"], 4),
           "uas_cpu_ms_per_call": round(1000 * record["uas_cpu_s"] / created, 4) if created else "",
           "uas_idle_cpu_fraction": record["uas_idle_cpu_fraction"],
           "quota_fraction": round(args.quota_us / args.period_us, 6),
           "nr_periods": end["nr_periods"] - start["nr_periods"],
           "nr_throttled": end["nr_throttled"] - start["nr_throttled"],
           "throttled_s": round(end["throttled_s"] - start["throttled_s"], 6),
           "uac_cpu_s": record["uac_cpu_s"], "others_cpu": record["others_cpu"], "steal_s": record["steal_s"],
           "uas_stat_max_gap_s": _max_gap(folder / "uas_stat.csv"),
           "loadavg1_before": float(record["loadavg_before"].split()[0]),
           "loadavg1_after": float(record["loadavg_after"].split()[0]),
           "attempts": record["attempt"]}
    return row


def write_summary(rows, path):
    with open(path, "w") as out:
        out.write(",".join(SUMMARY_COLUMNS) + "\n")
        for row in rows:
            out.write(",".join(str(row[name]) for name in SUMMARY_COLUMNS) + "\n")


TABLE = (("rate_cps", "calls/s"), ("calls_created", "calls"), ("successful", "successful"),
         ("failed", "failed"), ("current_at_end", "unfinished"), ("uac_retransmissions", "UAC retrans."),
         ("uas_retransmissions", "UAS retrans."), ("rtt_mean_ms", "mean ms"), ("rtt_p50_ms", "p50 ms"),
         ("rtt_p95_ms", "p95 ms"), ("uas_rtt_p95_ms", "UAS p95 ms"), ("uas_cpu_fraction", "UAS CPU"),
         ("nr_throttled", "throttled periods"), ("others_cpu", "others' CPUs"))


def markdown_table(path):
    """summary.csv as the README's table."""
    lines = Path(path).read_text().splitlines()
    names = lines[0].split(",")
    rows = [dict(zip(names, line.split(","))) for line in lines[1:] if line]
    out = ["| " + " | ".join(title for _, title in TABLE) + " |", "|" + "---|" * len(TABLE)]
    for row in rows:
        cells = []
        for name, _ in TABLE:
            value = row[name]
            if name == "uas_cpu_fraction":
                value = f"{100 * float(value):.2f} %"
            elif name == "nr_throttled":
                value = f"{value} of {row['nr_periods']}"
            elif name == "rate_cps":
                value = f"{float(value):g}"
            cells.append(value)
        out.append("| " + " | ".join(cells) + " |")
    return "\n".join(out)


# ------------------------------------------------------------------ main
def machine_facts(args, cgroups):
    sipp_version = subprocess.run(["sipp", "-v"], capture_output=True, text=True).stdout
    package = subprocess.run(["dpkg-query", "-W", "sip-tester"], capture_output=True, text=True).stdout
    return {"date_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            "kernel": platform.release(), "kernel_version": platform.version(), "machine": platform.machine(),
            "cpus": os.cpu_count(),
            "cpu_model": next((line.split(":", 1)[1].strip() for line in Path("/proc/cpuinfo").read_text()
                               .splitlines() if line.startswith("model name")), ""),
            "sipp_version": next((line.strip() for line in sipp_version.splitlines() if "SIPp" in line), ""),
            "sip_tester_package": package.strip(), "python": platform.python_version(),
            "cgroup_version": cgroups.version, "cpu_hierarchy": str(cgroups.cpu_root),
            "usage_hierarchy": str(cgroups.acct_root), "period_us": args.period_us, "quota_us": args.quota_us,
            "weight": args.weight, "uac_nice": args.uac_nice,
            "arguments": vars(args), "command": " ".join([sys.executable] + sys.argv)}


def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=Path(__file__).resolve().parent / "data")
    parser.add_argument("--rates", default="25,100,250,400,550,600,650,700,750,900",
                        help="call rates, calls/s, comma-separated")
    parser.add_argument("--duration", type=float, default=10.0, help="seconds of calls at each rate")
    parser.add_argument("--idle", type=float, default=3.0,
                        help="seconds the UAS runs with no calls before each rate, to measure its idle CPU")
    parser.add_argument("--drain", type=float, default=45.0,
                        help="seconds after the last call the UAC waits for calls to end (-timeout)")
    parser.add_argument("--period-us", type=int, default=30000)
    parser.add_argument("--quota-us", type=int, default=1000)
    parser.add_argument("--weight", type=int, default=1000,
                        help="the UAS group's cgroup v2 cpu.weight (v1: cpu.shares = weight * 1024 / 100), "
                             "high so that other work on its CPU delays it little")
    parser.add_argument("--uac-nice", type=int, default=-10, help="the UAC's nice value, for the same reason")
    parser.add_argument("--uas-cpu", type=int, default=1)
    parser.add_argument("--uac-cpu", type=int, default=0)
    parser.add_argument("--open-calls", type=int, default=30000, help="the UAC's -l")
    parser.add_argument("--max-load", type=float, default=2.5)
    parser.add_argument("--max-others", type=float, default=0.5)
    parser.add_argument("--attempts", type=int, default=2)
    parser.add_argument("--table", action="store_true",
                        help="print OUT/summary.csv as a Markdown table and stop (measures nothing)")
    parser.add_argument("--quiet-wait", type=float, default=20.0,
                        help="seconds to wait, before each attempt, for other work to fall to --max-others")
    args = parser.parse_args(argv)
    args.rate_list = [float(x) for x in args.rates.split(",")]
    if any(rate <= 0 for rate in args.rate_list):
        parser.error("--rates: every call rate must be > 0")
    if not 1000 <= args.period_us <= 1_000_000 or args.quota_us < 1000:
        parser.error("--period-us must be 1000..1000000 and --quota-us at least 1000 (the kernel's bounds)")
    return args


def main(argv=None):
    args = parse_args(argv)
    if args.table:
        print(markdown_table(args.out / "summary.csv"))
        return
    if shutil.which("sipp") is None:
        sys.exit("measure.py: sipp not found (apt-get install -y sip-tester)")
    cgroups = Cgroups(args.period_us, args.quota_us, args.weight)

    def interrupted(signum, _frame):
        raise KeyboardInterrupt(signal.Signals(signum).name)
    for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):  # SIGINT too when started in the background
        signal.signal(signum, interrupted)
    args.out.mkdir(parents=True, exist_ok=True)
    facts = machine_facts(args, cgroups)
    rows, runs = [], []
    try:
        for rate in args.rate_list:
            folder = args.out / f"rate_{rate:g}"
            attempts = []
            for attempt in range(1, args.attempts + 1):
                quiet = wait_for_quiet(args)
                record = run_rate(rate, args, cgroups, folder)
                record["busy_cpus_before"] = quiet
                record["attempt"] = attempt
                record["busy"] = busy(record, args)
                attempts.append(record)
                print(f"rate {rate:g}/s attempt {attempt}: wall {record['wall_s']} s, UAS CPU "
                      f"{record['uas_cpu_s']:.2f} s, others {record['others_cpu']} CPUs, load "
                      f"{record['loadavg_before'].split()[0]} -> {record['loadavg_after'].split()[0]}"
                      f"{', repeated: ' + record['busy'] if record['busy'] and attempt < args.attempts else ''}",
                      flush=True)
                if record["busy"] is None:
                    break
            record["earlier_attempts"] = attempts[:-1]
            (folder / "run.json").write_text(json.dumps(record, indent=1, sort_keys=True, default=str) + "\n")
            rows.append(summarize(folder, rate, record, args))
            runs.append(record)
    finally:
        for process in list(STARTED):
            _stop(process)
        cgroups.remove()
    facts["finished_utc"] = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    (args.out / "machine.json").write_text(json.dumps(facts, indent=1, sort_keys=True, default=str) + "\n")
    write_summary(rows, args.out / "summary.csv")
    print(f"wrote {args.out / 'summary.csv'}")


if __name__ == "__main__":
    try:
        main()
    except KeyboardInterrupt:
        sys.exit("measure.py: interrupted; the cgroup and the SIPp processes are removed")
