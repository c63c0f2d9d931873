#!/usr/bin/env python3
"""Hostile-client checks against a running `fixgraph serve` (docs/reliability.md, Server).

    scripts/serve_faults.py PORT [slow|parallel|pipeline|all]

slow:     16 connections send one header line every 4 s; /healthz is probed every 5 s for 45 s.
parallel: 500 clients connect at once and each asks GET /healthz; counts the statuses.
pipeline: 50 GET /healthz sent in one write on one connection; counts the answers.
Standard library only; loopback only.
"""
import collections
import socket
import sys
import threading
import time


def connect(port, timeout=30):
    s = socket.create_connection(("127.0.0.1", port), timeout=timeout)
    return s


def status_of(data):
    parts = data.split(b" ", 2)
    return parts[1].decode() if len(parts) > 1 and data.startswith(b"HTTP/") else "none"


def probe(port, timeout=3):
    try:
        s = connect(port, timeout)
        s.sendall(b"GET /healthz HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n")
        data = b""
        while True:
            chunk = s.recv(65536)
            if not chunk:
                break
            data += chunk
        s.close()
        return status_of(data)
    except OSError as e:
        return type(e).__name__


def slow(port):
    conns = []
    for i in range(16):
        s = connect(port)
        s.sendall(b"GET /api/v1/stats HTTP/1.1\r\n")
        conns.append(s)
    answered, probes, closed = 0, 0, 0
    start = time.time()
    next_line = start
    while time.time() - start < 45:
        if time.time() >= next_line:
            for s in conns:
                try:
                    s.sendall(b"X-Slow: 1\r\n")
                except OSError:
                    pass
            next_line += 4
        st = probe(port)
        probes += 1
        answered += st == "200"
        time.sleep(5)
    for s in conns:
        s.setblocking(False)
        try:
            closed += s.recv(65536) is not None
        except BlockingIOError:
            pass
        except OSError:
            closed += 1
        s.close()
    print(f"slow: /healthz answered {answered} of {probes} probes in 45 s; "
          f"{closed} of 16 slow connections were closed by the server")


def parallel(port, n=500):
    results = collections.Counter()
    lock = threading.Lock()
    barrier = threading.Barrier(n)

    def one():
        barrier.wait()
        st = probe(port, timeout=60)
        with lock:
            results[st] += 1

    threads = [threading.Thread(target=one) for _ in range(n)]
    t0 = time.time()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    print(f"parallel: {n} clients: {dict(results)} in {time.time() - t0:.1f} s")


def pipeline(port, n=50):
    s = connect(port)
    s.sendall(b"GET /healthz HTTP/1.1\r\nHost: t\r\n\r\n" * n)
    s.settimeout(10)
    data = b""
    try:
        while data.count(b"HTTP/1.1 200") < n:
            chunk = s.recv(65536)
            if not chunk:
                break
            data += chunk
    except socket.timeout:
        pass
    s.close()
    print(f"pipeline: {data.count(b'HTTP/1.1 200')} of {n} pipelined requests answered")


def main():
    port = int(sys.argv[1])
    what = sys.argv[2] if len(sys.argv) > 2 else "all"
    for name, fn in (("pipeline", pipeline), ("parallel", parallel), ("slow", slow)):
        if what in (name, "all"):
            fn(port)


if __name__ == "__main__":
    main()
