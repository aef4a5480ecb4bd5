#!/usr/bin/env python3
"""Check the relative links of the project's Markdown documents.

Every relative link in README.md, SECURITY.md, CHANGELOG.md, benches/README.md, conformance/*.md, docs/*.md,
tests/README.md and each crate's READMEs (crates/*/README.md, crates/minimcp/src/README.md) must name an existing file, and every `#anchor`
a heading of its target (GitHub's anchor rules: lowercase, punctuation dropped, spaces to
hyphens, -1, -2 … for repeats). Links inside code spans and fenced blocks are not links.
External links (with a scheme) are left alone. Exit status 1 lists every broken link.
"""
import glob
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DOCS = ["README.md", "SECURITY.md", "CHANGELOG.md", "benches/README.md", "crates/minimcp/src/README.md",
        "tests/README.md"] + sorted(
    os.path.relpath(p, ROOT) for p in glob.glob(os.path.join(ROOT, "crates", "*", "README.md"))) + sorted(
    os.path.relpath(p, ROOT) for p in glob.glob(os.path.join(ROOT, "conformance", "*.md"))) + sorted(
    os.path.relpath(p, ROOT) for p in glob.glob(os.path.join(ROOT, "docs", "*.md")))

LINK = re.compile(r"(?<!\!)\[(?:[^\[\]]|\[[^\]]*\])*\]\(([^()\s]+)(?:\s+\"[^\"]*\")?\)")
HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")


def prose_lines(text, blank_code=True):
    """The lines outside fenced code blocks, with inline code spans blanked unless told not to."""
    fence = None
    for number, line in enumerate(text.split("\n"), 1):
        stripped = line.lstrip()
        marker = re.match(r"(`{3,}|~{3,})", stripped)
        if marker:
            if fence is None:
                fence = marker.group(1)[0] * len(marker.group(1))
            elif stripped.startswith(fence):
                fence = None
            continue
        if fence is None and not blank_code:
            yield number, line
        elif fence is None:
            yield number, re.sub(r"(`+)(.+?)\1", lambda m: " " * len(m.group(0)), line)


def slug(heading):
    text = re.sub(r"<[^>]+>", "", heading)
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)  # a link's text only
    text = text.replace("`", "").replace("*", "").lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(path, cache={}):
    if path not in cache:
        seen, result = {}, set()
        with open(path, encoding="utf-8") as f:
            for _, line in prose_lines(f.read(), blank_code=False):
                m = HEADING.match(line)
                if not m:
                    continue
                base = slug(m.group(2))
                n = seen.get(base, 0)
                seen[base] = n + 1
                result.add(base if n == 0 else f"{base}-{n}")
        cache[path] = result
    return cache[path]


def main():
    broken, checked = [], 0
    for doc in DOCS:
        path = os.path.join(ROOT, doc)
        if not os.path.exists(path):
            broken.append(f"{doc}: the document itself is missing")
            continue
        with open(path, encoding="utf-8") as f:
            text = f.read()
        for number, line in prose_lines(text):
            for target in LINK.findall(line):
                if re.match(r"^[a-zA-Z][a-zA-Z0-9+.-]*:", target):
                    continue  # https:, mailto: …
                checked += 1
                file_part, _, anchor = target.partition("#")
                dest = os.path.normpath(os.path.join(os.path.dirname(path), file_part)) if file_part else path
                where = f"{doc}:{number}: ({target})"
                if os.path.relpath(dest, ROOT).split(os.sep)[0] == "..":
                    broken.append(f"{where} points outside the repository")
                    continue
                if not os.path.exists(dest):
                    broken.append(f"{where} names a file that does not exist")
                    continue
                if anchor:
                    if not dest.endswith(".md"):
                        broken.append(f"{where} has an anchor into a file that is not Markdown")
                    elif anchor not in anchors(dest):
                        broken.append(f"{where} names no heading of {os.path.relpath(dest, ROOT)}")
    for line in broken:
        print(line, file=sys.stderr)
    if broken:
        print(f"{len(broken)} broken link(s) of {checked}", file=sys.stderr)
        return 1
    print(f"ok: {checked} relative links in {len(DOCS)} documents resolve")
    return 0


if __name__ == "__main__":
    sys.exit(main())
