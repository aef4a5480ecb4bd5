#!/usr/bin/env python3
"""Times every page of one analyze_complexity (or analyze_code_churn) listing within ONE
stdio session of the release binary, so the analysis cache is what is measured:
`minimcp call` runs one session per process and would start cold each time.

    benches/analysis_pages.py [--bin target/release/minimcp] [--tool analyze_complexity]
        [--args '{"toolchain":"python"}'] [--max-pages N] ROOT

Prints the first page's time, the median and maximum of the later pages, the page count
the whole listing's time and the server's peak RSS (Linux). Nothing is asserted; the numbers are printed.
"""
import argparse
import json
import statistics
import subprocess
import time


def main():
    p = argparse.ArgumentParser()
    p.add_argument("root")
    p.add_argument("--bin", default="target/release/minimcp")
    p.add_argument("--tool", default="analyze_complexity")
    p.add_argument("--args", default="{}")
    p.add_argument("--max-pages", type=int, default=10_000)
    o = p.parse_args()
    proc = subprocess.Popen([o.bin, "serve", "--root", o.root], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)

    def request(ident, method, params):
        proc.stdin.write(json.dumps({"jsonrpc": "2.0", "id": ident, "method": method,
                                     "params": params}) + "\n")
        proc.stdin.flush()
        while True:
            message = json.loads(proc.stdout.readline())
            if message.get("id") == ident:
                return message

    request(0, "initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                              "clientInfo": {"name": "bench", "version": "0"}})
    proc.stdin.write(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}) + "\n")
    args = json.loads(o.args)
    times, offset, page = [], 0, 0
    while page < o.max_pages:
        args["offset"] = offset
        t0 = time.perf_counter()
        answer = request(page + 1, "tools/call", {"name": o.tool, "arguments": args})
        times.append(time.perf_counter() - t0)
        result = answer["result"]
        if result.get("isError"):
            raise SystemExit(f"error: {result['content'][0]['text']}")
        s = result["structuredContent"]
        page += 1
        if "next_offset" not in s:
            break
        offset = s["next_offset"]
    try:  # Linux: the server's peak resident size, the cache included.
        with open(f"/proc/{proc.pid}/status") as status:
            peak = next(l.split()[1] for l in status if l.startswith("VmHWM:"))
    except (OSError, StopIteration):
        peak = None
    proc.stdin.close()
    proc.wait()
    later = times[1:]
    total = s.get("total_functions", s.get("total_files"))
    print(f"{o.tool} {o.args} on {o.root}: {total} items, {len(times)} pages")
    print(f"  first page {times[0] * 1000:.1f} ms")
    if later:
        print(f"  later pages: median {statistics.median(later) * 1000:.2f} ms, "
              f"max {max(later) * 1000:.2f} ms")
    print(f"  whole listing {sum(times):.2f} s")
    if peak:
        print(f"  server peak RSS {int(peak) / 1024:.1f} MiB")


if __name__ == "__main__":
    main()
