#!/usr/bin/env python3
"""SIPp's own retransmission schedule: one call of SIPp's built-in UAC against a server that never
answers the INVITE, and one against a server that answers the INVITE with a 200 but never the BYE.

    python3 validation/sip_uas/timers.py --out validation/sip_uas/timers

Each server logs every request it receives as ``seconds since the first<space>method`` to
``invite_unanswered.log`` and ``bye_unanswered.log``; the UACs' ``-trace_stat`` files are kept beside
them (``invite_unanswered_stat.csv``, ``bye_unanswered_stat.csv``). It takes about 35 s (SIPp gives
up 31.5 s after the first request); everything it starts is stopped on exit.
"""

import argparse
import socket
import subprocess
import threading
import time
from pathlib import Path

HOST = "127.0.0.1"
CASES = (("invite_unanswered", 5090, 5091), ("bye_unanswered", 5092, 5093))


def serve(sock, answer_invite, lines, stop):
    """Log each request; answer an INVITE with a 200 when ``answer_invite``; answer nothing else."""
    first = None
    sock.settimeout(0.2)
    while not stop.is_set():
        try:
            data, peer = sock.recvfrom(65535)
        except socket.timeout:
            continue
        now = time.monotonic()
        first = first if first is not None else now
        text = data.decode(errors="replace")
        method = text.split(" ", 1)[0]
        lines.append(f"{now - first:.3f} {method}")
        if answer_invite and method == "INVITE":
            headers = {}
            for line in text.split("\r\n")[1:]:
                if ":" in line:
                    name, value = line.split(":", 1)
                    headers.setdefault(name.strip().lower(), value.strip())
            reply = (f"SIP/2.0 200 OK\r\nVia: {headers['via']}\r\nFrom: {headers['from']}\r\n"
                     f"To: {headers['to']};tag=t1\r\nCall-ID: {headers['call-id']}\r\nCSeq: {headers['cseq']}\r\n"
                     f"Contact: <sip:{HOST}:{sock.getsockname()[1]}>\r\nContent-Length: 0\r\n\r\n")
            sock.sendto(reply.encode(), peer)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=Path(__file__).resolve().parent / "timers")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    stop, threads, processes, logs = threading.Event(), [], [], {}
    try:
        for name, server_port, client_port in CASES:
            sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
            sock.bind((HOST, server_port))
            logs[name] = []
            thread = threading.Thread(target=serve, args=(sock, name == "bye_unanswered", logs[name], stop))
            thread.start()
            threads.append(thread)
            command = ["sipp", "-sn", "uac", f"{HOST}:{server_port}", "-i", HOST, "-p", str(client_port),
                       "-m", "1", "-nostdin", "-trace_stat", "-stf", f"{name}_stat.csv", "-fd", "1",
                       "-timeout", "60s"]
            processes.append(subprocess.Popen(command, cwd=args.out, stdin=subprocess.DEVNULL,
                                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
            logs[name + "_command"] = " ".join(command)
        for process in processes:
            process.wait(90)
        time.sleep(1.0)
    finally:
        for process in processes:
            if process.poll() is None:
                process.kill()
                process.wait()
        stop.set()
        for thread in threads:
            thread.join()
    for name, _, _ in CASES:
        (args.out / f"{name}.log").write_text(f"# {logs[name + '_command']}\n" + "\n".join(logs[name]) + "\n")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
