#!/usr/bin/env python3
"""The code bytes of a wasm file's functions, summed by name: each function counts
under the first pattern (a regular expression) its name matches. Needs the name
section (wasm-bindgen keeps it unless told to remove it). After inlining, a
function's code counts under the name of the function it was inlined into.
Usage: scripts/wasm-code-by-name.py FILE.wasm PATTERN..."""
import re
import sys


def leb(data, i):
    """An unsigned LEB128 at `i`: its value and the index after it."""
    value = shift = 0
    while True:
        byte = data[i]
        i += 1
        value |= (byte & 0x7F) << shift
        shift += 7
        if byte < 0x80:
            return value, i


def skip_name(data, i):
    length, i = leb(data, i)
    return i + length


def functions(data):
    """(name, code bytes) of each function defined in the module."""
    imported, bodies, names = 0, [], {}
    i = 8  # magic and version
    while i < len(data):
        section, i = data[i], i + 1
        size, i = leb(data, i)
        end = i + size
        if section == 2:  # imports: functions imported come first in the index space
            count, j = leb(data, i)
            for _ in range(count):
                j = skip_name(data, skip_name(data, j))
                kind, j = data[j], j + 1
                if kind == 0:
                    imported += 1
                    _, j = leb(data, j)
                elif kind == 1:  # table: element type, limits
                    flags, j = leb(data, j + 1)
                    _, j = leb(data, j)
                    if flags & 1:
                        _, j = leb(data, j)
                elif kind == 2:  # memory: limits
                    flags, j = leb(data, j)
                    _, j = leb(data, j)
                    if flags & 1:
                        _, j = leb(data, j)
                elif kind == 3:  # global: a one-byte value type, mutability
                    j += 2
                elif kind == 4:  # tag: attribute, type index
                    _, j = leb(data, j + 1)
                else:
                    sys.exit(f"unknown import kind {kind}")
        elif section == 10:  # code
            count, j = leb(data, i)
            for _ in range(count):
                length, start = leb(data, j)
                bodies.append(start - j + length)
                j = start + length
        elif section == 0:  # custom: the name section's function names
            length, j = leb(data, i)
            if data[j:j + length] == b"name":
                j += length
                while j < end:
                    sub, j = data[j], j + 1
                    sub_size, j = leb(data, j)
                    if sub == 1:
                        count, k = leb(data, j)
                        for _ in range(count):
                            index, k = leb(data, k)
                            length, k = leb(data, k)
                            names[index] = data[k:k + length].decode("utf-8", "replace")
                            k += length
                    j += sub_size
        i = end
    if not names:
        sys.exit("no function names: bind the wasm without --remove-name-section")
    return [(names.get(imported + n, "?"), size) for n, size in enumerate(bodies)]


def main():
    data = open(sys.argv[1], "rb").read()
    patterns = [(p, re.compile(p)) for p in sys.argv[2:]]
    sums = {p: 0 for p, _ in patterns}
    listed = functions(data)
    for name, size in listed:
        for pattern, regex in patterns:
            if regex.search(name):
                sums[pattern] += size
                break
    print(f"{len(listed)} functions, {sum(s for _, s in listed) / 1024:.1f} KB of code")
    for pattern, size in sums.items():
        print(f"{size / 1024:8.1f} KB  {pattern}")


main()
