"""The few DER shapes the local Sigstore writes or takes apart itself.

python3-cryptography builds certificates, but a CT log must remove the
poison extension from a precertificate's TBSCertificate, an X.509 extension
value must be wrapped (a UTF8String, an OCTET STRING), and an RFC 3161 request
carries a nonce the test chooses.  Those need DER at the level of
tag-length-value only: definite lengths, no indefinite forms, input bounded
by the caller (test data made here).
"""

MAX_DEPTH = 16


def encode_length(n):
    if n < 0x80:
        return bytes([n])
    body = n.to_bytes((n.bit_length() + 7) // 8, "big")
    return bytes([0x80 | len(body)]) + body


def tlv(tag, value):
    return bytes([tag]) + encode_length(len(value)) + value


def sequence(*items):
    return tlv(0x30, b"".join(items))


def octet_string(value):
    return tlv(0x04, value)


def utf8_string(text):
    return tlv(0x0C, text.encode("utf-8"))


def boolean(value):
    return tlv(0x01, b"\xff" if value else b"\x00")


def null():
    return b"\x05\x00"


def integer(n):
    if n < 0:
        raise ValueError("negative INTEGER not needed here")
    body = n.to_bytes(max(1, (n.bit_length() + 8) // 8), "big")
    return tlv(0x02, body)


def oid(dotted):
    parts = [int(p) for p in dotted.split(".")]
    out = bytearray([40 * parts[0] + parts[1]])
    for p in parts[2:]:
        chunk = [p & 0x7F]
        p >>= 7
        while p:
            chunk.append(0x80 | (p & 0x7F))
            p >>= 7
        out.extend(reversed(chunk))
    return tlv(0x06, bytes(out))


def read_tlv(data, pos=0):
    """(tag, header length, value length) of the element at pos."""
    if pos + 2 > len(data):
        raise ValueError("DER: truncated header")
    tag = data[pos]
    if tag & 0x1F == 0x1F:
        raise ValueError("DER: multi-byte tags not used here")
    first = data[pos + 1]
    if first < 0x80:
        hlen, vlen = 2, first
    else:
        n = first & 0x7F
        if n == 0 or n > 4:
            raise ValueError("DER: unsupported length form")
        if pos + 2 + n > len(data):
            raise ValueError("DER: truncated length")
        hlen, vlen = 2 + n, int.from_bytes(data[pos + 2:pos + 2 + n], "big")
    if pos + hlen + vlen > len(data):
        raise ValueError("DER: value runs past the end")
    return tag, hlen, vlen


def children(data):
    """The elements of a constructed value's contents, as raw TLV bytes."""
    out, pos = [], 0
    while pos < len(data):
        _, hlen, vlen = read_tlv(data, pos)
        out.append(data[pos:pos + hlen + vlen])
        pos += hlen + vlen
    return out


def contents(element):
    _, hlen, vlen = read_tlv(element)
    return element[hlen:hlen + vlen]


def oid_of_extension(ext):
    """The dotted OID of a DER Extension (SEQUENCE { OID, [BOOL], OCTET STRING })."""
    first = children(contents(ext))[0]
    if first[0] != 0x06:
        raise ValueError("DER: extension without an OID")
    body = contents(first)
    parts = [body[0] // 40, body[0] % 40]
    n = 0
    for b in body[1:]:
        n = (n << 7) | (b & 0x7F)
        if not b & 0x80:
            parts.append(n)
            n = 0
    return ".".join(str(p) for p in parts)


def extensions_of(tbs):
    """The DER Extension elements of a TBSCertificate, in order."""
    last = children(contents(tbs))[-1]
    if last[0] != 0xA3:
        raise ValueError("DER: TBSCertificate has no extensions")
    return children(contents(children(contents(last))[0]))


def extension_value(ext):
    """The contents of an Extension's extnValue OCTET STRING."""
    return contents(children(contents(ext))[-1])


def tbs_without_extensions(tbs, drop_oids):
    """TBSCertificate bytes with the extensions named in drop_oids removed,
    every other byte (and the order of the remaining extensions) unchanged."""
    if tbs[0] != 0x30:
        raise ValueError("DER: TBSCertificate is not a SEQUENCE")
    fields = children(contents(tbs))
    exts = extensions_of(tbs)
    kept = [e for e in exts if oid_of_extension(e) not in drop_oids]
    fields[-1] = tlv(0xA3, sequence(*kept))
    return sequence(*fields)
