"""HdrHistogram's V2 histogram encoding read independently of microbench, for the Python-driven
tests: a log row's base64 field taken apart with Python's own base64, struct and zlib."""
import base64
import struct
import zlib


def decode_row_histogram(text):
    """A row's base64 histogram (compressed V2) -> (header, counts): header is (cookie, payload
    length, normalizing offset, significant figures, lowest, highest, ratio) of the inflated
    encoding; counts maps each bucket index that holds values to its count."""
    raw = base64.b64decode(text)
    cookie, length = struct.unpack(">II", raw[:8])
    if cookie != 0x1C849314:
        raise ValueError(f"not a compressed V2 histogram: cookie {cookie:#x}")
    plain = zlib.decompress(raw[8:8 + length])  # a zlib stream: its checksum checked too
    header = struct.unpack(">IIIIqqd", plain[:40])
    payload = plain[40:40 + header[1]]
    if len(payload) != header[1]:
        raise ValueError("the payload is shorter than its header says")
    return header, payload_counts(payload)


def payload_counts(payload):
    """A V2 payload's counts by bucket index: ZigZag LEB128 numbers of at most 9 bytes (the ninth
    whole), a count each, or -k for a run of k empty buckets."""
    pos, index, counts = 0, 0, {}
    while pos < len(payload):
        v = 0
        for i in range(9):
            byte = payload[pos]
            pos += 1
            v |= (byte if i == 8 else byte & 0x7F) << (7 * i)
            if i == 8 or not byte & 0x80:
                break
        v = (v >> 1) ^ -(v & 1)
        if v < 0:
            index -= v
        else:
            if v:
                counts[index] = v
            index += 1
    return counts


def zigzag(value):
    """One ZigZag LEB128 number, as HdrHistogram writes it (at most 9 bytes, the ninth whole)."""
    v = (value << 1) ^ (value >> 63)
    v &= (1 << 64) - 1
    out = bytearray()
    for _ in range(8):
        if v < 0x80:
            out.append(v)
            return bytes(out)
        out.append((v & 0x7F) | 0x80)
        v >>= 7
    out.append(v)
    return bytes(out)


def encode_row_histogram(counts, lowest, highest, digits):
    """counts {bucket index: count} -> a row's base64 histogram (compressed V2), as HdrHistogram's
    writers encode it: a run of k > 1 empty buckets as -k, one empty bucket as 0."""
    payload, index = bytearray(), 0
    for at in sorted(counts):
        gap = at - index
        payload += zigzag(-gap) if gap > 1 else zigzag(0) if gap == 1 else b""
        payload += zigzag(counts[at])
        index = at + 1
    plain = struct.pack(">IIIIqqd", 0x1C849313, len(payload), 0, digits, lowest, highest, 1.0) + bytes(payload)
    deflated = zlib.compress(plain)
    return base64.b64encode(struct.pack(">II", 0x1C849314, len(deflated)) + deflated).decode()


def deep_log(tags=256, index=4_000_000):
    """A log of `tags` tagged rows, each one value in a bucket `index` deep of a histogram of 5
    significant figures up to 2^53, as hdr-histogram-js writes such rows (~23 KB for 256): its
    totals need 32 MiB of counters a tag."""
    rows = [f"Tag=t{k},{k}.000,1.000,1.0,{encode_row_histogram({index: 1}, 1, 2**53, 5)}" for k in range(tags)]
    return "#[Histogram log format version 1.3]\n" + "\n".join(rows) + "\n"
