"""Measure IOzone's automatic mode in 1 GiB of memory: its CPU time against its disk traffic.

    python3 validation/iozone_page_cache/measure.py [--dir DIR] [--memory-mib 1024]

The xen-appliances study runs IOzone in a Debian VM of 1 GB (seed 003, Section 5.2) and
gives only its run time (378.85 s native, 385.35 s in the VM). What it costs the VM's vCPU
depends on how much of its work the guest's page cache serves: its automatic mode's files
(64 KiB to 512 MiB) fit in 1 GB. This runs Debian's ``iozone -a`` in a memory cgroup
(v1 ``memory.limit_in_bytes``, the VM's memory) and a cpuacct cgroup, samples every 0.5 s
the cgroup's CPU time and the file system's disk's sectors and requests
(``/proc/diskstats``), and writes ``samples.csv``, ``iozone.txt`` (IOzone's own table) and
``summary.txt`` (totals, the kernel's writeback settings, the machine) beside this file.
"""

import argparse
import csv
import os
import platform
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
CGROUP_ROOT = Path("/sys/fs/cgroup")


def disk_of(path: Path) -> str:
    """The block device (a whole disk's name in /proc/diskstats) holding ``path``."""
    device = os.stat(path).st_dev
    major, minor = os.major(device), os.minor(device)
    for line in Path("/proc/diskstats").read_text().splitlines():
        fields = line.split()
        if int(fields[0]) == major and int(fields[1]) == minor:
            return fields[2]
    raise SystemExit(f"{path}: no /proc/diskstats line for device {major}:{minor}")


def disk_counters(name: str) -> tuple[int, int, int, int]:
    """Reads completed, sectors read, writes completed, sectors written of disk ``name``."""
    for line in Path("/proc/diskstats").read_text().splitlines():
        fields = line.split()
        if fields[2] == name:
            return int(fields[3]), int(fields[5]), int(fields[7]), int(fields[9])
    raise SystemExit(f"/proc/diskstats: no disk {name}")


def make_group(controller: str, name: str) -> Path:
    group = CGROUP_ROOT / controller / name
    group.mkdir(exist_ok=True)
    return group


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dir", type=Path, default=Path("/var/tmp"), help="where IOzone's file goes")
    parser.add_argument("--memory-mib", type=int, default=1024)
    args = parser.parse_args()
    name = f"vsim-iozone-{os.getpid()}"
    memory = make_group("memory", name)
    cpu = make_group("cpuacct", name)
    (memory / "memory.limit_in_bytes").write_text(str(args.memory_mib << 20))
    disk = disk_of(args.dir)
    target = args.dir / f"iozone-{os.getpid()}.tmp"
    subprocess.run(["sync"], check=True)
    Path("/proc/sys/vm/drop_caches").write_text("3\n")
    before = disk_counters(disk)
    start = time.monotonic()

    def enter_groups() -> None:
        for group in (memory, cpu):
            (group / "cgroup.procs").write_text(str(os.getpid()))

    with open(HERE / "iozone.txt", "w") as table:
        iozone = subprocess.Popen(["iozone", "-a", "-f", str(target)], stdout=table,
                                  stderr=subprocess.STDOUT, preexec_fn=enter_groups)
        rows = []
        while iozone.poll() is None:
            time.sleep(0.5)
            reads, read_sectors, writes, written_sectors = disk_counters(disk)
            rows.append((round(time.monotonic() - start, 3),
                         int((cpu / "cpuacct.usage").read_text()),
                         reads - before[0], (read_sectors - before[1]) * 512,
                         writes - before[2], (written_sectors - before[3]) * 512))
    wall = time.monotonic() - start
    subprocess.run(["sync"], check=True)
    synced = disk_counters(disk)
    user_ticks, system_ticks = (int(line.split()[1]) for line in
                                (cpu / "cpuacct.stat").read_text().splitlines())
    cpu_ns = int((cpu / "cpuacct.usage").read_text())
    peak = int((memory / "memory.max_usage_in_bytes").read_text())
    target.unlink(missing_ok=True)
    for group in (memory, cpu):
        group.rmdir()
    with open(HERE / "samples.csv", "w", newline="") as out:
        writer = csv.writer(out)
        writer.writerow(["t_s", "cpu_ns", "disk_reads", "disk_read_bytes", "disk_writes",
                         "disk_written_bytes"])
        writer.writerows(rows)
    hz = os.sysconf("SC_CLK_TCK")
    facts = {
        "command": "iozone -a -f " + str(target),
        "exit": iozone.returncode,
        "wall_s": round(wall, 3),
        "cpu_s": round(cpu_ns / 1e9, 3),
        "user_s": round(user_ticks / hz, 2),
        "system_s": round(system_ticks / hz, 2),
        "disk": disk,
        "disk_reads": synced[0] - before[0],
        "disk_read_bytes": (synced[1] - before[1]) * 512,
        "disk_writes": synced[2] - before[2],
        "disk_written_bytes": (synced[3] - before[3]) * 512,
        "memory_limit_mib": args.memory_mib,
        "memory_peak_bytes": peak,
        "vm.dirty_ratio": Path("/proc/sys/vm/dirty_ratio").read_text().strip(),
        "vm.dirty_background_ratio": Path("/proc/sys/vm/dirty_background_ratio").read_text().strip(),
        "kernel": platform.release(),
        "cpu_model": next(line.split(":", 1)[1].strip() for line in
                          Path("/proc/cpuinfo").read_text().splitlines() if line.startswith("model name")),
        "cpus": os.cpu_count(),
        "loadavg": Path("/proc/loadavg").read_text().strip(),
        "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    }
    (HERE / "summary.txt").write_text("".join(f"{key}: {value}\n" for key, value in facts.items()))
    sys.stdout.write((HERE / "summary.txt").read_text())


if __name__ == "__main__":
    main()
