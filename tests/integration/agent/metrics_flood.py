# Scrapes and floods of tally agent --metrics (metrics_flood.test.sh).
#   scrape PORT N DELAY: N scrapes at once (released together), each waiting
#     DELAY s between its connection and its request (a scraper on a busy
#     host); prints how many got a whole 200 answer.
#   flood PORT SECONDS: 4 threads open connections as fast as they can and
#     leave them silent (the 250 newest of each kept open) for SECONDS;
#     prints how many they opened.
import socket, sys, threading, time

def scrape(port, n, delay):
    ok = []
    barrier = threading.Barrier(n)
    def one():
        barrier.wait()
        try:
            s = socket.create_connection(("127.0.0.1", port), timeout=10)
            time.sleep(delay)
            s.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n")
            data = b""
            while True:
                d = s.recv(65536)
                if not d:
                    break
                data += d
            ok.append(data.startswith(b"HTTP/1.1 200") and b"tally_" in data)
        except OSError:
            ok.append(False)
    threads = [threading.Thread(target=one) for _ in range(n)]
    for t in threads: t.start()
    for t in threads: t.join()
    print(sum(ok))

def flood(port, seconds):
    opened = [0] * 4
    end = time.monotonic() + seconds
    def one(i):
        kept = []
        while time.monotonic() < end:
            try:
                kept.append(socket.create_connection(("127.0.0.1", port), timeout=1))
                opened[i] += 1
            except OSError:
                pass
            if len(kept) > 250:
                kept.pop(0).close()
        for s in kept: s.close()
    threads = [threading.Thread(target=one, args=(i,)) for i in range(4)]
    for t in threads: t.start()
    for t in threads: t.join()
    print(sum(opened))

if sys.argv[1] == "scrape":
    scrape(int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4]))
else:
    flood(int(sys.argv[2]), float(sys.argv[3]))
