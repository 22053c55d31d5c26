#!/usr/bin/env python3
"""Hostile clients of a tally agent's socket, for hostile_clients.test.sh.

  hostile_clients.py SOCKET csrs N
      defines N conditional requests on one connection, reading the answers
      as they come; prints how many were defined and the seconds taken
  hostile_clients.py SOCKET trickle K BYTES WIDTH CHUNK
      K clients each send BYTES bytes of blank lines WIDTH bytes long (lines
      the agent ignores), CHUNK bytes per send, then one bad request whose
      answer shows that everything before it was read; prints how many
      clients were answered and the seconds taken
  hostile_clients.py SOCKET hog K LINES
      K clients each send LINES bad request lines (each answered with an
      error line) and read nothing for 3 s; then they read: prints how many
      found their connection ended by the agent
"""
import socket
import sys
import threading
import time

path, mode = sys.argv[1], sys.argv[2]


def connect():
    s = socket.socket(socket.AF_UNIX)
    s.connect(path)
    return s


def csrs(n):
    s = connect()
    start = time.monotonic()
    defined = 0

    def reader():
        nonlocal defined
        buf = b""
        while defined < n:
            data = s.recv(1 << 16)
            if not data:
                break
            buf += data
            lines = buf.split(b"\n")
            buf = lines.pop()
            defined += sum(1 for l in lines if b'"done":true' in l and b'"errors":[]' in l)

    t = threading.Thread(target=reader)
    t.start()
    for i in range(0, n, 512):
        s.sendall(b"timer(1h): app_get_list()\n" * min(512, n - i))
    t.join()
    print("%d %.2f" % (defined, time.monotonic() - start))


def trickle(k, size, width, chunk):
    data = (b" " * (width - 1) + b"\n") * (size // width) + b"bad(\n"
    answered = []

    def client():
        s = connect()
        for i in range(0, len(data), chunk):
            s.sendall(data[i:i + chunk])
        s.settimeout(60)
        answered.append(b'"done":true' in s.recv(4096))
        s.close()

    start = time.monotonic()
    ts = [threading.Thread(target=client) for _ in range(k)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    print("%d %.2f" % (sum(answered), time.monotonic() - start))


def hog(k, lines):
    socks = [connect() for _ in range(k)]
    payload = b"bad(\n" * lines
    for s in socks:
        s.setblocking(False)
        sent, deadline = 0, time.monotonic() + 20
        while sent < len(payload) and time.monotonic() < deadline:
            try:
                sent += s.send(payload[sent:sent + 65536])
            except BlockingIOError:
                time.sleep(0.01)
            except OSError:
                break
    time.sleep(3)
    ended = 0
    for s in socks:
        s.setblocking(True)
        s.settimeout(5)
        try:
            while s.recv(1 << 20):
                pass
            ended += 1
        except socket.timeout:
            pass
        except OSError:
            ended += 1
    print(ended)


if mode == "csrs":
    csrs(int(sys.argv[3]))
elif mode == "trickle":
    trickle(*(int(a) for a in sys.argv[3:7]))
elif mode == "hog":
    hog(int(sys.argv[3]), int(sys.argv[4]))
