#!/usr/bin/env python3
"""Hostile clients of a tally agent's socket, for hostile_clients.test.sh.

  hostile_clients.py SOCKET csrs K N
      defines N conditional requests on each of K connections (kept open),
      reading the answers as they come; then one more on the first
      connection and one on a new connection; prints how many were defined,
      the seconds taken, and the two refusals' messages (or "accepted")
  hostile_clients.py SOCKET delete N
      defines N conditional requests on one connection, then deletes them
      one request each (csr_delete), oldest first; prints how many were
      deleted and the seconds the deletions took
  hostile_clients.py SOCKET flood K SECONDS
      K clients each send request lines as fast as the agent takes them for
      SECONDS, reading the answers; prints how many answers they read
  hostile_clients.py SOCKET ping
      one request on a new connection; prints the seconds until its answer
  hostile_clients.py SOCKET trickle K BYTES WIDTH CHUNK
      K clients each send BYTES bytes of blank lines WIDTH bytes long (lines
      the agent ignores), CHUNK bytes per send, then one bad request whose
      answer shows that everything before it was read; prints how many
      clients were answered and the seconds taken
  hostile_clients.py SOCKET hog K LINES
      K clients each send LINES bad request lines (each answered with an
      error line) and read nothing for 6 s (time for a loaded agent to take
      every line: a client that reads before it is dropped is served); then
      they read: prints how many found their connection ended by the agent
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


def pipelined(s, lines, n, ok):
    """Sends n lines (lines(i, count) gives count of them from the i-th),
    reading the answers as they come; returns how many of the n "done"
    lines satisfied ok, and the seconds taken."""
    start = time.monotonic()
    answered = good = 0
    buf = b""

    def reader():
        nonlocal answered, good, buf
        while answered < n:
            data = s.recv(1 << 16)
            if not data:
                break
            buf += data
            got = buf.split(b"\n")
            buf = got.pop()
            done = [l for l in got if b'"done":true' in l]
            answered += len(done)
            good += sum(1 for l in done if ok(l))

    t = threading.Thread(target=reader)
    t.start()
    for i in range(0, n, 512):
        s.sendall(lines(i, min(512, n - i)))
    t.join()
    return good, time.monotonic() - start


def define(s, n):
    return pipelined(s, lambda i, k: b"timer(1h): app_get_list()\n" * k, n,
                     lambda l: b'"errors":[]' in l)


def one_more(s):
    s.sendall(b"timer(1h): app_get_list()\n")
    buf = b""
    while b"\n" not in buf:
        buf += s.recv(1 << 16)
    line = buf.split(b"\n")[0]
    if b'"errors":[]' in line:
        return "accepted"
    return line.split(b'"message":"')[1].split(b'"')[0].decode()


def csrs(k, n):
    socks = [connect() for _ in range(k)]
    start = time.monotonic()
    defined = sum(define(s, n)[0] for s in socks)
    secs = time.monotonic() - start
    print("%d %.2f" % (defined, secs))
    print(one_more(socks[0]))
    print(one_more(connect()))


def flood(k, seconds):
    answered = []
    end = time.monotonic() + seconds

    def client():
        s = connect()
        got = 0

        def reader():
            nonlocal got
            while True:
                data = s.recv(1 << 20)
                if not data:
                    break
                got += data.count(b"\n")

        t = threading.Thread(target=reader)
        t.start()
        chunk = b"bad(\n" * 20000
        try:
            while time.monotonic() < end:
                s.sendall(chunk)
        except OSError:
            pass
        s.shutdown(socket.SHUT_WR)
        t.join()
        answered.append(got)

    ts = [threading.Thread(target=client) for _ in range(k)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    print(sum(answered))


def ping():
    s = connect()
    start = time.monotonic()
    s.sendall(b":app_get_list()\n")
    buf = b""
    while b'"done":true' not in buf:
        data = s.recv(1 << 16)
        if not data:
            break
        buf += data
    print("%.3f" % (time.monotonic() - start))


def delete(n):
    s = connect()
    numbers = []

    def defined(line):
        if b'"errors":[]' not in line:
            return False
        numbers.append(int(line.split(b'"request":"csr_')[1].split(b'"')[0]))
        return True

    pipelined(s, lambda i, k: b"timer(1h): app_get_list()\n" * k, n, defined)
    deleted, secs = pipelined(
        s, lambda i, k: b"".join(b":csr_delete(csr_%d)\n" % c for c in numbers[i:i + k]),
        len(numbers), lambda l: b'"errors":[]' in l)
    print("%d %.2f" % (deleted, secs))


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
    time.sleep(6)
    ended = 0
    for s in socks:
        s.setblocking(True)
        s.settimeout(15)  # a slow agent under load: the drop may come late
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
    csrs(int(sys.argv[3]), int(sys.argv[4]))
elif mode == "flood":
    flood(int(sys.argv[3]), float(sys.argv[4]))
elif mode == "ping":
    ping()
elif mode == "delete":
    delete(int(sys.argv[3]))
elif mode == "trickle":
    trickle(*(int(a) for a in sys.argv[3:7]))
elif mode == "hog":
    hog(int(sys.argv[3]), int(sys.argv[4]))
