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
