"""One-byte TCP request/response between two network namespaces (netperf TCP_RR's pattern).

usage: python3 rr.py server ADDR PORT | client ADDR PORT TRANSACTIONS
The client prints transactions/s and the mean round trip in microseconds as JSON.
"""
import json
import socket
import sys
import time


def server(addr, port):
    with socket.create_server((addr, port)) as listener:
        conn, _ = listener.accept()
        conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        while (data := conn.recv(1)):
            conn.sendall(data)


def client(addr, port, count):
    sock = socket.create_connection((addr, port))
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    for _ in range(1000):  # warm-up
        sock.sendall(b"x"); sock.recv(1)
    start = time.perf_counter()
    for _ in range(count):
        sock.sendall(b"x"); sock.recv(1)
    elapsed = time.perf_counter() - start
    sock.close()
    print(json.dumps({"transactions": count, "seconds": elapsed, "tps": count / elapsed,
                      "rtt_us": elapsed / count * 1e6}))


if __name__ == "__main__":
    if sys.argv[1] == "server":
        server(sys.argv[2], int(sys.argv[3]))
    else:
        client(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]))
