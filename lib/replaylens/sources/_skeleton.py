"""Read a checkpoint blob's skeleton without building its channel values.

The msgpack checkpoint is a map with keys in a fixed order (`v`, `ts`, `id`,
`channel_values`, `channel_versions`, `versions_seen`, `updated_channels`; formats v1 to v3
also carry `pending_sends`, the `Send` packets before they became a channel). The timeline
needs the versions, not the values, so the values are skipped with msgpack's C unpacker
and only their byte ranges are remembered; the scheduling channels (a few bytes each)
are decoded strictly. On a thread of 3,000 checkpoints of 300 KB each this is the
difference between reading metadata and decoding a gigabyte of messages.
"""

from __future__ import annotations

import io
from typing import Any

import msgpack

from replaylens.decode import Placeholder, decode_typed, decrypt_if_needed, unpack_msgpack
from replaylens.sources._base import CheckpointRecord, is_scheduling_channel


class SkeletonError(ValueError):
    pass


# An array value at least this big is remembered, so that the thread's next checkpoint
# can skip the elements it repeats (an agent's message list grows by one or two a step).
REUSE_MIN_BYTES = 64 << 10
_ARRAY_HEADER_SIZES = {0xDC: 3, 0xDD: 5}  # array 16, array 32


class PrefixMemo:
    """The large array values of the previous checkpoint of the same thread.

    LangGraph stores the whole message list in every checkpoint, so checkpoint k+1's
    list starts with checkpoint k's elements, byte for byte. msgpack is self-delimiting:
    if the bytes after the array header equal the previous array's element bytes, the
    same elements are there, and only the new ones need walking. The comparison is a
    `memcmp` (`bytes.startswith`), some 30 times faster than msgpack's own skip.
    """

    def __init__(self) -> None:
        self.arrays: dict[str, tuple[memoryview, int]] = {}  # name -> (element bytes, count)
        self.reused = 0  # large arrays skipped by comparing with the previous checkpoint
        self.walked = 0  # large arrays walked element by element (first seen, or changed)


class _Cursor:
    """A msgpack Unpacker over a blob that can jump forward to an absolute offset.

    A large blob is read through a BytesIO in chunks, so a jump over a large value never
    copies it (feeding the whole blob would copy 300 KB per checkpoint); a small one is
    fed whole, which is cheaper than a stream for the Threads page's thousands of blobs.
    """

    READ_SIZE = 64 << 10

    def __init__(self, blob: bytes) -> None:
        self.blob = blob
        self._stream = io.BytesIO(blob) if len(blob) > 4 * self.READ_SIZE else None
        self.jump(0)

    def jump(self, offset: int) -> None:
        self.base = offset
        limit = max(len(self.blob), 1 << 20)
        if self._stream is None:
            self.up = msgpack.Unpacker(raw=False, strict_map_key=False, max_buffer_size=limit)
            self.up.feed(memoryview(self.blob)[offset:] if offset else self.blob)
            return
        self._stream.seek(offset)
        self.up = msgpack.Unpacker(
            self._stream,
            raw=False,
            strict_map_key=False,
            read_size=self.READ_SIZE,
            max_buffer_size=limit,
        )

    def tell(self) -> int:
        return self.base + self.up.tell()


def _array_header(blob: bytes, pos: int) -> tuple[int, int] | None:
    """(element count, header length) when an array starts at `pos`, else None."""
    if pos >= len(blob):
        return None
    first = blob[pos]
    if 0x90 <= first <= 0x9F:
        return first & 0x0F, 1
    size = _ARRAY_HEADER_SIZES.get(first)
    if size is None or pos + size > len(blob):
        return None
    return int.from_bytes(blob[pos + 1 : pos + size], "big"), size


def _skip_value(cur: _Cursor, name: str, memo: PrefixMemo | None) -> None:
    """Skip one channel value, reusing the previous checkpoint's array when it is a prefix."""
    if memo is None:
        cur.up.skip()
        return
    start = cur.tell()
    header = _array_header(cur.blob, start)
    known = memo.arrays.get(name)
    reused = False
    if header is not None and known is not None:
        count, hlen = header
        elements, known_count = known
        if known_count <= count and cur.blob.startswith(elements, start + hlen):
            cur.jump(start + hlen + len(elements))
            for _ in range(count - known_count):
                cur.up.skip()
            reused = True
    if not reused:
        cur.up.skip()
    end = cur.tell()
    if header is None or end - start < REUSE_MIN_BYTES:
        memo.arrays.pop(name, None)
        return
    count, hlen = header
    memo.arrays[name] = (memoryview(cur.blob)[start + hlen : end], count)
    if reused:
        memo.reused += 1
    else:
        memo.walked += 1


def _skeleton_from_msgpack(
    blob: bytes,
    rec: CheckpointRecord,
    offsets: dict[str, tuple[int, int]] | None = None,
    memo: PrefixMemo | None = None,
) -> None:
    """Fill `rec`; when `offsets` is given, also note where each channel value lies.

    Only the scheduling channels' byte ranges are looked up otherwise: `tell()` per value
    is most of the cost on the Threads page, which reads ten thousand small blobs.
    """
    cur = _Cursor(blob)
    keys: set[Any] = set()
    try:
        for _ in range(cur.up.read_map_header()):
            key = cur.up.unpack()
            keys.add(key)
            if key == "channel_values":
                rec.present_channels = frozenset(_channel_values(cur, rec, offsets, memo))
                continue
            if key == "pending_sends":  # Send packets are msgpack extensions: the strict decoder
                start = cur.tell()
                cur.up.skip()
                sends = unpack_msgpack(cur.blob[start : cur.tell()])
                rec.pending_sends = list(sends) if isinstance(sends, list | tuple) else []
                continue
            value = cur.up.unpack()
            if key == "v":
                rec.v = value if isinstance(value, int) else None
            elif key == "ts":
                rec.ts = value if isinstance(value, str) else None
            elif key == "channel_versions" and isinstance(value, dict):
                rec.channel_versions = value
            elif key == "versions_seen" and isinstance(value, dict):
                rec.versions_seen = _versions_seen(value)
            elif key == "updated_channels":
                rec.updated_channels = list(value) if isinstance(value, list) else None
    except (msgpack.OutOfData, msgpack.ExtraData, ValueError, TypeError) as exc:
        raise SkeletonError(f"truncated or corrupt msgpack ({exc.__class__.__name__})") from exc
    _check_whole(keys, cur.tell(), len(blob))


def _check_whole(keys: set[Any], end: int, size: int) -> None:
    """A map that ends before the blob does, or lacks `channel_versions`, is no checkpoint.

    Every LangGraph release writes `channel_versions`; random or overwritten bytes that
    happen to open with a small map header would otherwise read as an empty checkpoint."""
    if end != size:
        raise SkeletonError(f"{size - end} bytes after the checkpoint's end")
    if "channel_versions" not in keys:
        raise SkeletonError("no channel_versions: not a LangGraph checkpoint")


def _versions_seen(value: dict[Any, Any]) -> dict[str, dict[str, Any]]:
    """Node -> versions it has seen; odd keys or entries made plain, rarely needed."""
    if all(type(k) is str and type(v) is dict for k, v in value.items()):
        return value
    return {str(k): v for k, v in value.items() if isinstance(v, dict)}


def _channel_values(
    cur: _Cursor,
    rec: CheckpointRecord,
    offsets: dict[str, tuple[int, int]] | None,
    memo: PrefixMemo | None,
) -> list[str]:
    """Walk the channel_values map: names kept, scheduling values decoded, the rest skipped."""
    present: list[str] = []
    for _ in range(cur.up.read_map_header()):
        name = cur.up.unpack()
        name = name if type(name) is str else str(name)
        present.append(name)
        if offsets is None and not is_scheduling_channel(name):
            _skip_value(cur, name, memo)
            continue
        start = cur.tell()
        cur.up.skip()
        end = cur.tell()
        if offsets is not None:
            offsets[name] = (start, end)
        if is_scheduling_channel(name):
            value = unpack_msgpack(cur.blob[start:end])
            if isinstance(value, Placeholder) and value.kind == "too_large":
                raise SkeletonError(f"its scheduling channel {name!r} is {value.detail}")
            rec.scheduling_values[name] = value
    return present


def _skeleton_from_dict(value: dict[str, Any], rec: CheckpointRecord) -> None:
    rec.v = value.get("v") if isinstance(value.get("v"), int) else None
    rec.ts = value.get("ts") if isinstance(value.get("ts"), str) else None
    rec.channel_versions = dict(value.get("channel_versions") or {})
    rec.versions_seen = dict(value.get("versions_seen") or {})
    uc = value.get("updated_channels")
    rec.updated_channels = list(uc) if isinstance(uc, list) else None
    sends = value.get("pending_sends")
    rec.pending_sends = list(sends) if isinstance(sends, list | tuple) else None
    values = value.get("channel_values") or {}
    rec.present_channels = frozenset(str(k) for k in values)
    rec.scheduling_values = {k: v for k, v in values.items() if is_scheduling_channel(str(k))}


def fill_skeleton(
    rec: CheckpointRecord,
    type_: str | None,
    blob: bytes | None,
    aes_key: bytes | None,
    memo: PrefixMemo | None = None,
) -> None:
    """Fill `rec` from its blob, or set `rec.error` to one sentence saying why not.

    Pass one `memo` for the checkpoints of one thread in order, so that each skips what
    the one before it already held."""
    rec.blob_type = type_
    rec.blob_size = len(blob) if blob is not None else 0
    if blob is None or type_ is None:
        rec.error = "the checkpoint blob is empty"
        return
    plain = decrypt_if_needed(type_, bytes(blob), aes_key)
    if isinstance(plain, Placeholder):
        rec.error = f"the checkpoint is encrypted ({plain.detail})"
        return
    ptype, pblob = plain
    try:
        if ptype == "msgpack":
            _skeleton_from_msgpack(pblob, rec, memo=memo)
            return
        result = decode_typed(ptype, pblob)
        if result.error or not isinstance(result.value, dict):
            rec.error = f"the checkpoint blob cannot be read ({result.error or 'not a map'})"
            return
        _check_whole(set(result.value), 0, 0)
        _skeleton_from_dict(result.value, rec)
    except SkeletonError as exc:
        rec.error = f"the checkpoint blob cannot be read ({exc})"


def channel_values_from_blob(
    type_: str | None, blob: bytes | None, aes_key: bytes | None
) -> dict[str, Any]:
    """Decode every channel value of one checkpoint (when someone looks at its state)."""
    from replaylens.decode import DecodeResult

    if blob is None or type_ is None:
        return {}
    plain = decrypt_if_needed(type_, bytes(blob), aes_key)
    if isinstance(plain, Placeholder):
        return {"(encrypted)": DecodeResult(plain, plain.detail)}
    ptype, pblob = plain
    if ptype == "msgpack":
        rec = CheckpointRecord("", "", "", None, {})
        offsets: dict[str, tuple[int, int]] = {}
        try:
            _skeleton_from_msgpack(pblob, rec, offsets)
        except SkeletonError as exc:
            return {"(unreadable)": DecodeResult(None, str(exc))}
        out: dict[str, Any] = {}
        for name, (start, end) in offsets.items():
            try:
                value = unpack_msgpack(pblob[start:end])
                big = isinstance(value, Placeholder) and value.kind == "too_large"
                out[name] = DecodeResult(value, value.detail if big else None)
            except Exception as exc:  # a corrupt value spoils only itself
                out[name] = DecodeResult(None, f"corrupt value ({exc.__class__.__name__})")
        return out
    result = decode_typed(ptype, pblob)
    if isinstance(result.value, dict):
        return {
            str(k): DecodeResult(v) for k, v in (result.value.get("channel_values") or {}).items()
        }
    return {"(unreadable)": result}


def channel_sizes(msgpack_blob: bytes) -> dict[str, tuple[int, bool]] | None:
    """Each channel's (encoded bytes, value is a list) in one plain msgpack checkpoint, None
    when the blob cannot be walked.

    The values are skipped, never built: the storage page sizes every thread's latest
    checkpoint, and building a long message list only to measure it would cost its decode.
    """
    offsets: dict[str, tuple[int, int]] = {}
    try:
        _skeleton_from_msgpack(msgpack_blob, CheckpointRecord("", "", "", None, {}), offsets)
    except SkeletonError:
        return None
    return {
        name: (end - start, _array_header(msgpack_blob, start) is not None)
        for name, (start, end) in offsets.items()
    }
