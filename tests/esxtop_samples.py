"""A small hand-made esxtop -b capture, in esxtop's layout, for the reader's and validate's tests."""

HOST = r"\\esx01.lab"
COUNTERS = [
    r"Memory\Memory Overcommit (1 Minute Avg)",
    r"Physical Cpu Load\Cpu Load (1 Minute Avg)",
    r"Physical Cpu(0)\% Processor Time", r"Physical Cpu(0)\% Util Time", r"Physical Cpu(0)\% Core Util Time",
    r"Physical Cpu(1)\% Processor Time", r"Physical Cpu(1)\% Util Time", r"Physical Cpu(1)\% Core Util Time",
    r"Physical Cpu(_Total)\% Processor Time", r"Physical Cpu(_Total)\% Util Time",
    r"Physical Cpu(_Total)\% Core Util Time",
    r"Group Cpu(1:system)\Members", r"Group Cpu(1:system)\% Used", r"Group Cpu(1:system)\% Ready",
    r"Group Cpu(1:system)\% CoStop",
    r"Group Cpu(106234:vm01)\Members", r"Group Cpu(106234:vm01)\% Used", r"Group Cpu(106234:vm01)\% Run",
    r"Group Cpu(106234:vm01)\% Ready", r"Group Cpu(106234:vm01)\% CoStop",
    r"Group Cpu(106301:media vm 2)\% Used", r"Group Cpu(106301:media vm 2)\% Ready",
    r"Group Cpu(106301:media vm 2)\% CoStop",
    r"Network Port(vSwitch0:33554433:vmnic0)\MBits Transmitted/s",
]
ROWS = [
    ("11/24/2026 00:30:05", [0, 0.4, 40.1, 45.2, 60.3, 38.0, 41.0, 60.3, 39.05, 43.1, 60.3,
                             120, 1.5, 0.2, 0, 12, 150.5, 155.0, 3.25, 0.75, 80.0, 1.0, 0.0, 12.5]),
    ("11/24/2026 00:30:10", [0, 0.4, 42.0, 47.0, 61.0, 40.0, 43.0, 61.0, 41.0, 45.0, 61.0,
                             120, 1.6, 0.1, 0, 12, 160.0, 165.0, 4.5, 1.25, 82.0, "", 0.0, 12.0]),
    ("11/24/2026 00:30:15", [0, 0.4, 41.0, 46.0, 60.0, 39.0, 42.0, 60.0, 40.0, 44.0, 60.0,
                             120, 1.4, 0.3, 0, 12, 155.0, 160.0, 3.75, 1.0, 81.0, 2.0, 0.0, 12.2]),
]


def esxtop_text(counters=COUNTERS, rows=ROWS, first='(PDH-CSV 4.0) (UTC)(0)'):
    """esxtop -b output: every cell quoted, CRLF line ends, as esxtop writes it."""
    header = [first] + [f"{HOST}\\{counter}" for counter in counters]
    lines = [",".join(f'"{cell}"' for cell in header)]
    lines += [",".join(f'"{cell}"' for cell in [when] + values) for when, values in rows]
    return "\r\n".join(lines) + "\r\n"
